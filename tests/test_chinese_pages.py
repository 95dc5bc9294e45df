"""The Chinese pages read as Chinese: one term per concept, and Chinese typography, on the built site.

Each rule below runs on every built Chinese page (text inside code is not
prose and is left out), and each is proved, at the end of this file, to fail
on a page that breaks it:

* terms: none of the variants the glossary does not use (docs/data/glossary-variants.yml);
* no italics on Chinese text (browsers fake-slant CJK glyphs): bold instead;
* no space between two Chinese characters, also around a link, bold text, a
  quotation mark or a dash (docs/hooks/chinese_line_breaks.py removes those
  the source's line breaks leave);
* a ratio in prose is written with 倍 ("0.22 倍"); × only in tables and
  dimensions (3×3);
* the interface is Chinese: the colour-scheme toggle, the tooltip of every
  heading's ¶ link and the copy buttons of the notebook pages
  (docs/hooks/interface_language.py), and the footer
  (docs/overrides/partials/copyright.html) too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Comment, NavigableString
from chinese_line_breaks import WIDE

from sitepages import DOCS, page_id, page_url, sources
from sitepages.data import DataError, load

CHINESE = sources("zh")
GLOSSARY_VARIANTS = DOCS / "data" / "glossary-variants.yml"


def glossary_rules(path: Path = GLOSSARY_VARIANTS) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Variant -> the glossary's term, and variant -> the longer words it may stand in; the shape checked by
    glossary-variants.schema.json beside the file, and here that each longer word is a variant's."""
    data = load(path, GLOSSARY_VARIANTS.with_name("glossary-variants.schema.json"))
    variants, allowed = data.value["variants"], data.value.get("allowed_in", {})
    for variant, words in allowed.items():
        if variant not in variants:
            raise data.error(("allowed_in", variant), f"allowed_in: {variant!r} is not one of the variants")
        for k, word in enumerate(words):
            if variant not in word:
                raise data.error(("allowed_in", variant, k), f"allowed_in: {word!r} does not hold {variant!r}")
    return variants, allowed


VARIANTS, ALLOWED_AROUND = glossary_rules()
_BLOCKS = ["p", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "figcaption", "summary", "div"]


def prose(soup: BeautifulSoup, tables: bool = True) -> list[str]:
    """The text of each paragraph-like element of the page's content, as a reader sees it run on:
    inline code stands in as one Latin letter, code blocks (and, if asked, tables) are left out.

    One walk down the tree, carrying what each string is inside of (asking every string for its
    ancestors instead took most of this file's time)."""
    content = soup.select_one("article.md-content__inner") or soup
    left_out = {"pre", "script", "style"} | (set() if tables else {"table"})
    groups: dict[int, list[str]] = {}

    def walk(element, block, in_code: bool) -> None:
        for child in element.children:
            if isinstance(child, Comment):
                continue
            if isinstance(child, NavigableString):
                groups.setdefault(id(block), []).append("x" if in_code else str(child))
            elif child.name == "br":
                block = child  # a line break: what follows is a new line, not a run-on
            elif child.name not in left_out:
                walk(child, child if child.name in _BLOCKS else block, in_code or child.name == "code")

    if content.find_parent(left_out) is None:
        walk(content, content if content.name in _BLOCKS else content.find_parent(_BLOCKS),
             content.find_parent("code") is not None)
    return ["".join(parts) for parts in groups.values()]


def off_glossary_terms(soup: BeautifulSoup) -> list[str]:
    found = []
    for text in prose(soup):
        for variant, term in VARIANTS.items():
            masked = text
            for allowed in ALLOWED_AROUND.get(variant, ()):
                masked = masked.replace(allowed, "")
            for match in re.finditer(re.escape(variant), masked):
                found.append(f"{variant!r} (use {term}): …{masked[max(0, match.start() - 12):match.end() + 12]}…")
    return found


def italic_chinese(soup: BeautifulSoup) -> list[str]:
    return [f"<{tag.name}>{tag.get_text()}</{tag.name}>" for tag in soup.select("article em, article i")
            if re.search(f"[{WIDE}]", tag.get_text())]


def spaces_between_chinese(soup: BeautifulSoup) -> list[str]:
    return [repr(text[max(0, m.start() - 8):m.end() + 8])
            for text in prose(soup) for m in re.finditer(f"[{WIDE}]\\s+[{WIDE}]", text)]


def ratios_with_times(soup: BeautifulSoup) -> list[str]:
    found = []
    for text in prose(soup, tables=False):  # tables may write ratios as 1.23×
        found += [repr(text[max(0, m.start() - 10):m.end() + 10])
                  for m in re.finditer(r"\d(?:\.\d+)?\s*×(?!\s*\d)", text)]
    return found


# The English interface strings of the theme, the toc extension and mkdocs-jupyter: the start of
# a tooltip or accessible label (title, aria-label), and whole text nodes.
ENGLISH_LABELS = ("Switch to", "Permanent link", "Copy to Clipboard")
ENGLISH_TEXTS = ("Copied!", "Made with")


def english_interface(soup: BeautifulSoup) -> list[str]:
    found = []
    for tag in soup.select("[title], [aria-label]"):
        found += [tag[attribute] for attribute in ("title", "aria-label")
                  if tag.get(attribute, "").startswith(ENGLISH_LABELS)]
    texts = soup.find_all(string=lambda text: text.strip() in ENGLISH_TEXTS)
    return found + [text.strip() for text in texts if not text.find_parent(["pre", "code"])]


RULES = {
    "off-glossary terms": off_glossary_terms,
    "italics on Chinese text (use bold)": italic_chinese,
    "spaces between Chinese characters": spaces_between_chinese,
    "ratios in prose written with × (use 倍)": ratios_with_times,
    "English interface labels": english_interface,
}


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("source", CHINESE, ids=page_id)
def test_chinese_page_follows_the_rule(built_page, source, rule):
    broken = RULES[rule](built_page(page_url(source)))
    assert not broken, f"{source}: {rule}:\n" + "\n".join(broken[:15])


# --- each rule fails on a page that breaks it ----------------------------------------

BROKEN = """<html><body><article class="md-content__inner">
<p>用完之后要注销钩子，再看<a href="x">叶子节点</a>。</p>
<p>原因见
<a href="leaf/">叶子节点</a>。模型。 一个<code>x</code>。</p>
<p>这是 <em>中间变量</em>，<em>not Chinese</em>。</p>
<p>时间是 0.22× 的基线，形状为 3×3。原地操作和操作系统都可以。</p>
<table><tr><td>1.23×</td></tr></table>
</article><label title="Switch to dark mode"></label>
<h2 id="x">标题<a class="headerlink" href="#x" title="Permanent link">¶</a></h2>
<clipboard-copy for="cell-1" aria-label="Copy to Clipboard"><span class="notice" hidden>Copied!</span></clipboard-copy>
<pre><code>print("Copied!")</code></pre>
<footer><div class="md-copyright">
    Made with
    <a href="https://squidfunk.github.io/mkdocs-material/">Material for MkDocs</a>
</div></footer></body></html>"""


def test_each_rule_fails_on_a_page_that_breaks_it():
    soup = lambda: BeautifulSoup(BROKEN, "html.parser")  # noqa: E731
    assert [found.split(":")[0] for found in off_glossary_terms(soup())] == ["'注销' (use 移除)"]
    assert italic_chinese(soup()) == ["<em>中间变量</em>"]
    assert spaces_between_chinese(soup()) == [
        "'原因见\\n叶子节点。模型。 '", "'\\n叶子节点。模型。 一个x。'", "'这是 中间变量，not '",
    ]
    assert ratios_with_times(soup()) == ["'时间是 0.22× 的基线，形状为 3'"]
    assert english_interface(soup()) == [
        "Switch to dark mode", "Permanent link", "Copy to Clipboard", "Copied!", "Made with",
    ]


@pytest.mark.parametrize("text, message", [
    ("variants:\n  注销: 移除\nallowed_in:\n  卸下: [卸下来]\n", r"variants.yml:4: allowed_in: '卸下' is not one"),
    ("variants:\n  注销: 移除\nallowed_in:\n  注销: [注册]\n", r"variants.yml:4: allowed_in: '注册' does not hold"),
    ("variants:\n  注销: [移除]\n", r"variants.yml:2: variants.注销: expected the glossary's term, a non-empty"),
], ids=["allowed-in-no-variant", "allowed-word-without-its-variant", "a-term-that-is-a-list"])
def test_a_broken_variant_list_is_refused_with_its_line(tmp_path, text, message):
    broken = tmp_path / "glossary-variants.yml"
    broken.write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match=message):
        glossary_rules(broken)


def test_a_line_break_ends_a_line_and_a_space_before_it_still_counts():
    lines = BeautifulSoup("<article><p>问题是什么？<br />\n解答：见这里 一节</p></article>", "html.parser")
    assert spaces_between_chinese(lines) == ["'\\n解答：见这里 一节'"]


def test_the_interface_check_passes_once_the_strings_are_chinese():
    from sitepages.strings import strings

    words = strings("page_chrome", "zh")
    translated = (BROKEN.replace("Switch to dark mode", "切换到深色模式")
                  .replace("Permanent link", words["permalink_title"])
                  .replace('"Copy to Clipboard"', f'"{words["copy_button"]}"')
                  .replace("hidden>Copied!", f"hidden>{words['copied']}")
                  .replace("Made with", "本站使用"))
    assert english_interface(BeautifulSoup(translated, "html.parser")) == []


def test_the_build_removes_spaces_between_chinese_characters():
    from chinese_line_breaks import join_wide_text

    html = join_wide_text(BROKEN)
    assert spaces_between_chinese(BeautifulSoup(html, "html.parser")) == []
    assert "见 <code>x</code>" in join_wide_text("见 <code>x</code>"), "Chinese next to code keeps its space"
