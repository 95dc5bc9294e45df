"""One model for the code of a page and of a notebook: a Block, and the Output shown after it.

A Markdown page's fences and a notebook's code cells are both Blocks. What
differs is recorded as data, not as a subclass: a block has a page ``line``
or a notebook ``cell`` number, and a notebook cell displays the value of its
last expression (Jupyter shows it below the cell), a page block does not.
"""

from __future__ import annotations

import ast
import linecache
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType

EXECUTED_INFO = "python"


class PageFormatError(ValueError):
    """A page or notebook uses the markup in a way the suite cannot honour; says where."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")


@dataclass
class Output:
    """The expected output shown after a code block (a page's output fence, a cell's stored output)."""

    text: str
    line: int | None = None  # the output fence's opening line (pages only)
    end: int | None = None  # its closing line
    marker_line: int | None = None  # the <!--pytest-codeblocks:expected-output--> line
    info: str = "text"


@dataclass
class Block:
    path: Path
    source: str  # the code as written (a snippet include line stays one line)
    code: str = ""  # the code that runs: the source with snippet includes expanded
    line: int | None = None  # pages: the opening fence's line, 1-based
    cell: int | None = None  # notebooks: the cell's number among all cells, 1-based
    end: int | None = None  # pages: the closing fence's line
    indent: int = 0
    fence: str = "```"  # the fence characters, e.g. ``` or ~~~~
    info: str = EXECUTED_INFO
    skip_reason: str | None = None  # declared with <!--pytest.mark.skip(reason="...")-->
    marker_line: int | None = None  # the line of that marker
    output: Output | None = None
    # The warnings it shows, in a block of their own after the output (a page's
    # <!--pagerun:expected-warnings--> fence, a notebook cell's stderr stream).
    warnings: Output | None = None
    included_file: str | None = None  # set when the source is a single include of a whole file
    displays_last_value: bool = False  # Jupyter shows the value of a final expression
    _compiled: CodeType | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.code = self.code or self.source

    @property
    def executed(self) -> bool:
        """Whether the suite executes this block: a ```python fence (exactly) not declared skipped."""
        return self.skip_reason is None and self.fence.startswith("```") and self.info == EXECUTED_INFO

    @property
    def where(self) -> str:
        """page.md:LINE or notebook.ipynb, cell N: how messages and tracebacks name the block."""
        return f"{self.path}, cell {self.cell}" if self.cell is not None else f"{self.path}:{self.line}"

    @property
    def expected(self) -> str:
        return self.output.text if self.output else ""

    @property
    def expected_warnings(self) -> str:
        """The warnings shown after the block, one ``Category: message`` line each (see tests.pagerun.execute)."""
        return self.warnings.text if self.warnings else ""

    @property
    def shown(self) -> str:
        """Everything the page shows the block producing, as one text: the output, then any warnings."""
        return shown(self.expected, self.expected_warnings)

    def compiled(self) -> CodeType:
        """The code, compiled so that tracebacks point at the page's own lines.

        Compiled with ``dont_inherit=True``: this module's ``from __future__ import
        annotations`` must not reach the reader's code, where it would turn every
        annotation into a string (``inspect.signature`` would then see strings, as
        DDP's ``register_comm_hook`` does, unlike in the reader's own Python).

        Page blocks are padded with newlines to their line on the page; a block
        that only includes a file runs under that file's name and lines; a
        notebook cell is named "notebook.ipynb, cell N" and its lines are
        registered with linecache so tracebacks show them.
        """
        if self._compiled is None:
            if self.included_file is not None:
                self._compiled = compile(self.code, self.included_file, "exec", dont_inherit=True)
            elif self.cell is not None:
                linecache.cache[self.where] = (len(self.code), None, self.code.splitlines(True), self.where)
                self._compiled = compile(self.code, self.where, "exec", dont_inherit=True)
            else:
                self._compiled = compile("\n" * (self.line or 0) + self.code, str(self.path), "exec", dont_inherit=True)
        return self._compiled

    def compiled_with_last_value(self) -> tuple[CodeType, CodeType | None]:
        """For a notebook cell: its statements, and its final expression compiled for eval (or None).

        Jupyter displays the value of a cell's final expression, which a plain
        exec would drop silently; the runner evaluates it to see if there is one.
        """
        tree = ast.parse(self.code, self.where)
        if not tree.body or not isinstance(tree.body[-1], ast.Expr):
            return self.compiled(), None
        self.compiled()  # registers the lines with linecache
        *statements, last = tree.body
        return (
            compile(ast.Module(statements, type_ignores=[]), self.where, "exec", dont_inherit=True),
            compile(ast.Expression(last.value), self.where, "eval", dont_inherit=True),
        )


WARNINGS_HEADING = "--- warnings ---\n"


def shown(printed: str, warned: str) -> str:
    """Printed output and warnings as one text, for whatever compares or stores a block's whole result
    (the portability pass, the version matrix): identical to the printed output when nothing warned."""
    return printed + WARNINGS_HEADING + warned if warned else printed


def silently_skipped(blocks: list[Block]) -> list[Block]:
    """Blocks that are neither run nor declared not to run (e.g. ```py, ~~~python, ```python title=...)."""
    return [block for block in blocks if not block.executed and not block.skip_reason]
