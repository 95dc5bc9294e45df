"""Read and write the site's Jupyter notebooks as lists of code blocks, like a page's fences.

A notebook in docs/*/notebooks/ is run by the same runner as a page
(``page_runner.run_page``): its code cells run in order in one fresh
namespace, and each cell's stored output is the printed output the suite
compares, so a notebook gets every guarantee a page gets.

Stored notebooks are kept in one canonical form, written only by
``tests/update_outputs.py`` (and by the site's hook for generated ones):
nbformat 4.4 (no random cell ids), no execution counts, no cell metadata,
a fixed notebook metadata, and outputs that are printed text only (one
``stream``/``stdout`` output per printing cell). Re-running the command on
an unchanged notebook therefore changes no byte of it.
"""

from __future__ import annotations

import ast
import json
import linecache
from dataclasses import dataclass
from pathlib import Path

from markdown_fences import EXECUTED_INFO, Fence, PageFormatError

NOTEBOOK_METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}


@dataclass
class Cell(Fence):
    """A notebook code cell, seen as a page's code block: ``start`` is its cell number."""

    @property
    def where(self) -> str:
        return f"{self.path}, cell {self.start}"

    def compiled(self):
        self._remember_source()
        return compile(self.body, self.where, "exec")

    def _remember_source(self) -> None:
        # Tracebacks name the notebook and cell, and show the cell's own lines.
        linecache.cache[self.where] = (len(self.body), None, self.body.splitlines(True), self.where)

    def execute(self, namespace: dict) -> object:
        """Run the cell; return the value Jupyter would display below it (None if none).

        Jupyter shows the value of a cell's last line when it is an expression,
        which a plain ``exec`` would silently drop.
        """
        self._remember_source()
        tree = ast.parse(self.body, self.where)
        last = tree.body[-1] if tree.body else None
        if not isinstance(last, ast.Expr):
            exec(self.compiled(), namespace)
            return None
        exec(compile(ast.Module(tree.body[:-1], type_ignores=[]), self.where, "exec"), namespace)
        return eval(compile(ast.Expression(last.value), self.where, "eval"), namespace)


def _text(source: str | list[str]) -> str:
    return source if isinstance(source, str) else "".join(source)


def parse_notebook(path: Path) -> list[Cell]:
    """The notebook's code cells, each with its stored printed output attached."""
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    cells: list[Cell] = []
    for number, cell in enumerate(notebook.get("cells", []), start=1):
        if cell["cell_type"] != "code":
            continue
        body = _text(cell["source"])
        if body and not body.endswith("\n"):
            body += "\n"
        code = Cell(path=Path(path), start=number, end=number, indent=0, chars="```",
                    info=EXECUTED_INFO, body=body, code=body)
        printed = ""
        for output in cell.get("outputs", []):
            if output.get("output_type") != "stream" or output.get("name") != "stdout":
                raise PageFormatError(
                    path, number,
                    f"cell {number} stores a {output.get('output_type')} "
                    f"{output.get('name', '')} output; notebooks store only printed output "
                    "(print the value; rewrite outputs with python tests/update_outputs.py)",
                )
            printed += _text(output["text"])
        if printed:
            code.output = Fence(path=Path(path), start=number, end=number, indent=0, chars="```",
                                info="text", body=printed, is_output=True)
        cells.append(code)
    return cells


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def markdown_cell(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": _lines(text.strip("\n"))}


def code_cell(code: str, stdout: str = "") -> dict:
    outputs = [{"name": "stdout", "output_type": "stream", "text": _lines(stdout)}] if stdout else []
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": outputs,
        "source": _lines(code.rstrip("\n")),
    }


def notebook(cells: list[dict]) -> dict:
    return {"cells": cells, "metadata": NOTEBOOK_METADATA, "nbformat": 4, "nbformat_minor": 4}


def dumps(nb: dict) -> str:
    """The canonical text of a notebook (nbformat's own layout: indent 1, sorted keys)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def canonical(nb: dict, outputs: dict[int, str] | None = None) -> dict:
    """The notebook in canonical form; ``outputs`` maps cell numbers to new printed output."""
    cells = []
    for number, cell in enumerate(nb["cells"], start=1):
        source = _text(cell["source"])
        if cell["cell_type"] == "code":
            if outputs is not None and number in outputs:
                printed = outputs[number]
            else:
                printed = "".join(
                    _text(o.get("text", "")) for o in cell.get("outputs", [])
                    if o.get("output_type") == "stream" and o.get("name") == "stdout"
                )
            cells.append(code_cell(source, printed))
        else:
            cells.append(markdown_cell(source) | {"cell_type": cell["cell_type"]})
    return notebook(cells)
