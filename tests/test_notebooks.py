"""Notebooks are tested like pages, render on the site in both languages, and every page is one.

* Each lab notebook (docs/*/notebooks/*.ipynb) runs in the page runner (one
  fresh namespace, seeds, no warning or stderr, no memory address) and every
  code cell prints exactly its stored output; the Chinese notebook has the
  same cells, the same code (comments aside) and the same outputs; notebooks
  are stored in canonical form (no execution counts or ids that churn).
* The built notebook pages of both languages hold rendered cells, not the
  raw JSON of mkdocs-static-i18n issue #198 (docs/hooks/jupyter_i18n.py),
  load nothing from outside the site and stay light (docs/hooks/jupyter_light.py),
  and offer their .ipynb for download.
* Every page with executed blocks links a notebook generated from the page
  itself (docs/hooks/page_notebooks.py) whose code cells are exactly the
  blocks the page tests run, and the built site serves it at that link.
"""

from __future__ import annotations

import difflib
import html
import importlib.util
import json
import re
from pathlib import Path

import pytest

from docs_pages import DOCS, ROOT, notebooks, page_id, page_url, pages, twin
from markdown_fences import parse_page
from notebook_cells import canonical, dumps, parse_notebook
from page_runner import run_page
from test_translation_parity import _differences

# Another helper's browser tests measure the same budget in a real browser.
NOTEBOOK_PAGE_BUDGET = 600 * 1024


def _hook(name: str):
    spec = importlib.util.spec_from_file_location(name, DOCS / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


page_notebooks = _hook("page_notebooks")


# ------------------------------------------------------------ run like pages
def notebook_failures(notebook: Path) -> list[str]:
    return [message for run in run_page(notebook) for message in run.failures]


@pytest.mark.parametrize("notebook", notebooks(), ids=page_id)
def test_every_cell_prints_its_stored_output(notebook):
    failures = notebook_failures(notebook)
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)


def test_there_are_labs_in_both_languages():
    english = [path.name for path in notebooks("en")]
    assert len(english) >= 3 and english == [path.name for path in notebooks("zh")]


@pytest.mark.parametrize("notebook", notebooks(), ids=page_id)
def test_notebook_is_stored_in_canonical_form(notebook):
    text = (ROOT / notebook).read_text(encoding="utf-8")
    wanted = dumps(canonical(json.loads(text)))
    if text != wanted:
        diff = "".join(difflib.unified_diff(
            text.splitlines(keepends=True), wanted.splitlines(keepends=True),
            fromfile=f"{notebook} (stored)", tofile="canonical", n=1,
        ))
        pytest.fail(
            f"{notebook} holds execution counts, ids or metadata that change from run to run; "
            f"rewrite it with python tests/update_outputs.py {notebook}\n{diff}",
            pytrace=False,
        )


# ----------------------------------------------------------------- parity
def notebook_drift(english: Path, chinese: Path) -> list[str]:
    """What differs between a notebook and its twin, cell by cell; empty when in lockstep."""
    kinds = [[cell["cell_type"] for cell in json.loads(p.read_text(encoding="utf-8"))["cells"]]
             for p in (english, chinese)]
    if kinds[0] != kinds[1]:
        return [f"{english} and {chinese} differ in their cells' kinds and order: {kinds[0]} vs {kinds[1]}"]
    return [
        f"cell {en.start}: {text}"
        for en, zh in zip(parse_notebook(english), parse_notebook(chinese))
        for text in _differences(en, zh)
    ]


@pytest.mark.parametrize("notebook", notebooks("en"), ids=page_id)
def test_chinese_notebook_has_the_same_code_and_outputs(notebook):
    chinese = twin(notebook, "zh")
    if not (ROOT / chinese).exists():
        pytest.fail(f"{notebook} has no Chinese twin: create {chinese}", pytrace=False)
    problems = notebook_drift(notebook, chinese)
    if problems:
        pytest.fail("translation drifted:\n" + "\n".join(problems), pytrace=False)


@pytest.mark.parametrize("notebook", notebooks("zh"), ids=page_id)
def test_chinese_notebook_has_an_english_twin(notebook):
    assert (ROOT / twin(notebook, "en")).exists(), f"{notebook} has no English twin"


def test_lab_notebooks_run_the_same_in_jupyter(tmp_path):
    """A real Jupyter kernel prints the stored outputs and displays nothing else.

    English only: the parity test proves the Chinese notebooks run the same code.
    """
    import nbformat
    from nbconvert.preprocessors import ExecutePreprocessor

    failures = []
    for notebook in notebooks("en"):
        stored = nbformat.read(ROOT / notebook, as_version=4)
        executed = nbformat.read(ROOT / notebook, as_version=4)
        ExecutePreprocessor(timeout=300, kernel_name="python3").preprocess(
            executed, {"metadata": {"path": str(tmp_path)}}
        )
        for number, (before, after) in enumerate(zip(stored.cells, executed.cells), start=1):
            if before.cell_type == "code" and before.outputs != after.outputs:
                failures.append(f"{notebook}, cell {number}: stored {before.outputs}\n  Jupyter {after.outputs}")
    assert not failures, "\n".join(failures)


# ------------------------------------------------ pages offered as notebooks
def _executed(page: Path):
    return [fence for fence in parse_page(page) if fence.executed]


def _language(page: Path) -> str:
    return page.parts[1]


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_page_notebook_holds_exactly_the_blocks_the_page_runs(page):
    generated = page_notebooks.page_notebook(ROOT / page, _language(page))
    blocks = _executed(page)
    if not blocks:
        assert generated is None, f"{page} runs no code, so it offers no notebook"
        return
    first = "".join(generated["cells"][0]["source"])
    assert first.startswith("# "), f"{page}: the notebook should open with the page title, not {first[:40]!r}"
    code = [cell for cell in generated["cells"] if cell["cell_type"] == "code"]
    assert ["".join(cell["source"]) for cell in code] == [fence.code.rstrip("\n") for fence in blocks]
    printed = ["".join("".join(output["text"]) for output in cell["outputs"]) for cell in code]
    assert printed == [fence.output.body if fence.output else "" for fence in blocks]


# ------------------------------------------------------- the built site
def _site(built_site) -> Path:
    site, result = built_site
    assert result.returncode == 0, "the site did not build; see test_mkdocs_build_strict_has_no_warnings"
    return site


def _built_page(site: Path, source: Path) -> Path:
    """docs/zh/notebooks/x.ipynb -> SITE/zh/notebooks/x/index.html (English at the root)."""
    return site / page_url(source).lstrip("/") / "index.html"


def _download_link(page_html: str) -> str | None:
    found = re.search(r'<p class="notebook-download"[^>]*><a [^>]*href="([^"]+)" download', page_html)
    return html.unescape(found.group(1)) if found else None


@pytest.mark.parametrize("notebook", notebooks(), ids=page_id)
def test_notebook_page_is_rendered_not_raw_json(built_site, notebook):
    page = _built_page(_site(built_site), notebook).read_text(encoding="utf-8")
    assert not page.lstrip().startswith("{") and '"cell_type":' not in page, (
        f"{notebook} was copied as raw JSON (mkdocs-static-i18n #198; see docs/hooks/jupyter_i18n.py)"
    )
    assert 'class="jupyter-wrapper"' in page and "jp-Cell" in page
    cells = parse_notebook(notebook)
    assert page.count("jp-CodeCell") >= len(cells)
    first_output = next(cell.output.body for cell in cells if cell.output)
    assert html.escape(first_output.splitlines()[0], quote=False) in page
    first_heading = json.loads((ROOT / notebook).read_text(encoding="utf-8"))["cells"][0]["source"][0]
    assert html.escape(first_heading.lstrip("# ").strip(), quote=False) in page


@pytest.mark.parametrize("notebook", notebooks(), ids=page_id)
def test_notebook_page_offers_its_notebook_for_download(built_site, notebook):
    built = _built_page(_site(built_site), notebook)
    href = _download_link(built.read_text(encoding="utf-8"))
    assert href == notebook.name, f"{built}: download link {href!r}"
    served = built.parent / href
    assert served.read_bytes() == (ROOT / notebook).read_bytes()


def _page_weight(site: Path, built: Path, page_html: str) -> int:
    """Bytes the page loads from the site: its HTML, scripts and stylesheets (uncompressed).

    Not counted: Material's search index, which every page of the site fetches
    alike; the browser tests measure a page's real transfers.
    """
    total = len(page_html.encode())
    for tag in re.findall(r"<script[^>]*\bsrc=\"[^\"]+\"|<link[^>]*rel=\"stylesheet\"[^>]*>", page_html):
        url = re.search(r'(?:src|href)="([^"]+)"', tag).group(1)
        total += (built.parent / url).resolve().stat().st_size
    return total


@pytest.mark.parametrize("notebook", notebooks(), ids=page_id)
def test_notebook_page_is_light_and_loads_nothing_from_outside(built_site, notebook):
    site = _site(built_site)
    built = _built_page(site, notebook)
    page = built.read_text(encoding="utf-8")
    outside = re.findall(r'<script[^>]*\bsrc="(?:https?:)?//[^"]*"|<script[^>]*\bsrc=""'
                         r'|<link[^>]*href="(?:https?:)?//[^"]*"[^>]*>|import\("https?://|@import', page)
    outside = [tag for tag in outside if 'rel="canonical"' not in tag]
    assert not outside, f"{built} loads from outside the site: {outside}"
    weight = _page_weight(site, built, page)
    assert weight <= NOTEBOOK_PAGE_BUDGET, f"{built} weighs {weight // 1024} KB with its CSS and JS"


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_built_page_links_its_notebook(built_site, page):
    built = _built_page(_site(built_site), page)
    href = _download_link(built.read_text(encoding="utf-8"))
    generated = page_notebooks.page_notebook(ROOT / page, _language(page))
    if generated is None:
        assert href is None, f"{built} offers a notebook, but the page runs no code"
        return
    assert href == page_notebooks.notebook_name(str(page.relative_to("docs"))), f"{built}: link {href!r}"
    served = built.parent / href
    assert served.exists(), f"{built} links {href}, which the site does not serve"
    assert served.read_text(encoding="utf-8") == dumps(generated)
    assert [cell.code.rstrip("\n") for cell in parse_notebook(served)] == [
        fence.code.rstrip("\n") for fence in _executed(page)
    ]
