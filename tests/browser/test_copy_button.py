"""The copy button of a page's first Python block copies exactly the code that the suite runs.

Material's copy button puts on the clipboard the text of the element its
``data-clipboard-target`` names. On one page per language the button is
clicked for real and the clipboard read back: it holds exactly that element's
text. On every page, that element's text is the page's first block, character
for character (as the site shows it, snippet includes expanded), and the
output shown after it is that block's expected output. Run alone in a fresh
interpreter, as a reader pasting it does, that block prints exactly that:
the first block of a page is where its fresh session starts, and
tests/test_portability.py replays every page from there in fresh interpreters.
"""

from __future__ import annotations

import pytest

from sitepages import page_id, page_url, pages, parse

# Markdown pages with a ```python block (whose first block has a copy button);
# notebook cells are run by the docs plugin and in Jupyter (test_notebooks.py).
PAGES = [page for page in pages() if "```python\n" in page.read_text(encoding="utf-8")]
CLICKED = [page_url(page) for page in PAGES if page.name == "leaf-nodes.md"]  # one per language


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_the_copy_button_copies_the_first_block_and_the_page_shows_its_output(visitor, page):
    path = page_url(page)
    visit = visitor.visit(path)
    first = next(block for block in parse(page) if block.info == "python")
    assert first.executed, f"{page}: the first ```python block is not run by the suite: {first.where}"
    assert visit.has_python, f"{path}: its Markdown has a ```python block, the page shows none"
    assert visit.copy_target is not None, f"{path}: the first block has no copy button with a target"
    assert visit.copy_target.rstrip("\n") == first.code.rstrip("\n"), (
        f"{path}: the copy button copies\n{visit.copy_target}\n--- but the block the suite runs is\n{first.code}"
    )
    assert visit.shown_output.rstrip("\n") == first.expected.rstrip("\n"), (
        f"{path}: the page shows\n{visit.shown_output}\n--- after its first block, which prints\n{first.expected}"
    )


@pytest.mark.parametrize("path", CLICKED)
def test_clicking_the_copy_button_puts_its_target_on_the_clipboard(new_context, server, path):
    context = new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(server.url(path), wait_until="load")
    button = page.locator(".md-content div.language-python.highlight button[data-md-type=copy]").first
    target = button.evaluate("button => document.querySelector(button.dataset.clipboardTarget).textContent")
    page.evaluate("() => navigator.clipboard.writeText('')")
    # A script click: Playwright's own click waits for the button, which
    # Material shows on hover, to be visible and still, about a second.
    button.evaluate("button => button.click()")
    page.wait_for_function("() => navigator.clipboard.readText().then(text => text.length > 0)")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    # Material leaves out the final newline.
    assert copied == target.rstrip("\n") and copied.strip(), \
        f"{path}: clicked, the clipboard holds\n{copied}\n--- not\n{target}"
    assert not new_context.blocked(context), new_context.blocked(context)
    context.close()
