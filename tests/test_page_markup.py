"""The page parser reads the markup as pytest-codeblocks defines it, and reports misuse with page and line."""

from pathlib import Path

import pytest
from pytest_codeblocks import extract_from_file

from sitepages import PageFormatError, parse, parse_page, silently_skipped
from tests.pagerun.execute import execute
from tests.scratch_pages import python_block as _python
from tests.scratch_pages import write_page as _page


def test_output_blocks_attach_to_the_block_above(tmp_path):
    page = _page(tmp_path, _python("print(1 + 1)", "2"), _python("pass"))
    printing, silent = parse(page)
    assert printing.output.text == "2\n" and printing.output.line == 8 and silent.output is None


@pytest.mark.parametrize(
    "fence",
    ["```py", "```pycon", '```python title="example.py"', "~~~python", "```python3", "```bash"],
)
def test_fences_that_would_not_run_as_python_are_caught(tmp_path, fence):
    page = _page(tmp_path, f"{fence}\nprint('hello')\n{fence[:3]}")
    assert [block.line for block in silently_skipped(parse(page))] == [3]


def test_a_declared_skip_is_not_a_silent_one(tmp_path):
    page = _page(tmp_path, '<!--pytest.mark.skip(reason="needs a GPU")-->\n```python\nx.cuda()\n```')
    blocks = parse(page)
    assert silently_skipped(blocks) == [] and blocks[0].skip_reason == "needs a GPU" and not blocks[0].executed


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
        parse(page)
    assert message in str(raised.value)


# --- pymdownx.snippets includes in executed blocks -------------------------------


def test_an_included_file_runs_as_the_site_shows_it(tmp_path):
    include = '--8<-- "snippets/named_grad.py"'
    page = _page(
        tmp_path,
        _python(include),
        _python("x = torch.tensor([3.0], requires_grad=True)\nprint(named_grad(x * x, {'x': x}))",
                "{'x': tensor([6.])}"),
    )
    runs = execute(parse(page))
    assert [run.messages() for run in runs] == [[], []]
    block = parse(page)[0]
    source = Path("snippets/named_grad.py").read_text(encoding="utf-8")
    assert block.source == include + "\n" and block.code == source + "\n"
    # pytest-codeblocks (and the cross-check) see the raw include line.
    assert extract_from_file(page)[0].code.strip() == include


def test_a_missing_snippet_file_is_reported_with_its_page_line(tmp_path):
    page = _page(tmp_path, _python('x = 1\n--8<-- "snippets/no_such_helper.py"'))
    with pytest.raises(PageFormatError, match=r"page\.md:5: snippet file snippets/no_such_helper\.py not found"):
        parse(page)


def test_block_style_snippet_markers_are_refused_in_executed_blocks(tmp_path):
    page = _page(tmp_path, _python('--8<--\nsnippets/named_grad.py\n--8<--'))
    with pytest.raises(PageFormatError, match=r"page\.md:4: an executed block includes files only with one"):
        parse(page)


def test_tracebacks_point_into_the_included_file(tmp_path):
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "boom.py").write_text("x = 1\nraise ValueError('inside')\n", encoding="utf-8")
    page = _page(tmp_path, _python('--8<-- "snippets/boom.py"'), _python('y = 2\n--8<-- "snippets/boom.py"'))
    alone, mixed = parse_page(page, snippets_base=tmp_path)
    assert alone.compiled().co_filename == str(tmp_path / "snippets" / "boom.py")
    with pytest.raises(ValueError) as raised:
        exec(alone.compiled(), {})
    assert raised.traceback[-1].lineno == 1  # 0-based: the file's line 2
    assert mixed.compiled().co_filename == str(page) and "raise ValueError" in mixed.code


# --- notebooks ---------------------------------------------------------------------


def test_a_notebook_storing_anything_but_printed_text_is_refused(tmp_path):
    from sitepages.notebook import code_cell, dumps, markdown_cell, new_notebook

    cell = code_cell("1 + 1") | {"outputs": [{"output_type": "execute_result", "data": {"text/plain": "2"},
                                              "metadata": {}, "execution_count": 1}]}
    lab = tmp_path / "lab.ipynb"
    lab.write_text(dumps(new_notebook([markdown_cell("# A lab"), cell])), encoding="utf-8")
    with pytest.raises(PageFormatError, match=r"lab\.ipynb, cell 2: stores a execute_result"):
        parse(lab)


def test_an_invalid_notebook_is_refused_with_the_schema_error(tmp_path):
    lab = tmp_path / "lab.ipynb"
    lab.write_text('{"cells": [{"cell_type": "code", "source": "x = 1"}], "metadata": {}, '
                   '"nbformat": 4, "nbformat_minor": 4}', encoding="utf-8")
    with pytest.raises(PageFormatError, match=r"lab\.ipynb: not a valid notebook: "):
        parse(lab)
