"""The notebooks render as pages in both languages, load nothing from outside the site, and stay light.

Rendered, not the raw JSON of mkdocs-static-i18n issue #198
(docs/hooks/jupyter_i18n.py); no CDN loader and only the CSS the page uses
(docs/hooks/jupyter_light.py); their .ipynb offered for download.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from jupyter_light import lighten

from sitepages import ROOT, notebooks, page_id, page_url, parse_notebook

# The browser tests measure the same budget in a real browser.
NOTEBOOK_PAGE_BUDGET = 600 * 1024


def _built(built_site, built_page, notebook: Path) -> tuple[Path, Path, BeautifulSoup]:
    site, _ = built_site
    return site, site / page_url(notebook).lstrip("/") / "index.html", built_page(page_url(notebook))


@pytest.mark.parametrize("notebook", notebooks(), ids=page_id)
def test_notebook_page_is_rendered_not_raw_json(built_site, built_page, notebook):
    _, built, soup = _built(built_site, built_page, notebook)
    text = built.read_text(encoding="utf-8")
    assert not text.lstrip().startswith("{") and '"cell_type":' not in text, (
        f"{notebook} was copied as raw JSON (mkdocs-static-i18n #198; see docs/hooks/jupyter_i18n.py)"
    )
    wrapper = soup.select_one(".jupyter-wrapper")
    assert wrapper is not None and wrapper.select(".jp-Cell"), f"{built}: no rendered notebook cells"
    cells = parse_notebook(notebook)
    assert len(wrapper.select(".jp-CodeCell")) >= len(cells)
    first_output = next(cell.expected for cell in cells if cell.output)
    assert first_output.splitlines()[0] in wrapper.get_text()
    first_heading = json.loads((ROOT / notebook).read_text(encoding="utf-8"))["cells"][0]["source"][0]
    assert first_heading.lstrip("# ").strip() in soup.get_text()


@pytest.mark.parametrize("notebook", notebooks(), ids=page_id)
def test_notebook_page_offers_its_notebook_for_download(built_site, built_page, notebook):
    _, built, soup = _built(built_site, built_page, notebook)
    link = soup.select_one("p.notebook-download a[download]")
    assert link is not None and link["href"] == notebook.name, f"{built}: download link {link}"
    assert (built.parent / link["href"]).read_bytes() == (ROOT / notebook).read_bytes()


def _page_weight(built: Path, soup: BeautifulSoup) -> int:
    """Bytes the page loads from the site: its HTML, scripts and stylesheets (uncompressed).

    Not counted: Material's search index, which every page of the site fetches
    alike; the browser tests measure a page's real transfers.
    """
    total = built.stat().st_size
    for url in [s["src"] for s in soup.select("script[src]")] + [
        link["href"] for link in soup.select('link[rel="stylesheet"]')
    ]:
        total += (built.parent / url).resolve().stat().st_size
    return total


@pytest.mark.parametrize("notebook", notebooks(), ids=page_id)
def test_notebook_page_is_light_and_loads_nothing_from_outside(built_site, built_page, notebook):
    _, built, soup = _built(built_site, built_page, notebook)
    outside = [
        str(tag)[:120] for tag in soup.select("script[src], link[href]")
        if (tag.get("src") or tag.get("href", "")).startswith(("http:", "https:", "//"))
        and "canonical" not in tag.get("rel", []) and "alternate" not in tag.get("rel", [])
    ]
    outside += [str(tag)[:80] for tag in soup.select('script[src=""]')]
    outside += ["@import or import(): " + tag.text[:80] for tag in soup.select("style, script")
                if "@import" in tag.text or 'import("http' in tag.text]
    assert not outside, f"{built} loads from outside the site: {outside}"
    weight = _page_weight(built, soup)
    assert weight <= NOTEBOOK_PAGE_BUDGET, f"{built} weighs {weight // 1024} KB with its CSS and JS"


def test_notebook_pages_lose_cdn_scripts_and_unused_css():
    page = (
        '<script src=""> </script><script type="text/x-mathjax-config">init_mathjax();</script>'
        '<script src="https://cdn.example/x.js"></script><script>keep();</script>'
        "<style>.jupyter-wrapper{--used:red;--unused:blue}.jupyter-wrapper :root{--x:1}"
        ".jupyter-wrapper .a{color:var(--used)}.b{color:green}@media print{.b{color:red}}</style>"
        "<style>['.a {}']</style>"
        '<div class="jupyter-wrapper"><p class="a">text</p></div>'
    )
    assert lighten(page) == (
        "<script>keep();</script>"
        "<style>.jupyter-wrapper{--used:red}.jupyter-wrapper .a{color:var(--used)}</style>"
        '<div class="jupyter-wrapper"><p class="a">text</p></div>'
    )
