"""The site builds without a single warning, and its search finds pages in both languages."""

import json
import re
from collections import Counter
from urllib.parse import urljoin

import pytest

from docs_pages import built_pages

# built_site, the one strict build of the session, lives in conftest.py.


def test_mkdocs_build_strict_has_no_warnings(built_site):
    _, result = built_site
    log = result.stdout + result.stderr
    warnings = [line for line in log.splitlines() if re.search(r"\b(WARNING|ERROR)\b", line)]
    assert result.returncode == 0 and not warnings, f"mkdocs build --strict failed:\n{log}"


def _search_index(built_site) -> dict:
    site, result = built_site
    assert result.returncode == 0, "the site did not build; see test_mkdocs_build_strict_has_no_warnings"
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    # Each language has its own index (docs/hooks/search_per_language.py), the Chinese
    # one at /zh/ with locations relative to it: merged here as one site's index.
    assert not any(doc["location"].startswith("zh/") for doc in index["docs"]), "Chinese pages in the English index"
    chinese = json.loads((site / "zh" / "search" / "search_index.json").read_text(encoding="utf-8"))
    index["docs"] += [{**doc, "location": "zh/" + doc["location"]} for doc in chinese["docs"]]
    return index


def _tokens(text: str, separator: re.Pattern) -> list[str]:
    text = re.sub(r"<[^>]+>", " ", text)  # the index stores HTML
    return [token.lower() for token in separator.split(text) if token]


def _ranking(index: dict, query: str, language: str) -> list[tuple[str, int]]:
    """Pages of one language ranked for the query, as Material's search matches it.

    Query and text are split with the index's own separator; a query term
    matches a word it is a prefix of (Material searches `term*`), every term
    must match, and a match in a title weighs as the index's title boost.
    """
    separator = re.compile(index["config"]["separator"])
    title_boost = int(index["config"]["fields"]["title"]["boost"])
    terms = _tokens(query, separator)
    scores: Counter = Counter()
    matched: dict[str, set] = {}
    for doc in index["docs"]:
        page = doc["location"].split("#")[0]
        if page.startswith("zh/") != (language == "zh"):
            continue
        title, text = _tokens(doc["title"], separator), _tokens(doc["text"], separator)
        for term in terms:
            hits = sum(w.startswith(term) for w in text) + title_boost * sum(w.startswith(term) for w in title)
            if hits:
                scores[page] += hits
                matched.setdefault(page, set()).add(term)
    return [(page, score) for page, score in scores.most_common() if matched[page] == set(terms)]


# (query, language, a page the index must find for it). Which page comes first
# is the search engine's business, checked in a real browser by
# tests/browser/test_search.py; here the index itself is checked: that the
# separator and jieba's dictionary let each query reach its page.
BOTH = [
    ("retain_grad", "intermediate/retain-grad/"),
    ("hook", "intermediate/hooks/"),
    ("register_post_accumulate_grad_hook", "intermediate/hook-mechanics/"),
    ("register_prehook", "intermediate/hook-mechanics/"),
    ("register_multi_grad_hook", "intermediate/hook-mechanics/"),
    ("saved_tensors_hooks", "intermediate/saved-tensors-hooks/"),
    ("save_on_cpu", "intermediate/saved-tensors-hooks/"),
    ("Grad-CAM", "modules/grad-cam/"),
    ("register_full_backward_hook", "modules/layer-hooks/"),
    ("GradientTape", "from-tensorflow/"),
    ("stop_gradient", "from-tensorflow/"),
    ("torch.func", "functional/"),
    ("vmap", "functional/"),
    ('does not require grad and does not have a grad_fn', "troubleshooting/"),
    ('Trying to backward through the graph a second time', "troubleshooting/"),
    ('is being used in an in-place operation', "troubleshooting/"),
    ('modified by an inplace operation', "troubleshooting/"),
    ('grad can be implicitly created only for scalar outputs', "troubleshooting/"),
    ("Can't call numpy() on Tensor that requires grad", "troubleshooting/"),
    ('appears to not have been used in the graph', "troubleshooting/"),
    ("'tuple' object is not callable", "troubleshooting/"),
    ('Inference tensors cannot be saved for backward', "troubleshooting/"),
    ("cannot register a hook on a tensor that doesn't require gradient", "troubleshooting/"),
    ('not a leaf Tensor is being accessed', "troubleshooting/"),
    ("DistributedDataParallel", "training/distributed/"),
    ("DataParallel", "training/distributed/"),
    ("register_comm_hook", "training/distributed/"),
    ("gloo", "training/distributed/"),
    ('grad can be implicitly created only for scalar outputs', "training/distributed/"),
    ('Was asked to gather along dimension 0', "training/distributed/"),
    ("'DistributedDataParallel' object has no attribute", "training/distributed/"),
    ("'DistributedDataParallel' object has no attribute", "troubleshooting/"),
    ("GradScaler", "training/mixed-precision/"),
    ("autocast", "training/mixed-precision/"),
    ("bfloat16", "training/mixed-precision/"),
    ("unscale_", "training/mixed-precision/"),
    ("torch.compile", "training/compile-and-checkpoint/"),
    ("compiled_autograd", "training/compile-and-checkpoint/"),
    ("aot_eager", "training/compile-and-checkpoint/"),
    ("torch.utils.checkpoint", "training/compile-and-checkpoint/"),
    ("use_reentrant", "training/compile-and-checkpoint/"),
    ('Tensor.retain_grad() with AOTDispatcher', "training/compile-and-checkpoint/"),
    ('Tensor.retain_grad() with AOTDispatcher', "troubleshooting/"),
    ('Module-level backwards hooks require compiled autograd', "training/compile-and-checkpoint/"),
    ('RuntimeError when making fake tensor call', "training/compile-and-checkpoint/"),
    ('the use_reentrant parameter should be passed explicitly', "training/compile-and-checkpoint/"),
    ('the use_reentrant parameter should be passed explicitly', "troubleshooting/"),
    ('torch.utils.checkpoint is incompatible with .grad()', "training/compile-and-checkpoint/"),
    ("functional_call", "functional-modules/"),
]
SEARCHES = [(query, "en", page) for query, page in BOTH] + [(query, "zh", "zh/" + page) for query, page in BOTH] + [
    ("leaf", "en", "leaf-nodes/"),
    ("activations", "en", "modules/layer-hooks/"),
    ("glossary", "en", "glossary/"),
    ("error", "en", "troubleshooting/"),
    ("叶子节点", "zh", "zh/leaf-nodes/"),
    ("钩子", "zh", "zh/intermediate/hooks/"),
    ("中间变量", "zh", "zh/intermediate/"),
    ("术语表", "zh", "zh/glossary/"),
    ("选择", "zh", "zh/choosing-a-method/"),
    ("热力图", "zh", "zh/modules/grad-cam/"),
    ("激活值", "zh", "zh/modules/layer-hooks/"),
    ("迁移", "zh", "zh/from-tensorflow/"),
    ("即时执行", "zh", "zh/from-tensorflow/"),
    ("图模式", "zh", "zh/from-tensorflow/"),
    ("逐样本梯度", "zh", "zh/functional/"),
    ("钩子泄漏", "zh", "zh/intermediate/hook-mechanics/"),
    ("报错", "zh", "zh/troubleshooting/"),
    ("mixed precision", "en", "training/mixed-precision/"),
    ("gradient scaling", "en", "training/mixed-precision/"),
    ("graph break", "en", "training/compile-and-checkpoint/"),
    ("compiled autograd", "en", "training/compile-and-checkpoint/"),
    ("activation checkpointing", "en", "training/compile-and-checkpoint/"),
    ("gradient checkpointing", "en", "training/compile-and-checkpoint/"),
    ("all-reduce", "en", "training/distributed/"),
    ("communication hook", "en", "training/distributed/"),
    ("per-sample dy/dA", "en", "functional-modules/"),
    ("数据并行", "zh", "zh/training/distributed/"),
    ("分布式数据并行", "zh", "zh/training/distributed/"),
    ("全归约", "zh", "zh/training/distributed/"),
    ("通信钩子", "zh", "zh/training/distributed/"),
    ("进程组", "zh", "zh/training/distributed/"),
    ("混合精度", "zh", "zh/training/mixed-precision/"),
    ("梯度缩放", "zh", "zh/training/mixed-precision/"),
    ("图中断", "zh", "zh/training/compile-and-checkpoint/"),
    ("编译式自动求导", "zh", "zh/training/compile-and-checkpoint/"),
    ("激活检查点", "zh", "zh/training/compile-and-checkpoint/"),
    ("梯度检查点", "zh", "zh/training/compile-and-checkpoint/"),
    ("重计算", "zh", "zh/training/compile-and-checkpoint/"),
    ("逐样本", "zh", "zh/functional-modules/"),
]


@pytest.mark.parametrize("query, language, page", SEARCHES)
def test_search_index_finds_the_page(built_site, query, language, page):
    found = [found_page for found_page, _ in _ranking(_search_index(built_site), query, language)]
    assert page in found, f"searching {query!r} ({language}) does not find {page}; it finds {found[:6]}"


def test_search_finds_gradient_in_the_body_of_every_chinese_page(built_site):
    index = _search_index(built_site)
    pages = {doc["location"].split("#")[0] for doc in index["docs"] if doc["location"].startswith("zh/")}
    found = {page for page, _ in _ranking(index, "梯度", "zh")}
    assert pages and found == pages, f"梯度 is not found on: {sorted(pages - found)}"


def test_language_switcher_links_every_page_to_its_twin(built_site):
    site, result = built_site
    assert result.returncode == 0, "the site did not build"
    pages = built_pages(site)
    assert len(pages) >= 4
    wrong = []
    for page in pages:
        html = (site / page.strip("/") / "index.html").read_text(encoding="utf-8")
        links = dict(
            (lang, urljoin(f"http://127.0.0.1:8000{page}", href))
            for href, lang in re.findall(r'<a href="([^"]*)" hreflang="([^"]*)" class="md-select__link"', html)
        )
        english = page.removeprefix("/zh")
        expected = {"en": f"http://127.0.0.1:8000{english}", "zh": f"http://127.0.0.1:8000/zh{english}"}
        if links != expected:
            wrong.append(f"{page}: switcher links {links}, expected {expected}")
    assert not wrong, "\n".join(wrong)


def test_chinese_text_has_no_line_break_between_characters(built_site):
    """A source line break between two Chinese characters would show as a space."""
    site, result = built_site
    assert result.returncode == 0, "the site did not build"
    wide = r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]"
    broken = []
    for html_file in sorted((site / "zh").rglob("index.html")):
        html = re.sub(r"<pre\b.*?</pre>", "", html_file.read_text(encoding="utf-8"), flags=re.S)
        for match in re.finditer(rf"{wide}[ \t]*\n[ \t]*{wide}", html):
            broken.append(f"{html_file.relative_to(site)}: {match.group(0)!r}")
    assert not broken, "line breaks between Chinese characters (docs/hooks/chinese_line_breaks.py):\n" + "\n".join(broken[:20])
