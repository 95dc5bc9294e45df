"""The core terms' tooltips (docs/hooks/term_tooltips.py, docs/data/tooltips.yml): matched where a reader
reads prose (Chinese inside a run of Chinese characters, `grad_fn` in inline code), not in code blocks,
headings or links, once per page, with the glossary's definition; and on the built pages."""

from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

from sitepages import DOCS
from sitepages.data import DataError
from sitepages.term_tooltips import Matcher, Term, TooltipDataError, add_tooltips, matcher, terms

LEAF = Term("leaf node", "leaf: a tensor no operation produced", ("leaf node", "leaf tensor", "leaf", "leaves"), ())
GRAD_FN = Term("grad_fn", "grad_fn: the backward node", (), ("grad_fn",))
HOOK = Term("hook", "hook: a function", ("hook", "钩子"), ())
ZH_LEAF = Term("leaf node", "叶子节点：…", ("叶子节点", "叶子张量"), ())
ZH_NON_LEAF = Term("non-leaf node", "非叶子节点：…", ("非叶子节点",), ())
EN = Matcher((LEAF, Term("non-leaf node", "non-leaf: computed", ("non-leaf node", "non-leaf"), ()), GRAD_FN, HOOK),
             ("forward hook", "tensor hook"))
ZH = Matcher((ZH_LEAF, ZH_NON_LEAF, Term("hook", "钩子：…", ("钩子",), ())), ("张量钩子", "前向钩子"))


def titled(html: str) -> list[tuple[str, str]]:
    """(the text, the title) of every <abbr> of a piece of HTML."""
    return [(abbr.get_text(), abbr["title"]) for abbr in BeautifulSoup(html, "html.parser").find_all("abbr")]


def test_a_chinese_term_inside_a_run_of_chinese_characters():
    html = add_tooltips("<p>这里的张量是叶子节点，它的梯度会保留。</p>", ZH)
    assert titled(html) == [("叶子节点", "叶子节点：…")]


def test_a_chinese_term_inside_a_longer_one_is_not_that_term():
    html = add_tooltips("<p>y 是非叶子节点；张量钩子不是钩子的全部。w 是叶子张量。</p>", ZH)
    assert titled(html) == [("非叶子节点", "非叶子节点：…"), ("钩子", "钩子：…"), ("叶子张量", "叶子节点：…")]
    assert "张量<abbr" not in html


def test_non_leaf_is_never_leaf():
    html = add_tooltips("<p>A non-leaf tensor is not a leaf.</p>", EN)
    assert titled(html) == [("non-leaf", "non-leaf: computed"), ("leaf", "leaf: a tensor no operation produced")]
    assert [m[2].key for m in EN.words("non-leaf non-leaves nonleaf")] == ["non-leaf node"]


def test_english_words_match_whole_in_any_case_and_the_plural_of_a_glossary_term_blocks_too():
    assert [(s, e) for s, e, _ in EN.words("Leaf leafy hooks tensor hooks forward hook")] == [(0, 4), (11, 16)]


def test_grad_fn_in_inline_code_and_as_an_attribute():
    html = add_tooltips("<p>Every result has a <code>y.grad_fn</code>; <code>grad_fn</code> again.</p>", EN)
    assert titled(html) == [("y.grad_fn", "grad_fn: the backward node")]
    assert add_tooltips("<p><code>grad_fn.name()</code></p>", EN) == "<p><code>grad_fn.name()</code></p>"


@pytest.mark.parametrize("html", [
    '<pre><code>leaf = x  # a hook on grad_fn</code></pre>',
    '<div class="highlight"><pre><span></span><code>leaf <span class="n">grad_fn</span></code></pre></div>',
    '<h2 id="leaf">What is a leaf? <code>grad_fn</code></h2>',
    '<p><a href="leaf-nodes/">leaf nodes</a> and <a href="#x"><code>grad_fn</code></a></p>',
    '<p class="admonition-title">A hook</p>',
    '<div>a leaf outside any paragraph</div>',
    '<p><abbr title="x">leaf</abbr></p>',
    '<div class="admonition short-answer"><p><code>grad_fn</code></p></div>',
])
def test_nothing_in_code_blocks_headings_links_or_titles(html):
    assert add_tooltips(html, EN) == html


def test_once_per_page_in_paragraphs_lists_and_table_cells():
    html = add_tooltips("<ul><li>a <strong>leaf</strong></li></ul><p>leaf hook</p><table><tr><td>hook, "
                        "<code>grad_fn</code></td></tr></table><p>leaf, hook, <code>grad_fn</code></p>", EN)
    assert [text for text, _ in titled(html)] == ["leaf", "hook", "grad_fn"]
    assert re.search(r"<li>a <strong><abbr [^>]*>leaf</abbr></strong></li>", html)
    assert "<td><abbr" not in html and "<td>hook, <abbr" in html


def test_the_page_comes_back_unchanged_around_the_tooltips():
    html = '<p>x &lt; y</p>\n<script>if (a<b) {}</script>\n<p>the leaf</p>'
    assert add_tooltips(html, EN) == html.replace("leaf", f'<abbr title="{LEAF.tooltip}">leaf</abbr>')


def test_the_tooltip_is_the_glossary_definition_in_each_language():
    for language in ("en", "zh"):
        by_key = {term.key: term for term in terms(language)}
        assert set(by_key) >= {"leaf node", "non-leaf node", "grad_fn", "hook", "saved tensor", "computation graph"}
        glossary = (DOCS / language / "glossary.md").read_text(encoding="utf-8")
        row = next(line for line in glossary.splitlines() if "`is_leaf`" in line and "|" in line)
        definition = row.split("|")[3].strip().replace("`", "")
        assert by_key["leaf node"].tooltip.endswith(definition)
    assert terms("zh")[0].tooltip.startswith("叶子节点（leaf node）：")


def test_the_real_matchers_find_the_core_terms():
    en, zh = matcher("en"), matcher("zh")
    assert [t.key for _, _, t in en.words("A leaf, a non-leaf, saved tensors, the computation graph, a hook")] == [
        "leaf node", "non-leaf node", "saved tensor", "computation graph", "hook"]
    assert [t.key for _, _, t in zh.words("叶子节点与非叶子节点；保存的张量留在计算图里，钩子")] == [
        "leaf node", "non-leaf node", "saved tensor", "computation graph", "hook"]
    assert en.code("grad_fn") is not None and zh.code("grad_fn") is not None


def test_a_term_missing_from_a_glossary_is_named_with_its_line(tmp_path):
    (tmp_path / "data").mkdir()
    for name in ("tooltips.schema.json",):
        (tmp_path / "data" / name).write_text((DOCS / "data" / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "data" / "tooltips.yml").write_text("terms:\n  - glossary: leaf node\n    en: [leaf]\n"
                                                     "    zh: [叶子]\n  - glossary: sapling\n    code: [x]\n",
                                                     encoding="utf-8")
    (tmp_path / "en").mkdir()
    glossary = "| a | b | c | d |\n|---|---|---|---|\n| leaf node | 叶子节点 | d | r |\n"
    (tmp_path / "en" / "glossary.md").write_text(glossary, encoding="utf-8")
    with pytest.raises(TooltipDataError, match=r"tooltips\.yml:5: .*'sapling'"):
        terms("en", tmp_path)
    assert issubclass(TooltipDataError, DataError)


@pytest.mark.parametrize("url, language", [("/leaf-nodes/", "en"), ("/zh/leaf-nodes/", "zh")])
def test_the_leaf_nodes_page_carries_the_core_tooltips(built_page, url, language):
    article = built_page(url).select_one("article")
    titles = {abbr["title"] for abbr in article.select("abbr[title]")}
    by_key = {term.key: term.tooltip for term in terms(language)}
    for key in ("leaf node", "non-leaf node", "grad_fn"):
        assert by_key[key] in titles, f"{url}: no tooltip for {key}"
    code = [abbr for abbr in article.select("abbr[title]") if abbr["title"] == by_key["grad_fn"]]
    assert code and code[0].code is not None, f"{url}: the grad_fn tooltip is not on inline code"
    assert not article.select("pre abbr, h1 abbr, h2 abbr, h3 abbr, a abbr"), url


def test_the_glossary_page_has_no_term_tooltips(built_page):
    for url, language in (("/glossary/", "en"), ("/zh/glossary/", "zh")):
        tooltips = {term.tooltip for term in terms(language)}
        assert not [abbr for abbr in built_page(url).select("article abbr[title]") if abbr["title"] in tooltips]
