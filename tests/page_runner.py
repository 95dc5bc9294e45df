"""Execute the Python blocks of a page the way a reader does, and record what each prints.

A page is one Python session: its blocks run in order in one fresh namespace
whose ``__name__`` is ``"__main__"``, as when a reader pastes them into a new
interpreter. Nothing else runs between them except the state reset below,
and every block is then checked to have left that state as it found it, so
the reset never hides a difference from the reader's session:

* grad mode, default dtype, print options and anomaly detection are reset
  before each block; a block that changes one must restore it (``with``);
* the random generator is reset to a sentinel seed before each block; a block
  that draws random numbers must call ``torch.manual_seed`` itself, since a
  fresh interpreter's seed differs from run to run;
* a warning that escapes a block fails it: the reader would see it on stderr,
  which a page does not show. Pages catch warnings and print them.

A notebook (``.ipynb``) runs the same way: its code cells are its blocks and
each cell's stored output is its output block (see ``notebook_cells``). A
cell whose last line is an expression with a value also fails, since
Jupyter would display that value, which the stored output does not show.
"""

from __future__ import annotations

import builtins
import contextlib
import difflib
import io
import re
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import torch

from markdown_fences import Fence, parse_page
from notebook_cells import Cell, parse_notebook

SENTINEL_SEED = 20_261_122
_MEMORY_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]{6,}")


@dataclass
class BlockRun:
    fence: Fence
    stdout: str = ""
    error: str | None = None  # traceback, pointing at the page's own lines
    problems: list[str] = field(default_factory=list)

    @property
    def expected(self) -> str:
        return self.fence.output.body if self.fence.output else ""

    @property
    def complaints(self) -> list[str]:
        """Everything wrong with the block apart from its output, each at the block's page line."""
        found = [f"{self.fence.where}: {problem}" for problem in self.problems]
        if self.error:
            found.append(f"{self.fence.where}: the block raised; the blocks after it were not run\n{self.error}")
        return found

    @property
    def failures(self) -> list[str]:
        """The complaints, and a diff when the block printed something other than its output."""
        found = self.complaints
        if self.stdout != self.expected:
            if isinstance(self.fence, Cell):
                shown, source, block = "the cell's stored output", "stored in the notebook", "cell"
            else:
                shown = f"the output block at line {self.fence.output.start}" if self.fence.output else "no output block"
                source, block = "shown on the page", "block"
            diff = difflib.unified_diff(
                self.expected.splitlines(keepends=True),
                self.stdout.splitlines(keepends=True),
                fromfile=f"expected ({source})",
                tofile=f"actual (printed by the {block})",
            )
            found.append(
                f"{self.fence.where}: printed output differs from {shown}\n{''.join(diff)}"
                "(to rewrite every output from a real run: python tests/update_outputs.py)"
            )
        return found


def _default_state() -> dict[str, object]:
    from torch._tensor_str import PRINT_OPTS

    return {
        "grad mode (torch.is_grad_enabled())": torch.is_grad_enabled(),
        "inference mode (torch.is_inference_mode_enabled())": torch.is_inference_mode_enabled(),
        "default dtype (torch.get_default_dtype())": torch.get_default_dtype(),
        "print options (torch.set_printoptions)": dict(vars(PRINT_OPTS)),
        "anomaly detection (torch.is_anomaly_enabled())": torch.is_anomaly_enabled(),
    }


def _reset_state() -> None:
    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float32)
    torch.set_printoptions(profile="default", sci_mode=None)
    torch.autograd.set_detect_anomaly(False)
    torch.manual_seed(SENTINEL_SEED)


_reset_state()
_DEFAULTS = _default_state()


def _state_problems(rng_before: torch.Tensor) -> list[str]:
    problems = [
        f"left {name} as {value!r} instead of {_DEFAULTS[name]!r}; the reader's next "
        "block would run differently, so restore it inside the block (use `with`)"
        for name, value in _default_state().items()
        if value != _DEFAULTS[name]
    ]
    if torch.initial_seed() == SENTINEL_SEED and not torch.equal(torch.get_rng_state(), rng_before):
        problems.append(
            "draws random numbers without calling torch.manual_seed(...) first; a fresh "
            "interpreter starts from a different seed every run, so the output would not repeat"
        )
    return problems


def _page_traceback(path: Path) -> str:
    """The traceback from the page's frames on, without this runner's own frames."""
    lines = traceback.format_exc().splitlines(keepends=True)
    marker = f'File "{path}'  # a notebook cell's frames are named "PATH, cell N"
    for index, line in enumerate(lines):
        if marker in line:
            return lines[0] + "".join(lines[index:])
    return "".join(lines)


def parse_blocks(path: Path) -> list[Fence]:
    """The blocks of a page (its fences) or of a notebook (its code cells)."""
    return parse_notebook(path) if Path(path).suffix == ".ipynb" else parse_page(path)


def run_page(path: Path) -> list[BlockRun]:
    """Run every executed block of the page or notebook; stop at the first that raises."""
    namespace: dict[str, object] = {"__name__": "__main__", "__builtins__": builtins}
    runs: list[BlockRun] = []
    for fence in parse_blocks(path):
        if not fence.executed:
            continue
        run = BlockRun(fence)
        runs.append(run)
        _reset_state()
        rng_before = torch.get_rng_state()
        stdout, stderr = io.StringIO(), io.StringIO()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                try:
                    if isinstance(fence, Cell):
                        displayed = fence.execute(namespace)
                        if displayed is not None:
                            run.problems.append(
                                f"ends with an expression whose value Jupyter would display "
                                f"({type(displayed).__name__}), which the stored output does not "
                                "show; print it or assign it"
                            )
                    else:
                        exec(fence.compiled(), namespace)
                except BaseException:  # noqa: BLE001 - report anything, even SystemExit
                    run.error = _page_traceback(path)
        run.stdout = stdout.getvalue()
        run.problems += _state_problems(rng_before)
        run.problems += [
            f"emitted {w.category.__name__}: {w.message} (a reader sees this on stderr, "
            "which the page does not show; catch it with warnings.catch_warnings and print it)"
            for w in caught
        ]
        if stderr.getvalue():
            run.problems.append(f"wrote to stderr, which the page does not show:\n{stderr.getvalue()}")
        if _MEMORY_ADDRESS.search(run.stdout):
            run.problems.append(
                "prints a memory address, which changes every run (print grad_fn.name(), not grad_fn)"
            )
        if run.error:
            break
    return runs
