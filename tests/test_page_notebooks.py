"""Every page with code is offered as a notebook generated from the page itself (sitepages/page_notebook.py,
written by docs/hooks/page_notebooks.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from sitepages import ROOT, language_of, page_id, page_url, pages, parse, parse_notebook
from sitepages.notebook import dumps
from sitepages.page_notebook import notebook_name, page_notebook, version_cell
from sitepages.pins import pinned
from tests.site_build import parsed

FENCE = "```"


def test_a_page_becomes_a_notebook_of_its_executed_blocks(tmp_path):
    page = tmp_path / "docs" / "en" / "page.md"
    page.parent.mkdir(parents=True)
    page.write_text(
        "# A page\n\n"
        f"{FENCE}python\nx = 6 * 7\nprint(x)\n{FENCE}\n\n"
        f"<!--pytest-codeblocks:expected-output-->\n{FENCE}text\n42\n{FENCE}\n\n"
        '!!! warning "Not on CPU"\n    <!--pytest.mark.skip(reason="needs a GPU")-->\n'
        f"    {FENCE}python\n    x.cuda()\n    {FENCE}\n\n"
        f"{FENCE}python\ny = x + 1\n{FENCE}\n",
        encoding="utf-8",
    )
    cells = page_notebook(page)["cells"]
    assert [cell["cell_type"] for cell in cells] == ["markdown", "code", "code", "markdown", "code"]
    assert "".join(cells[1]["source"]) == "".join(version_cell("en")["source"])
    assert "".join(cells[2]["source"]) == "x = 6 * 7\nprint(x)" and cells[2]["outputs"][0]["text"] == ["42\n"]
    shown = "".join(cells[3]["source"])
    assert shown.startswith("**Not on CPU**\n\n*Not run by the test suite: needs a GPU*")
    assert "```python\nx.cuda()\n```" in shown and "pytest" not in shown
    assert "".join(cells[4]["source"]) == "y = x + 1" and cells[4]["outputs"] == []


def test_the_first_code_cell_prints_both_torch_versions(tmp_path):
    """The reader's torch (on Colab, say) and the one the page's outputs come from, the pin."""
    code = "".join(version_cell("zh")["source"])
    printed = []
    exec(compile(code, "version cell", "exec"), {"print": lambda *args: printed.append(" ".join(map(str, args)))})
    assert printed == [f"running torch {torch.__version__} | outputs verified with torch {pinned('torch')}"]
    assert "# 下面保存的输出来自" in code and version_cell("zh")["outputs"] == []


def _executed(page: Path):
    return [block for block in parse(page) if block.executed]


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_page_notebook_holds_exactly_the_blocks_the_page_runs(page):
    generated = page_notebook(ROOT / page)
    blocks = _executed(page)
    if not blocks:
        assert generated is None, f"{page} runs no code, so it offers no notebook"
        return
    first = "".join(generated["cells"][0]["source"])
    assert first.startswith("# "), f"{page}: the notebook should open with the page title, not {first[:40]!r}"
    code = [cell for cell in generated["cells"] if cell["cell_type"] == "code"]
    assert code[0] == version_cell(language_of(page)), f"{page}: the first code cell prints the versions"
    code = code[1:]
    assert ["".join(cell["source"]) for cell in code] == [block.code.rstrip("\n") for block in blocks]
    def stream(cell, name):
        return "".join("".join(output["text"]) for output in cell["outputs"] if output["name"] == name)

    assert [stream(cell, "stdout") for cell in code] == [block.expected for block in blocks]
    assert [stream(cell, "stderr") for cell in code] == [block.expected_warnings for block in blocks]


def _download_link(html_file: Path) -> str | None:
    link = parsed(html_file.read_text(encoding="utf-8")).select_one(
        "p.notebook-download a[download]")
    return link["href"] if link else None


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_built_page_links_its_notebook(built_site, page):
    site, result = built_site
    assert result.returncode == 0, "the site did not build; see test_mkdocs_build_strict_has_no_warnings"
    built = site / page_url(page).lstrip("/") / "index.html"
    href = _download_link(built)
    generated = page_notebook(ROOT / page)
    if generated is None:
        assert href is None, f"{built} offers a notebook, but the page runs no code"
        return
    assert href == notebook_name(page_id(page)), f"{built}: link {href!r}"
    served = built.parent / href
    assert served.exists(), f"{built} links {href}, which the site does not serve"
    assert served.read_text(encoding="utf-8") == dumps(generated)
    assert [block.code.rstrip("\n") for block in parse_notebook(served)][1:] == [
        block.code.rstrip("\n") for block in _executed(page)
    ]
