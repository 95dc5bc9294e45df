"""The glossary is the one list of the site's terms.

docs/zh/glossary.md and docs/en/glossary.md hold the same table rows in the
same order (the English and Chinese columns identical, the links going to the
same pages). docs/search/jieba-user-dict.txt, which jieba reads when the site
is built so that Chinese search indexes each term as one word, lists exactly
the Chinese terms of that table: nothing is generated, the test says what to
change by hand.

Material hands jieba only runs of Han characters (it splits the text at
anything else), so a Chinese term registers its runs of Han characters:
`反向节点` registers itself, `向量-雅可比积` registers `向量` and `雅可比积`,
and an API name kept in English (`grad_fn`) registers nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitepages import ROOT
from sitepages.tables import page_tables

ENGLISH_PAGE = Path("docs/en/glossary.md")
CHINESE_PAGE = Path("docs/zh/glossary.md")
USER_DICT = Path("docs/search/jieba-user-dict.txt")

# Header cell -> column role, for both pages' tables.
COLUMNS = {
    "English": "english",
    "中文": "chinese",
    "Definition": "definition",
    "释义": "definition",
    "Read more": "links",
    "详见": "links",
}
# The terms every page must use for these words (the writing brief's list).
CORE_TERMS = (
    "叶子节点", "非叶子节点", "计算图", "反向传播", "前向传播", "钩子", "中间变量",
    "梯度", "张量", "原地操作", "梯度累加", "版本计数器", "推理模式", "偏导数", "标量",
)
HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# One term per cell: Han characters, letters, digits and hyphens, or one API name in backticks.
ONE_TERM = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaffA-Za-z0-9-]+|`[^`]+`")
DICT_LINE = re.compile(r"(\S+) 2000 n")


class GlossaryFormatError(Exception):
    """A glossary table or the dictionary file cannot be read; the message names file and line."""


@dataclass(frozen=True)
class Row:
    where: str
    english: str
    chinese: str
    definition: str
    links: tuple[str, ...]


def glossary_rows(page: Path) -> list[Row]:
    """Every row of every table on the page, in order (sitepages.tables reads them)."""
    rows: list[Row] = []
    for table in page_tables(ROOT / page):
        header = [cell.source for cell in table.header]
        unknown = [cell for cell in header if cell not in COLUMNS]
        roles = [COLUMNS.get(cell) for cell in header]
        if unknown or sorted(roles) != sorted(set(COLUMNS.values())):
            raise GlossaryFormatError(
                f"{page}:{table.line}: a glossary table needs exactly the columns "
                f"English, 中文, Definition/释义, Read more/详见; found {header}"
            )
        for row in table.rows:
            cells = dict(zip(roles, row.cells, strict=True))
            rows.append(Row(f"{page}:{row.line}", cells["english"].source, cells["chinese"].source,
                            cells["definition"].source, cells["links"].links))
    if not rows:
        raise GlossaryFormatError(f"{page}: no glossary table found")
    return rows


def dictionary_terms(rows: list[Row]) -> list[str]:
    """What jieba-user-dict.txt must list: the Han runs of the Chinese terms, in table order."""
    terms: list[str] = []
    for row in rows:
        for run in HAN_RUN.findall(row.chinese):
            if run not in terms:
                terms.append(run)
    return terms


def read_user_dict(path: Path) -> list[str]:
    terms = []
    for number, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), start=1):
        match = DICT_LINE.fullmatch(line)
        if not match:
            raise GlossaryFormatError(f"{path}:{number}: {line!r} is not of the form 'TERM 2000 n'")
        terms.append(match.group(1))
    return terms


def dictionary_problems(rows: list[Row], path: Path, glossary: Path = CHINESE_PAGE) -> list[str]:
    """Empty when the dictionary lists exactly the glossary's Chinese terms, once each."""
    expected = dictionary_terms(rows)
    listed = read_user_dict(path)
    problems = []
    missing = [term for term in expected if term not in listed]
    extra = [term for term in dict.fromkeys(listed) if term not in expected]
    twice = sorted({term for term in listed if listed.count(term) > 1})
    if missing:
        problems.append(
            f"{path} lacks {len(missing)} Chinese term(s) of the glossary table in {glossary}: "
            f"{', '.join(missing)}. Fix: add these lines to {path}:\n"
            + "".join(f"    {term} 2000 n\n" for term in missing)
        )
    if extra:
        problems.append(
            f"{path} lists {len(extra)} term(s) that are not in the glossary table of {glossary}: "
            f"{', '.join(extra)}. Fix: add a row for each to the glossary tables of both "
            f"{glossary} and its English twin, or delete the line(s) from {path}."
        )
    if twice:
        problems.append(f"{path} lists these terms more than once: {', '.join(twice)}. Fix: keep one line each.")
    return problems


def twin_problems(english: list[Row], chinese: list[Row]) -> list[str]:
    """Empty when both glossaries have the same rows, in the same order, linking the same pages."""
    problems = []
    for en, zh in zip(english, chinese, strict=False):
        for column in ("english", "chinese", "links"):
            if getattr(en, column) != getattr(zh, column):
                problems.append(
                    f"{en.where} and {zh.where}: the {column} column differs: "
                    f"{getattr(en, column)!r} != {getattr(zh, column)!r}"
                )
    if len(english) != len(chinese):
        english_terms = [row.english for row in english]
        chinese_terms = [row.english for row in chinese]
        problems.append(
            f"the English glossary has {len(english)} rows, the Chinese one {len(chinese)}; "
            f"only in English: {[t for t in english_terms if t not in chinese_terms]}, "
            f"only in Chinese: {[t for t in chinese_terms if t not in english_terms]}"
        )
    return problems


def row_problems(rows: list[Row], page: Path) -> list[str]:
    """Each row: one term per language cell, a definition, and links to existing pages only."""
    problems = []
    for row in rows:
        if not ONE_TERM.fullmatch(row.chinese):
            problems.append(f"{row.where}: the Chinese cell {row.chinese!r} must hold one term "
                            "(Han characters, letters, digits, '-'), or one API name in backticks")
        if not row.english or not row.definition:
            problems.append(f"{row.where}: the row needs an English term and a definition")
        if not row.links:
            problems.append(f"{row.where}: the row links to no page")
        for target in row.links:
            if "#" in target or not target.endswith(".md"):
                problems.append(f"{row.where}: link {target!r} must be a page link to a .md file, "
                                "without an anchor")
            elif not (ROOT / page).parent.joinpath(target).resolve().is_file():
                problems.append(f"{row.where}: link {target!r} points to no page")
    for column in ("english", "chinese"):
        terms = [getattr(row, column) for row in rows]
        repeated = sorted({term for term in terms if terms.count(term) > 1})
        if repeated:
            problems.append(f"{page}: the {column} column repeats {repeated}")
    return problems


# --- the site's glossary ---------------------------------------------------


@pytest.mark.parametrize("page", [ENGLISH_PAGE, CHINESE_PAGE], ids=str)
def test_glossary_rows_are_well_formed(page):
    problems = row_problems(glossary_rows(page), page)
    assert not problems, "\n".join(problems)


def test_english_and_chinese_glossaries_have_the_same_rows():
    problems = twin_problems(glossary_rows(ENGLISH_PAGE), glossary_rows(CHINESE_PAGE))
    assert not problems, "\n".join(problems)


def test_glossary_keeps_the_core_terms():
    chinese = {row.chinese for row in glossary_rows(CHINESE_PAGE)}
    missing = [term for term in CORE_TERMS if term not in chinese]
    assert not missing, f"{CHINESE_PAGE} lost core terms of the site: {missing}"


def test_jieba_user_dict_lists_exactly_the_glossary_terms():
    problems = dictionary_problems(glossary_rows(CHINESE_PAGE), USER_DICT)
    assert not problems, "\n".join(problems)


# --- the checks above do fail --------------------------------------------


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


ZH_TABLE = """# 术语表

| 中文 | English | 释义 | 详见 |
|---|---|---|---|
| 叶子节点 | leaf node | 释义。 | [叶子节点](leaf.md) |
| 向量-雅可比积 | vector-Jacobian product | 释义。 | [页](vjp.md) |
| `grad_fn` | `grad_fn` | 释义。 | [页](leaf.md) |
"""


def test_dictionary_check_names_missing_and_extra_terms(tmp_path):
    rows = glossary_rows(_write(tmp_path, "zh/glossary.md", ZH_TABLE))
    assert dictionary_terms(rows) == ["叶子节点", "向量", "雅可比积"]

    exact = _write(tmp_path, "exact.txt", "雅可比积 2000 n\n叶子节点 2000 n\n向量 2000 n\n")
    assert dictionary_problems(rows, exact) == []

    drifted = _write(tmp_path, "drifted.txt", "叶子节点 2000 n\n向量 2000 n\n钩子 2000 n\n钩子 2000 n\n")
    lacks, lists, twice = dictionary_problems(rows, drifted)
    assert lacks.startswith(f"{drifted} lacks 1 Chinese term(s) of the glossary table")
    assert lacks.endswith(f": 雅可比积. Fix: add these lines to {drifted}:\n    雅可比积 2000 n\n")
    assert "lists 1 term(s) that are not in the glossary" in lists and "钩子" in lists
    assert "more than once: 钩子" in twice


def test_dictionary_check_rejects_a_malformed_line(tmp_path):
    rows = glossary_rows(_write(tmp_path, "zh/glossary.md", ZH_TABLE))
    bad = _write(tmp_path, "bad.txt", "叶子节点 2000 n\n雅可比积\n")
    with pytest.raises(GlossaryFormatError, match=r"bad\.txt:2: '雅可比积' is not of the form"):
        dictionary_problems(rows, bad)


def test_twin_check_names_the_row_that_differs(tmp_path):
    chinese = glossary_rows(_write(tmp_path, "zh/glossary.md", ZH_TABLE))
    english = glossary_rows(_write(tmp_path, "en/glossary.md", """# Glossary

| English | 中文 | Definition | Read more |
|---|---|---|---|
| leaf node | 叶子节点 | Text. | [Leaf](leaf.md) |
| vector-Jacobian product | 向量-雅可比积 | Text. | [Page](other.md) |
"""))
    problems = twin_problems(english, chinese)
    assert len(problems) == 2, problems
    assert "en/glossary.md:6 and" in problems[0] and "links column differs" in problems[0]
    assert "English glossary has 2 rows, the Chinese one 3" in problems[1] and "`grad_fn`" in problems[1]


def test_row_check_rejects_anchors_missing_pages_and_two_terms_in_a_cell(tmp_path):
    _write(tmp_path, "zh/leaf.md", "# 叶子节点\n")
    page = _write(tmp_path, "zh/glossary.md", """# 术语表

| 中文 | English | 释义 | 详见 |
|---|---|---|---|
| 叶子节点 | leaf node | 释义。 | [叶子节点](leaf.md#is-leaf) |
| 钩子，钩子函数 | hook | 释义。 | [钩子](hooks.md) |
""")
    problems = row_problems(glossary_rows(page), page)
    assert len(problems) == 3, problems
    assert "glossary.md:5: link 'leaf.md#is-leaf' must be a page link" in problems[0]
    assert "glossary.md:6: the Chinese cell '钩子，钩子函数' must hold one term" in problems[1]
    assert "glossary.md:6: link 'hooks.md' points to no page" in problems[2]


def test_a_table_with_other_columns_is_reported(tmp_path):
    page = _write(tmp_path, "zh/glossary.md", "# 术语表\n\n| 中文 | 释义 |\n|---|---|\n| 钩子 | 释义。 |\n")
    with pytest.raises(GlossaryFormatError, match=r"glossary\.md:3: a glossary table needs exactly the columns"):
        glossary_rows(page)
