"""Small pages and notebooks written into a test's tmp_path, to feed the machinery something to check."""

from __future__ import annotations

from pathlib import Path

from sitepages.notebook import dumps, markdown_cell, new_notebook

FENCE = "```"


def python_block(code: str, output: str | None = None) -> str:
    """A ```python block, with its expected-output block when ``output`` is given."""
    block = f"{FENCE}python\n{code}\n{FENCE}"
    if output is not None:
        block += f"\n\n<!--pytest-codeblocks:expected-output-->\n{FENCE}text\n{output}\n{FENCE}"
    return block


def write_page(folder: Path, *blocks: str, name: str = "page.md") -> Path:
    """A page titled "A page" whose blocks start at line 3, one blank line apart."""
    page = folder / name
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("# A page\n\n" + "\n\n".join(blocks) + "\n", encoding="utf-8")
    return page


def write_notebook(folder: Path, *cells: dict, name: str = "lab.ipynb") -> Path:
    """A notebook whose first cell is the title "A lab" (so code cells count from 2)."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(new_notebook([markdown_cell("# A lab"), *cells])), encoding="utf-8")
    return path
