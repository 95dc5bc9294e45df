"""Every page and notebook exists in both languages, with the same code and the same outputs.

Code is compared with comments removed (comments are translated); prose,
skip reasons and output-block titles may differ. A notebook's code cells must
also sit at the same places among its cells.
"""

from pathlib import Path

import pytest

from sitepages import ROOT, page_id, sources, twin
from sitepages.twins import translation_drift
from tests.scratch_pages import python_block as _python
from tests.scratch_pages import write_page as _page


@pytest.mark.parametrize("source", sources("zh"), ids=page_id)
def test_chinese_source_has_an_english_twin(source):
    assert (ROOT / twin(source, "en")).exists(), f"{source} has no English twin at {twin(source, 'en')}"


@pytest.mark.parametrize("source", sources("en"), ids=page_id)
def test_chinese_twin_has_the_same_code_and_outputs(source):
    chinese = twin(source, "zh")
    if not (ROOT / chinese).exists():
        pytest.fail(f"{source} has no Chinese twin: create {chinese}", pytrace=False)
    problems = translation_drift(source, chinese)
    if problems:
        pytest.fail("translation drifted:\n" + "\n".join(problems), pytrace=False)


# --- the check fails on twins that drifted -----------------------------------------


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


def test_notebook_parity_names_the_cell_that_drifted(tmp_path):
    from sitepages.notebook import code_cell, markdown_cell
    from tests.scratch_pages import write_notebook

    def notebook(name: str, *cells: dict) -> Path:
        return write_notebook(tmp_path, *cells, name=name)

    english = notebook("en/n.ipynb", code_cell("x = 1  # one"), code_cell("print(x + 1)", "2\n"))
    same = notebook("zh/same.ipynb", code_cell("x = 1  # 一"), code_cell("print(x + 1)", "2\n"))
    drifted = notebook("zh/drifted.ipynb", code_cell("x = 1"), code_cell("print(x + 2)", "3\n"))
    moved = notebook("zh/moved.ipynb", code_cell("x = 1"), markdown_cell("text"), code_cell("print(x + 1)", "2\n"))

    assert translation_drift(english, same) == []
    problems = translation_drift(english, drifted)
    assert [problem.split(":")[0] for problem in problems] == ["block 2", "block 2"]
    assert "-print(x + 1)" in problems[0] and "+print(x + 2)" in problems[0]
    assert "expected output differs" in problems[1]
    assert any("place among the notebook's cells differs" in problem for problem in translation_drift(english, moved))
