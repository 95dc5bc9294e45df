"""The site builds without a single warning, and its search finds pages in both languages."""

import bisect
import json
import re
from collections import Counter
from urllib.parse import urljoin

import pytest
from bs4 import BeautifulSoup
from sitepages import ROOT

from browser.harness import built_pages

# built_site, the one strict build of the session, lives in conftest.py.


def test_mkdocs_build_strict_has_no_warnings(built_site):
    _, result = built_site
    log = result.stdout + result.stderr
    warnings = [line for line in log.splitlines() if re.search(r"\b(WARNING|ERROR)\b", line)]
    assert result.returncode == 0 and not warnings, f"mkdocs build --strict failed:\n{log}"


class SearchIndex:
    """Both languages' built search indexes, tokenised once, ranked as Material's search matches.

    Query and text are split with the index's own separator; a query term
    matches a word it is a prefix of (Material searches `term*`), every term
    must match, and a match in a title weighs as the index's title boost.
    """

    def __init__(self, index: dict):
        self.separator = re.compile(index["config"]["separator"])
        self.title_boost = int(index["config"]["fields"]["title"]["boost"])
        self.docs = []  # (page, title tokens, text tokens, text as indexed)
        self.postings: dict[str, Counter] = {}  # word -> {doc number: weighted count}
        for number, doc in enumerate(index["docs"]):
            title, text = self.tokens(doc["title"]), self.tokens(doc["text"])
            self.docs.append((doc["location"].split("#")[0], title, text, doc["text"]))
            for word in text:
                self.postings.setdefault(word, Counter())[number] += 1
            for word in title:
                self.postings.setdefault(word, Counter())[number] += self.title_boost
        self.words = sorted(self.postings)

    def tokens(self, text: str) -> list[str]:
        text = BeautifulSoup(text, "html.parser").get_text(" ")  # the index stores HTML
        return [token.lower() for token in self.separator.split(text) if token]

    def _hits(self, term: str) -> Counter:
        """Doc number -> weighted count of the words that the term is a prefix of."""
        hits: Counter = Counter()
        for word in self.words[bisect.bisect_left(self.words, term):]:
            if not word.startswith(term):
                break
            hits.update(self.postings[word])
        return hits

    def ranking(self, query: str, language: str) -> list[tuple[str, int]]:
        terms = self.tokens(query)
        scores: Counter = Counter()
        matched: dict[str, set] = {}
        for term in terms:
            for number, count in self._hits(term).items():
                page = self.docs[number][0]
                if page.startswith("zh/") != (language == "zh"):
                    continue
                scores[page] += count
                matched.setdefault(page, set()).add(term)
        return [(page, score) for page, score in scores.most_common() if matched[page] == set(terms)]


@pytest.fixture(scope="session")
def search_index(built_site) -> SearchIndex:
    site, result = built_site
    assert result.returncode == 0, "the site did not build; see test_mkdocs_build_strict_has_no_warnings"
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    # Each language has its own index (docs/hooks/search_per_language.py), the Chinese
    # one at /zh/ with locations relative to it: merged here as one site's index.
    assert not any(doc["location"].startswith("zh/") for doc in index["docs"]), "Chinese pages in the English index"
    chinese = json.loads((site / "zh" / "search" / "search_index.json").read_text(encoding="utf-8"))
    index["docs"] += [{**doc, "location": "zh/" + doc["location"]} for doc in chinese["docs"]]
    return SearchIndex(index)


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
    ("can't optimize a non-leaf Tensor", "troubleshooting/"),
    ('Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated', "troubleshooting/"),
    ('Full backward hook is firing when gradients are computed with respect to module outputs', "troubleshooting/"),
    ('Cannot use both regular backward hooks and full backward hooks', "troubleshooting/"),
    ('Output 0 of BackwardHookFunctionBackward is a view and is being modified inplace', "troubleshooting/"),
    ('leaf variable was used in an inplace operation', "troubleshooting/"),
    ('leaf variable has been moved into the graph interior', "troubleshooting/"),
    ('leaf variable has been moved into the graph interior', "leaf-in-place/"),
    ("functions with out=... arguments don't support automatic differentiation", "leaf-in-place/"),
    ('is_leaf', "leaf-in-place/"),
    ('Setting requires_grad=True on inference tensor outside InferenceMode', "modules/explaining-models/"),
    ('only Tensors of floating point dtype can require gradients', "modules/explaining-models/"),
    ("Expected tensor for argument #1 'indices'", "modules/explaining-models/"),
    ('inputs_embeds', "modules/explaining-models/"),
    ('need_weights', "modules/explaining-models/"),
    ('average_attn_weights', "modules/explaining-models/"),
    ('scaled_dot_product_attention', "modules/explaining-models/"),
    ('inference_mode', "modules/explaining-models/"),
    ('Trying to backward through the graph a second time', "training/carried-state/"),
    ('truncated BPTT', "training/carried-state/"),
    ('retain_graph', "training/carried-state/"),
    ('create_graph', "training/gradients-in-the-loss/"),
    ('WGAN-GP', "training/gradients-in-the-loss/"),
    ('setup_context', "training/gradients-in-the-loss/"),
    ('returned an incorrect number of gradients', "training/gradients-in-the-loss/"),
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
    ("leaf tensor written in place", "en", "leaf-in-place/"),
    ("token embeddings", "en", "modules/explaining-models/"),
    ("attention weights", "en", "modules/explaining-models/"),
    ("saliency map", "en", "modules/explaining-models/"),
    ("hidden state", "en", "training/carried-state/"),
    ("GAN", "en", "training/carried-state/"),
    ("gradient penalty", "en", "training/gradients-in-the-loss/"),
    ("gradient reversal layer", "en", "training/gradients-in-the-loss/"),
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
    ("叶子张量", "zh", "zh/leaf-in-place/"),
    ("原地操作", "zh", "zh/leaf-in-place/"),
    ("推理张量", "zh", "zh/modules/explaining-models/"),
    ("词元", "zh", "zh/modules/explaining-models/"),
    ("嵌入", "zh", "zh/modules/explaining-models/"),
    ("注意力权重", "zh", "zh/modules/explaining-models/"),
    ("显著图", "zh", "zh/modules/explaining-models/"),
    ("隐状态", "zh", "zh/training/carried-state/"),
    ("通过时间反向传播", "zh", "zh/training/carried-state/"),
    ("判别器", "zh", "zh/training/carried-state/"),
    ("梯度惩罚", "zh", "zh/training/gradients-in-the-loss/"),
    ("梯度反转层", "zh", "zh/training/gradients-in-the-loss/"),
    ("域对抗训练", "zh", "zh/training/gradients-in-the-loss/"),
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
    ("编译式自动微分", "zh", "zh/training/compile-and-checkpoint/"),
    ("激活检查点", "zh", "zh/training/compile-and-checkpoint/"),
    ("梯度检查点", "zh", "zh/training/compile-and-checkpoint/"),
    ("重计算", "zh", "zh/training/compile-and-checkpoint/"),
    ("逐样本", "zh", "zh/functional-modules/"),
]


@pytest.mark.parametrize("query, language, page", SEARCHES)
def test_search_index_finds_the_page(search_index, query, language, page):
    found = [found_page for found_page, _ in search_index.ranking(query, language)]
    assert page in found, f"searching {query!r} ({language}) does not find {page}; it finds {found[:6]}"


def test_search_finds_every_glossary_term_on_every_page_that_uses_it(search_index):
    """Segmentation never hides a term: each Chinese glossary term (docs/search/jieba-user-dict.txt)
    finds every Chinese page whose text uses it. (Inside a longer glossary term, such as 钩子 in
    通信钩子, jieba keeps the longer term whole, and that is what search finds there.)"""
    terms = [line.split()[0] for line in (ROOT / "docs/search/jieba-user-dict.txt").read_text("utf-8").splitlines()
             if line.strip()]
    missed = []
    for term in terms:
        longer = [other for other in terms if term in other and other != term]
        using = set()
        for page, _, _, html in search_index.docs:
            text = html.replace("\u200b", "")
            for other in longer:
                text = text.replace(other, "")
            if page.startswith("zh/") and term in text:
                using.add(page)
        found = {page for page, _ in search_index.ranking(term, "zh")}
        missed += [f"{term}: {page}" for page in sorted(using - found)]
    assert terms and not missed, "pages search does not find for a term they contain:\n" + "\n".join(missed)


def test_language_switcher_links_every_page_to_its_twin(built_site, built_page):
    site, _ = built_site
    pages = built_pages(site)
    assert len(pages) >= 4
    wrong = []
    for page in pages:
        links = {a["hreflang"]: urljoin(f"http://127.0.0.1:8000{page}", a["href"])
                 for a in built_page(page).select("a.md-select__link[hreflang]")}
        english = page.removeprefix("/zh")
        expected = {"en": f"http://127.0.0.1:8000{english}", "zh": f"http://127.0.0.1:8000/zh{english}"}
        if links != expected:
            wrong.append(f"{page}: switcher links {links}, expected {expected}")
    assert not wrong, "\n".join(wrong)


def test_chinese_text_has_no_line_break_between_characters(built_site, built_page):
    """A source line break between two Chinese characters would show as a space."""
    site, _ = built_site
    wide = r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]"
    broken = []
    for page in built_pages(site):
        if not page.startswith("/zh/"):
            continue
        for text in built_page(page).find_all(string=True):
            if text.find_parent("pre") is None:
                for match in re.finditer(rf"{wide}[ \t]*\n[ \t]*{wide}", text):
                    broken.append(f"{page}: {match.group(0)!r}")
    assert not broken, "line breaks between Chinese characters (docs/hooks/chinese_line_breaks.py):\n" + "\n".join(broken[:20])


# --- the search check fails without the segmenting separator --------------------------


def test_search_check_fails_without_the_segmenting_separator():
    docs = [
        {"location": "zh/hooks/", "title": "钩子", "text": "<p>\u200b钩子\u200b会\u200b收到\u200b梯度\u200b。</p>"},
        {"location": "zh/leaf/", "title": "叶子节点", "text": "<p>\u200b叶子节点\u200b的\u200b梯度\u200b。</p>"},
    ]
    fields = {"title": {"boost": 1000.0}}
    segmented = {"config": {"separator": "[\\s\\u200b。]+", "fields": fields}, "docs": docs}
    unsegmented = {"config": {"separator": "[\\s]+", "fields": fields}, "docs": docs}

    assert [page for page, _ in SearchIndex(segmented).ranking("梯度", "zh")] == ["zh/hooks/", "zh/leaf/"]
    assert SearchIndex(segmented).ranking("钩子", "zh")[0][0] == "zh/hooks/"
    assert SearchIndex(unsegmented).ranking("梯度", "zh") == []
