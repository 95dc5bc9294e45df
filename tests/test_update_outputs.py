"""The rewrite command turns a page with wrong, missing and stale outputs into a correct one."""

from pathlib import Path

from page_runner import run_page
from update_outputs import rewrite

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


def _page(tmp_path: Path, monkeypatch, text: str) -> Path:
    monkeypatch.chdir(tmp_path)
    page = Path("docs", "zh", "page.md")
    page.parent.mkdir(parents=True)
    page.write_text(text, encoding="utf-8")
    return page


def test_rewrite_repairs_wrong_stale_and_missing_outputs(tmp_path, monkeypatch):
    page = _page(tmp_path, monkeypatch, BROKEN)
    assert rewrite(page) == (3, [])
    assert page.read_text(encoding="utf-8") == CORRECT
    assert all(run.stdout == run.expected for run in run_page(page))


def test_rewrite_leaves_a_correct_page_alone(tmp_path, monkeypatch):
    page = _page(tmp_path, monkeypatch, CORRECT)
    assert rewrite(page) == (0, [])
    assert page.read_text(encoding="utf-8") == CORRECT


def test_rewrite_refuses_a_page_whose_block_raises(tmp_path, monkeypatch):
    page = _page(tmp_path, monkeypatch, BROKEN.replace("x + 1", "x + undefined_name"))
    changed, problems = rewrite(page)
    assert changed == 0 and "NameError: name 'undefined_name' is not defined" in problems[0]
    assert 'File "docs/zh/page.md", line 14' in problems[0]  # the line of `y = ...` in the page
    assert page.read_text(encoding="utf-8") == BROKEN.replace("x + 1", "x + undefined_name")
