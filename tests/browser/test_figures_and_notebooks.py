"""Figures load and follow the colour scheme; notebook pages show their rendered cells.

Pages with figures and notebook pages are found in the DOM of the visits
(conftest.py), not listed here: every language must have at least one of each.
"""

from __future__ import annotations

import pytest

from sitepages import LANGUAGES, language_of, page_url, sources

PAGES = [page_url(source) for source in sources()]
# Material's palette values: what <body data-md-color-scheme> says in each mode.
SCHEMES = {"light": "default", "dark": "slate"}

# Every image of the content: scrolled to and decoded, then measured.
FIGURES = """async () => {
  const images = [...document.querySelectorAll('.md-content img')];
  for (const img of images) {
    if (img.getClientRects().length) {
      img.scrollIntoView();
      await img.decode().catch(() => {});
    }
  }
  return {
    scheme: document.body.getAttribute('data-md-color-scheme'),
    images: images.map(img => ({
      src: img.getAttribute('src'),
      loaded: img.complete && img.naturalWidth > 0,
      shown: img.getClientRects().length > 0 && img.getBoundingClientRect().width > 0
             && getComputedStyle(img).visibility !== 'hidden',
    })),
  };
}"""


def _visits(visitor, site_dir, language: str, marker: str):
    """The visits of the pages of ``language`` whose built HTML contains ``marker``.

    The built file picks the candidates (a visit of every page would cost
    minutes when these tests run alone); the DOM of the visit decides.
    """
    def built(path: str) -> str:
        return (site_dir / path.strip("/") / "index.html").read_text(encoding="utf-8")

    return [visitor.visit(path) for path in PAGES if language_of(path) == language and marker in built(path)]


@pytest.mark.parametrize("language", LANGUAGES)
def test_figures_load_and_show_the_variant_of_each_colour_scheme(visitor, site_dir, new_context, server, language):
    pages = [visit.path for visit in _visits(visitor, site_dir, language, "<img") if visit.images]
    assert pages, f"no {language} page has a figure (an <img> in its content)"
    problems = []
    for mode, scheme in SCHEMES.items():
        context = new_context(color_scheme=mode)
        page = context.new_page()
        for path in pages:
            page.goto(server.url(path), wait_until="load")
            state = page.evaluate(FIGURES)
            if state["scheme"] != scheme:
                problems.append(f"{path} ({mode}): the page uses scheme {state['scheme']!r}, not {scheme!r}")
            for image in state["images"]:
                hidden_here = image["src"].endswith("#only-dark" if mode == "light" else "#only-light")
                if hidden_here and image["shown"]:
                    problems.append(f"{path} ({mode}): {image['src']} is shown, it is for the other scheme")
                if not hidden_here and not (image["shown"] and image["loaded"]):
                    what = "does not load" if not image["loaded"] else "is not shown"
                    problems.append(f"{path} ({mode}): {image['src']} {what}")
        assert not new_context.blocked(context), new_context.blocked(context)
        context.close()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("language", LANGUAGES)
def test_notebook_pages_show_rendered_cells(visitor, site_dir, language):
    notebooks = {visit.path: visit.notebook_cells
                 for visit in _visits(visitor, site_dir, language, "jupyter-wrapper") if visit.notebook_cells}
    assert notebooks, (
        f"no {language} notebook page (a page with .jupyter-wrapper): "
        f"expected at least one, e.g. docs/{language}/notebooks/*.ipynb"
    )
    from_ipynb = [path for path in PAGES if language_of(path) == language and "/notebooks/" in path]
    problems = [f"{path}: built from a notebook, shows no notebook cells" for path in from_ipynb
                if path not in notebooks]
    for path, cells in notebooks.items():
        if not cells["cells"] or cells["visible"] < cells["cells"]:
            problems.append(f"{path}: {cells['visible']} of {cells['cells']} cells visible")
        if not cells["code"]:
            problems.append(f"{path}: no code cell with its source shown")
        if not cells["outputs"]:
            problems.append(f"{path}: no cell output shown")
        if not cells["markdown"]:
            problems.append(f"{path}: no Markdown cell rendered with text")
    assert not problems, "\n".join(problems)
