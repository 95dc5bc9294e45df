"""On a phone (375 px wide) names in tables stay whole, and a page's first screen shows its opening.

A reader on a phone saw `torch.no_g|rad()` split across two lines in a table
cell, and a first screen spent on the "Verified with torch ..." line and the
"Download as notebook" button (docs/assets/stylesheets/extra.css).
"""

from __future__ import annotations

import pytest

from sitepages import page_url

PHONE = {"width": 375, "height": 740}

# Where each inline code element of a table cell wraps: the characters before which a
# line starts, each with the character before it (a break must follow a space).
LINE_STARTS = """() => [...document.querySelectorAll('.md-typeset td code, .md-typeset th code')].map(code => {
  const text = code.textContent, range = document.createRange(), starts = [];
  let top = null, offset = 0;
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++, offset++) {
      range.setStart(node, i); range.setEnd(node, i + 1);
      const rect = [...range.getClientRects()].find(r => r.width > 0);
      if (!rect) continue;
      if (top !== null && rect.top > top + rect.height / 2) starts.push([offset, text[offset - 1]]);
      top = rect.top;
    }
  }
  return {text, starts};
}).filter(code => code.starts.length)"""

# Pages whose tables hold long API names in narrow columns (the reader's examples).
TABLE_PAGES = ["docs/en/turning-gradients-off.md", "docs/zh/turning-gradients-off.md",
               "docs/en/index.md", "docs/zh/index.md", "docs/en/choosing-a-method.md"]


@pytest.fixture(scope="module")
def phone(new_context):
    page = new_context().new_page()
    page.set_viewport_size(PHONE)
    yield page
    page.close()


@pytest.mark.parametrize("source", TABLE_PAGES)
def test_inline_code_in_a_table_breaks_only_between_words(phone, server, source):
    phone.goto(server.url(page_url(source)), wait_until="load")
    assert phone.locator(".md-typeset td code").count(), f"{source} has no code in a table cell to check"
    split = [(code["text"], [start for start, before in code["starts"] if not before.isspace()])
             for code in phone.evaluate(LINE_STARTS)]
    split = [(text, starts) for text, starts in split if starts]
    pieces = ["|".join(text[a:b] for a, b in zip([0, *starts], [*starts, len(text)], strict=True))
              for text, starts in split]
    assert not split, f"{source}: inline code split inside a word at 375 px: {'; '.join(pieces)}"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_first_screen_shows_the_page_opening(phone, server, language):
    """The verified line and the notebook button take a small strip; the short answer (or, on a page
    without one yet, the opening paragraph) starts inside the first screen, well above its bottom."""
    phone.goto(server.url(page_url(f"docs/{language}/leaf-nodes.md")), wait_until="load")
    box = phone.evaluate("""() => {
      const top = e => e.getBoundingClientRect().top, bottom = e => e.getBoundingClientRect().bottom;
      const verified = document.querySelector('.verified-with');
      const download = document.querySelector('.notebook-download');
      const answer = document.querySelector('.md-content .short-answer')
        || document.querySelector('.md-content .notebook-download ~ p');
      return {strip: bottom(download) - top(verified), answer: top(answer), name: answer.className || answer.tagName};
    }""")
    # Two short lines of small text (the line names two release ranges: where the code runs and where its
    # output is identical) and a small button: at most 96 px, 13 % of the screen (it was 142 px).
    assert box["strip"] <= 96, \
        f"/{language}/leaf-nodes/: the verified line and notebook link take {box['strip']:.0f} px"
    assert box["answer"] < PHONE["height"] / 2, \
        f"/{language}/leaf-nodes/: the opening ({box['name']}) starts at {box['answer']:.0f} px of {PHONE['height']}"
