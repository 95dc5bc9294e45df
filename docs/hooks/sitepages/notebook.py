"""Read the site's notebooks as Blocks, and write notebooks in the one canonical form.

A notebook's code cells are its blocks, run in order in one session like a
page's, and each cell's stored printed output is its expected output, so a
notebook gets every guarantee a page gets.

Notebooks are read with nbformat and validated against the notebook schema.
Stored notebooks are kept in one canonical form, written only by the rewrite
command (``pytest --update-outputs``) and by the site's hook for generated
notebooks: nbformat 4.4 (no random cell ids), no execution counts, no cell
metadata, a fixed notebook metadata, and outputs that are printed text only
(one ``stream``/``stdout`` output per printing cell, then one ``stream``/``stderr``
output with the warnings it shows, as Jupyter shows warnings). Rewriting an unchanged
notebook therefore changes no byte of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from .blocks import Block, Output, PageFormatError

METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}


def _text(source: str | list[str]) -> str:
    return source if isinstance(source, str) else "".join(source)


def read(path: Path) -> nbformat.NotebookNode:
    """The notebook, validated: a malformed one is a PageFormatError naming the file and the problem."""
    try:
        notebook = nbformat.read(Path(path), as_version=4)
        nbformat.validate(notebook)
    except (json.JSONDecodeError, nbformat.ValidationError, nbformat.reader.NotJSONError) as error:
        message = str(error).splitlines()[0]
        raise PageFormatError(str(path), f"not a valid notebook: {message}") from None
    return notebook


def parse_notebook(path: Path) -> list[Block]:
    """The notebook's code cells as Blocks, each with its stored printed output attached."""
    path = Path(path)
    blocks: list[Block] = []
    for number, cell in enumerate(read(path).cells, start=1):
        if cell.cell_type != "code":
            continue
        code = _text(cell.source)
        if code and not code.endswith("\n"):
            code += "\n"
        printed = {"stdout": "", "stderr": ""}
        for output in cell.get("outputs", []):
            if output.get("output_type") != "stream" or output.get("name") not in printed:
                raise PageFormatError(
                    f"{path}, cell {number}",
                    f"stores a {output.get('output_type')} {output.get('name', '')} output; notebooks "
                    "store only printed output and warnings (print the value; rewrite the outputs with "
                    f"pytest --update-outputs {path})",
                )
            printed[output["name"]] += _text(output["text"])
        block = Block(path=path, source=code, cell=number, displays_last_value=True)
        if printed["stdout"]:
            block.output = Output(text=printed["stdout"])
        if printed["stderr"]:
            block.warnings = Output(text=printed["stderr"])
        blocks.append(block)
    return blocks


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def markdown_cell(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": _lines(text.strip("\n"))}


def code_cell(code: str, stdout: str = "", stderr: str = "") -> dict:
    outputs = [
        {"name": name, "output_type": "stream", "text": _lines(text)}
        for name, text in (("stdout", stdout), ("stderr", stderr)) if text
    ]
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": outputs,
        "source": _lines(code.rstrip("\n")),
    }


def new_notebook(cells: list[dict]) -> dict:
    return {"cells": cells, "metadata": METADATA, "nbformat": 4, "nbformat_minor": 4}


def dumps(notebook: dict) -> str:
    """The canonical text of a notebook (nbformat's own layout: indent 1, sorted keys)."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def canonical(notebook: dict, outputs: dict[int, tuple[str, str]] | None = None) -> dict:
    """The notebook in canonical form; ``outputs`` maps cell numbers to new (printed output, warnings)."""
    cells = []
    for number, cell in enumerate(notebook["cells"], start=1):
        source = _text(cell["source"])
        if cell["cell_type"] == "code":
            if outputs is not None and number in outputs:
                printed, warned = outputs[number]
            else:
                printed, warned = (
                    "".join(
                        _text(o.get("text", "")) for o in cell.get("outputs", [])
                        if o.get("output_type") == "stream" and o.get("name") == name
                    )
                    for name in ("stdout", "stderr")
                )
            cells.append(code_cell(source, printed, warned))
        else:
            cells.append(markdown_cell(source) | {"cell_type": cell["cell_type"]})
    return new_notebook(cells)
