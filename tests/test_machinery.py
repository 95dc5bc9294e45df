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


# --- pymdownx.snippets includes in executed blocks -------------------------------


def test_an_included_file_runs_as_the_site_shows_it(tmp_path):
    from pytest_codeblocks import extract_from_file

    include = '--8<-- "snippets/named_grad.py"'
    page = _page(
        tmp_path,
        _python(include),
        _python("x = torch.tensor([3.0], requires_grad=True)\nprint(named_grad(x * x, {'x': x}))", "{'x': tensor([6.])}"),
    )
    runs = run_page(page)
    assert [run.complaints for run in runs] == [[], []]
    assert runs[1].stdout == runs[1].expected
    fence = parse_page(page)[0]
    source = Path("snippets/named_grad.py").read_text(encoding="utf-8")
    assert fence.body == include + "\n" and fence.code == source + "\n"
    # pytest-codeblocks (and the no-silent-skips cross-check) see the raw include line.
    assert extract_from_file(page)[0].code.strip() == include


def test_a_missing_snippet_file_is_reported_with_its_page_line(tmp_path):
    page = _page(tmp_path, _python('x = 1\n--8<-- "snippets/no_such_helper.py"'))
    with pytest.raises(PageFormatError, match=r"page\.md:5: snippet file snippets/no_such_helper\.py not found"):
        parse_page(page)
    with pytest.raises(PageFormatError, match="not found"):
        run_page(page)


def test_block_style_snippet_markers_are_refused_in_executed_blocks(tmp_path):
    page = _page(tmp_path, _python('--8<--\nsnippets/named_grad.py\n--8<--'))
    with pytest.raises(PageFormatError, match=r"page\.md:4: an executed block includes files only with one"):
        parse_page(page)


def test_tracebacks_point_into_the_included_file(tmp_path):
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "boom.py").write_text("x = 1\nraise ValueError('inside')\n", encoding="utf-8")
    page = _page(tmp_path, _python('--8<-- "snippets/boom.py"'), _python('y = 2\n--8<-- "snippets/boom.py"'))
    alone, mixed = [fence for fence in parse_page(page, snippets_base=tmp_path) if fence.executed]
    assert alone.compiled().co_filename == str(tmp_path / "snippets" / "boom.py")
    with pytest.raises(ValueError) as raised:
        exec(alone.compiled(), {})
    assert raised.traceback[-1].lineno == 1  # 0-based: the file's line 2
    assert mixed.compiled().co_filename == str(page) and "raise ValueError" in mixed.code


# ---------------------------------------------------------------- notebooks
# A notebook is run and compared like a page (tests/test_notebooks.py); these
# prove its checks fire, naming the notebook and the cell.
import json  # noqa: E402

from notebook_cells import code_cell, dumps, markdown_cell, notebook, parse_notebook  # noqa: E402
from test_notebooks import notebook_drift, notebook_failures, page_notebooks  # noqa: E402
from update_outputs import rewrite  # noqa: E402


def _notebook(tmp_path: Path, *cells: dict, name: str = "lab.ipynb") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(notebook([markdown_cell("# A lab"), *cells])), encoding="utf-8")
    return path


def test_a_cell_with_a_wrong_stored_output_fails_with_its_notebook_cell_and_a_diff(tmp_path):
    lab = _notebook(tmp_path, code_cell("x = 6 * 7\nprint(x)", "42\n"), code_cell("print(x + 1)", "44\n"))
    [failure] = notebook_failures(lab)
    assert failure.startswith(f"{lab}, cell 3: printed output differs from the cell's stored output")
    assert "\n-44\n+43\n" in failure


@pytest.mark.parametrize(
    "code, complaint",
    [
        ("import torch\nprint(torch.rand(1).shape)", "draws random numbers without calling torch.manual_seed"),
        ("import warnings\nwarnings.warn('careful')", "emitted UserWarning: careful"),
        ("import torch\nx = torch.ones(1, requires_grad=True)\nprint((x * 2).grad_fn)", "prints a memory address"),
        ("import torch\nx = torch.ones(1, requires_grad=True)\nx.register_hook(print)", "Jupyter would display"),
    ],
)
def test_notebook_cells_get_the_guarantees_of_page_blocks(tmp_path, code, complaint):
    failures = notebook_failures(_notebook(tmp_path, code_cell(code)))
    assert any(f", cell 2: " in failure and complaint in failure for failure in failures), failures


def test_a_raising_cell_reports_its_notebook_cell_and_line(tmp_path):
    lab = _notebook(tmp_path, code_cell("x = 1\ny = undefined_name"), code_cell("print('never runs')", "never runs\n"))
    runs = run_page(lab)
    assert len(runs) == 1
    assert f'File "{lab}, cell 2", line 2' in runs[0].error and "y = undefined_name" in runs[0].error


def test_a_notebook_storing_anything_but_printed_text_is_refused(tmp_path):
    cell = code_cell("1 + 1") | {"outputs": [{"output_type": "execute_result", "data": {"text/plain": "2"},
                                              "metadata": {}, "execution_count": 1}]}
    with pytest.raises(PageFormatError, match="cell 2 stores a execute_result"):
        parse_notebook(_notebook(tmp_path, cell))


def test_notebook_parity_names_the_cell_that_drifted(tmp_path):
    english = _notebook(tmp_path, code_cell("x = 1  # one"), code_cell("print(x + 1)", "2\n"), name="en/n.ipynb")
    same = _notebook(tmp_path, code_cell("x = 1  # 一"), code_cell("print(x + 1)", "2\n"), name="zh/same.ipynb")
    drifted = _notebook(tmp_path, code_cell("x = 1"), code_cell("print(x + 2)", "3\n"), name="zh/drifted.ipynb")
    shorter = _notebook(tmp_path, code_cell("x = 1"), name="zh/short.ipynb")

    assert notebook_drift(english, same) == []
    problems = notebook_drift(english, drifted)
    assert [problem.split(":")[0] for problem in problems] == ["cell 3", "cell 3"]
    assert "-print(x + 1)" in problems[0] and "+print(x + 2)" in problems[0]
    assert "expected output differs" in problems[1]
    assert "differ in their cells' kinds and order" in notebook_drift(english, shorter)[0]


def test_update_outputs_rewrites_a_notebook_into_canonical_form(tmp_path):
    lab = _notebook(tmp_path, code_cell("print(6 * 7)", "41\n"), code_cell("y = 1", "stale\n"))
    churned = json.loads(lab.read_text(encoding="utf-8"))
    churned["nbformat_minor"] = 5
    churned["metadata"]["widgets"] = {"state": {}}
    for number, cell in enumerate(churned["cells"]):
        cell.update(id=f"random-{number}", metadata={"collapsed": False})
        if cell["cell_type"] == "code":
            cell["execution_count"] = 7 + number
    lab.write_text(json.dumps(churned), encoding="utf-8")

    assert rewrite(lab) == (2, [])
    wanted = dumps(notebook([markdown_cell("# A lab"), code_cell("print(6 * 7)", "42\n"), code_cell("y = 1")]))
    assert lab.read_text(encoding="utf-8") == wanted
    assert rewrite(lab) == (0, []) and lab.read_text(encoding="utf-8") == wanted


def test_a_page_becomes_a_notebook_of_its_executed_blocks(tmp_path):
    page = _page(
        tmp_path,
        _python("x = 6 * 7\nprint(x)", "42"),
        '!!! warning "Not on CPU"\n    <!--pytest.mark.skip(reason="needs a GPU")-->\n'
        "    ```python\n    x.cuda()\n    ```",
        _python("y = x + 1"),
    )
    cells = page_notebooks.page_notebook(page, "en")["cells"]
    assert [cell["cell_type"] for cell in cells] == ["markdown", "code", "markdown", "code"]
    assert "".join(cells[1]["source"]) == "x = 6 * 7\nprint(x)" and cells[1]["outputs"][0]["text"] == ["42\n"]
    shown = "".join(cells[2]["source"])
    assert shown.startswith("**Not on CPU**\n\n*Not run by the test suite: needs a GPU*")
    assert "```python\nx.cuda()\n```" in shown and "pytest" not in shown
    assert "".join(cells[3]["source"]) == "y = x + 1" and cells[3]["outputs"] == []


def test_notebook_pages_lose_cdn_scripts_and_unused_css():
    from test_notebooks import _hook

    lighten = _hook("jupyter_light").lighten
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
