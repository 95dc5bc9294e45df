"""The checks that guard the pages do fail when a page breaks their rules.

Each test writes a small page that breaks one rule and asserts the machinery
reports it, with the page and line, so no guard in this suite is one that
cannot fail.
"""

from pathlib import Path

import pytest

from markdown_fences import PageFormatError, parse_page, silently_skipped
from page_runner import run_page
from test_site_build import _ranking
from test_translation_parity import translation_drift

FENCE = "```"


def _page(tmp_path: Path, *blocks: str, name: str = "page.md") -> Path:
    page = tmp_path / name
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("# A page\n\n" + "\n\n".join(blocks) + "\n", encoding="utf-8")
    return page


def _python(code: str, output: str | None = None) -> str:
    block = f"{FENCE}python\n{code}\n{FENCE}"
    if output is not None:
        block += f"\n\n<!--pytest-codeblocks:expected-output-->\n{FENCE}text\n{output}\n{FENCE}"
    return block


def _problems(page: Path) -> list[str]:
    return [problem for run in run_page(page) for problem in run.problems]


@pytest.mark.parametrize(
    "code, complaint",
    [
        ("import torch\nprint(torch.rand(1).shape)", "draws random numbers without calling torch.manual_seed"),
        ("import torch\ntorch.set_grad_enabled(False)", "left grad mode"),
        ("import torch\ntorch.set_default_dtype(torch.float64)", "left default dtype"),
        ("import torch\ntorch.set_printoptions(precision=2)", "left print options"),
        ("import warnings\nwarnings.warn('careful')", "emitted UserWarning: careful"),
        ("import sys\nprint('oops', file=sys.stderr)", "wrote to stderr"),
        (
            "import torch\nx = torch.ones(1, requires_grad=True)\nprint((x * 2).grad_fn)",
            "prints a memory address",
        ),
    ],
)
def test_runner_rejects_a_block_that_breaks_a_rule(tmp_path, code, complaint):
    problems = _problems(_page(tmp_path, _python(code)))
    assert any(complaint in problem for problem in problems), problems


def test_runner_accepts_a_seeded_block(tmp_path):
    page = _page(tmp_path, _python("import torch\ntorch.manual_seed(0)\nprint(torch.rand(1).shape)"))
    assert _problems(page) == []


def test_state_is_reset_before_each_block(tmp_path):
    page = _page(
        tmp_path,
        _python("import torch\ntorch.set_default_dtype(torch.float64)"),
        _python("print(torch.get_default_dtype())"),
    )
    first, second = run_page(page)
    assert any("default dtype" in problem for problem in first.problems)
    assert second.stdout == "torch.float32\n" and second.problems == []


def test_blocks_share_one_namespace_named_main(tmp_path):
    page = _page(tmp_path, _python("answer = 42"), _python("print(__name__, answer)"))
    assert [run.stdout for run in run_page(page)] == ["", "__main__ 42\n"]


def test_a_raising_block_reports_its_page_line_and_stops_the_page(tmp_path):
    page = _page(tmp_path, _python("x = 1\ny = undefined_name"), _python("print('never runs')"))
    runs = run_page(page)
    assert len(runs) == 1
    assert f'File "{page}", line 5' in runs[0].error
    assert "NameError: name 'undefined_name' is not defined" in runs[0].error


def test_output_blocks_attach_to_the_block_above(tmp_path):
    page = _page(tmp_path, _python("print(1 + 1)", "2"), _python("pass"))
    printing, silent = [fence for fence in parse_page(page) if fence.executed]
    assert printing.output.body == "2\n" and silent.output is None


@pytest.mark.parametrize(
    "fence",
    ["```py", "```pycon", '```python title="example.py"', "~~~python", "```python3", "```bash"],
)
def test_fences_that_would_not_run_as_python_are_caught(tmp_path, fence):
    page = _page(tmp_path, f"{fence}\nprint('hello')\n{fence[:3]}")
    assert [f.start for f in silently_skipped(parse_page(page))] == [3]


def test_a_declared_skip_is_not_a_silent_one(tmp_path):
    page = _page(tmp_path, '<!--pytest.mark.skip(reason="needs a GPU")-->\n```python\nx.cuda()\n```')
    fences = parse_page(page)
    assert silently_skipped(fences) == [] and fences[0].skip_reason == "needs a GPU"


@pytest.mark.parametrize(
    "markup, message",
    [
        ("<!--pytest.mark.skip-->\n```python\npass\n```", "expected <!--pytest.mark.skip(reason="),
        ("<!--pytest-codeblocks:cont-->", "unsupported marker 'pytest-codeblocks:cont'"),
        ("<!--pytest-codeblocks:expected-output-->\n```text\n1\n```", "expected-output marker without a code block"),
        ("```python\nprint(1)", "is never closed"),
    ],
)
def test_malformed_markup_is_reported_with_its_line(tmp_path, markup, message):
    page = _page(tmp_path, markup)
    with pytest.raises(PageFormatError, match=r"page\.md:3: ") as raised:
        parse_page(page)
    assert message in str(raised.value)


def test_parity_names_the_block_that_drifted(tmp_path):
    english = _page(tmp_path, _python("x = 1  # one", "1"), _python("print(x + 1)", "2"), name="en/p.md")
    same = _page(tmp_path, _python("x = 1  # 一", "1"), _python("print(x + 1)", "2"), name="zh/same.md")
    drifted = _page(tmp_path, _python("x = 1", "1"), _python("print(x + 2)", "3"), name="zh/drifted.md")
    short = _page(tmp_path, _python("x = 1", "1"), name="zh/short.md")

    assert translation_drift(english, same) == []
    problems = translation_drift(english, drifted)
    assert [problem.split(":")[0] for problem in problems] == ["block 2", "block 2"]
    assert "-print(x + 1)" in problems[0] and "+print(x + 2)" in problems[0]
    assert "expected output differs" in problems[1]
    assert translation_drift(english, short) == [f"{english} has 2 code blocks, {short} has 1"]


def test_search_check_fails_without_the_segmenting_separator():
    docs = [
        {"location": "zh/hooks/", "title": "钩子", "text": "<p>\u200b钩子\u200b会\u200b收到\u200b梯度\u200b。</p>"},
        {"location": "zh/leaf/", "title": "叶子节点", "text": "<p>\u200b叶子节点\u200b的\u200b梯度\u200b。</p>"},
    ]
    fields = {"title": {"boost": 1000.0}}
    segmented = {"config": {"separator": "[\\s\\u200b。]+", "fields": fields}, "docs": docs}
    unsegmented = {"config": {"separator": "[\\s]+", "fields": fields}, "docs": docs}

    assert [page for page, _ in _ranking(segmented, "梯度", "zh")] == ["zh/hooks/", "zh/leaf/"]
    assert _ranking(segmented, "钩子", "zh")[0][0] == "zh/hooks/"
    assert _ranking(unsegmented, "梯度", "zh") == []
