"""The docs plugin: `pytest PAGE.md` runs one item per block, reports failures at the page's line,
refuses markup that would not run, and `--update-outputs` rewrites outputs from a real run.

Each test builds a scratch project (a pyproject.toml pointing at this
repository's plugin, and pages under docs/) and runs pytest on it in-process.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitepages.notebook import code_cell, dumps, markdown_cell, new_notebook

CORRECT = '''# A page

```python
x = 6 * 7
print(x)
```

<!--pytest-codeblocks:expected-output-->
```text title="输出"
42
```

```python
y = x + 1
```

!!! note
    ```python
    print([x, y])
    print("two lines")
    ```

    <!--pytest-codeblocks:expected-output-->
    ```text title="输出"
    [42, 43]
    two lines
    ```
'''

BROKEN = '''# A page

```python
x = 6 * 7
print(x)
```

<!--pytest-codeblocks:expected-output-->
```text title="输出"
41
```

```python
y = x + 1
```

<!--pytest-codeblocks:expected-output-->
```text title="输出"
stale output of a block that no longer prints
```

!!! note
    ```python
    print([x, y])
    print("two lines")
    ```
'''



PASSING = """# A page

```python
x = 6 * 7
print(x)
```

<!--pytest-codeblocks:expected-output-->
```text
42
```

```python
print(x + 1)
```

<!--pytest-codeblocks:expected-output-->
```text
43
```
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch) -> pytest.Pytester:
    # Only the plugin under test (and what a test names with -p): the inner runs are
    # in-process, and re-importing every installed plugin each time costs seconds.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    # The runs are in this process, which already imports from the project's roots.
    pytester.makepyprojecttoml("""
        [tool.pytest.ini_options]
        addopts = "-p tests.pagerun.plugin"
        docs_sources = ["docs/en", "docs/zh"]
    """)
    return pytester


def _write(project: pytest.Pytester, name: str, text: str) -> Path:
    path = project.path / "docs" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_page_is_one_item_per_block(project):
    _write(project, "en/page.md", PASSING)
    result = project.runpytest("docs/en/page.md", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["docs/en/page.md::line 3 PASSED*", "docs/en/page.md::line 13 PASSED*"])


def test_a_changed_output_digit_fails_with_page_line_and_a_diff(project):
    _write(project, "en/page.md", PASSING.replace("43", "44"))
    result = project.runpytest("docs/en/page.md")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "docs/en/page.md:13: printed output differs from the output block at line 18",
        "-44", "+43",
    ])
    assert "pagerun" not in result.stdout.str(), "the plugin's own frames are not shown"


def test_one_selected_block_runs_the_blocks_before_it(project):
    _write(project, "en/page.md", PASSING)
    project.runpytest("docs/en/page.md::line 13").assert_outcomes(passed=1)


def test_a_raising_block_fails_and_the_rest_of_its_page_is_skipped_with_the_reason(project):
    _write(project, "en/page.md", PASSING.replace("x = 6 * 7", "x = undefined_name"))
    result = project.runpytest("docs/en/page.md", "-rs")
    result.assert_outcomes(failed=1, skipped=1)
    result.stdout.fnmatch_lines([
        '*File "docs/en/page.md", line 4, in <module>*',
        "*NameError: name 'undefined_name' is not defined*",
        "*not run: docs/en/page.md:3 raised before it*",
    ])


def test_a_fence_that_would_not_run_is_a_collection_error_naming_its_line(project):
    _write(project, "en/page.md", PASSING + "\n```py\nprint('never run')\n```\n")
    result = project.runpytest("docs/en/page.md")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*docs/en/page.md:22: the fence ```py would not be executed*"])


def test_codeblocks_is_refused_with_the_command_to_use(project):
    _write(project, "en/page.md", PASSING)
    result = project.runpytest("-p", "pytest_codeblocks.plugin", "--codeblocks", "docs")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*a page here is one Python session*pytest docs*"])


def test_update_outputs_repairs_wrong_stale_and_missing_outputs(project):
    page = _write(project, "zh/page.md", BROKEN)
    result = project.runpytest("--update-outputs", "docs/zh/page.md")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["docs/zh/page.md: 3 output block(s) rewritten"])
    assert page.read_text(encoding="utf-8") == CORRECT
    project.runpytest("docs/zh/page.md").assert_outcomes(passed=3)


WARNS = """# A page

```python
import warnings
warnings.warn("careful")
print(1)
```
"""

WARNS_SHOWN = """# A page

```python
import warnings
warnings.warn("careful")
print(1)
```

<!--pytest-codeblocks:expected-output-->
```text title="{output}"
1
```

<!--pagerun:expected-warnings-->
```text title="{warning}"
UserWarning: careful
```
"""


@pytest.mark.parametrize("language, output, warning", [("en", "Output", "Warning"), ("zh", "输出", "警告")])
def test_update_outputs_writes_and_removes_a_blocks_warnings(project, language, output, warning):
    page = _write(project, f"{language}/page.md", WARNS)
    project.runpytest(f"docs/{language}/page.md").assert_outcomes(failed=1)
    project.runpytest("--update-outputs", f"docs/{language}/page.md").assert_outcomes(passed=1)
    assert page.read_text(encoding="utf-8") == WARNS_SHOWN.format(output=output, warning=warning)
    project.runpytest(f"docs/{language}/page.md").assert_outcomes(passed=1)
    # The warning goes away: its block goes too, and the output stays.
    page.write_text(page.read_text(encoding="utf-8").replace('warnings.warn("careful")\n', ""), encoding="utf-8")
    project.runpytest("--update-outputs", f"docs/{language}/page.md").assert_outcomes(passed=1)
    wanted = WARNS_SHOWN.format(output=output, warning=warning).replace('warnings.warn("careful")\n', "")
    assert page.read_text(encoding="utf-8") == wanted.split("\n<!--pagerun")[0]


def test_update_outputs_leaves_a_page_whose_block_raises_as_it_is(project):
    text = BROKEN.replace("x + 1", "x + undefined_name")
    page = _write(project, "zh/page.md", text)
    result = project.runpytest("--update-outputs", "docs/zh/page.md")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(['*File "docs/zh/page.md", line 14*', "docs/zh/page.md: NOT rewritten*"])
    assert page.read_text(encoding="utf-8") == text


def test_update_outputs_writes_a_notebook_in_canonical_form(project):
    lab = _write(project, "en/lab.ipynb", "")
    churned = new_notebook([markdown_cell("# A lab"), code_cell("print(6 * 7)", "41\n"), code_cell("y = 1", "stale\n")])
    churned["nbformat_minor"] = 5
    for number, cell in enumerate(churned["cells"]):
        cell.update(id=f"cell-{number}", metadata={"collapsed": False})
        if cell["cell_type"] == "code":
            cell["execution_count"] = 7 + number
    lab.write_text(json.dumps(churned), encoding="utf-8")

    project.runpytest("--update-outputs", "docs/en/lab.ipynb").assert_outcomes(passed=2)
    wanted = dumps(new_notebook([markdown_cell("# A lab"), code_cell("print(6 * 7)", "42\n"), code_cell("y = 1")]))
    assert lab.read_text(encoding="utf-8") == wanted
    project.runpytest("docs/en/lab.ipynb").assert_outcomes(passed=2)


TWIN = """# A page

```python
from pathlib import Path
runs = Path("runs.txt")
runs.write_text(runs.read_text() + "x" if runs.exists() else "x")  # COMMENT
print(len(runs.read_text()))
```

<!--pytest-codeblocks:expected-output-->
```text
OUTPUT
```
"""


def test_a_chinese_twin_with_the_same_code_is_checked_against_the_english_run(project):
    _write(project, "en/page.md", TWIN.replace("OUTPUT", "1"))
    _write(project, "zh/page.md", TWIN.replace("COMMENT", "注释").replace("OUTPUT", "1"))
    project.runpytest("docs").assert_outcomes(passed=2)
    assert (project.path / "runs.txt").read_text() == "x", "the Chinese page's code ran a second time"


def test_a_twin_is_still_checked_against_its_own_outputs_and_runs_itself_when_its_code_differs(project):
    _write(project, "en/page.md", TWIN.replace("OUTPUT", "1"))
    _write(project, "zh/page.md", TWIN.replace("OUTPUT", "2"))
    result = project.runpytest("docs")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["docs/zh/page.md:3: printed output differs*", "-2", "+1"])
    (project.path / "runs.txt").unlink()
    _write(project, "zh/page.md", TWIN.replace("print(len(runs.read_text()))", "print(len(runs.read_text()) * 1)")
           .replace("OUTPUT", "2"))
    project.runpytest("docs").assert_outcomes(passed=2)
    assert (project.path / "runs.txt").read_text() == "xx", "a twin whose code differs runs itself"
