"""Every page exists in both languages with the same code and the same outputs.

Code is compared with comments removed (comments are translated); prose,
skip reasons and output-block titles may differ.
"""

import difflib
import io
import tokenize
from pathlib import Path

import pytest

from docs_pages import ROOT, page_id, pages, twin
from markdown_fences import Fence, parse_page


def _without_comments(fence: Fence) -> str:
    if fence.info.split()[:1] == ["python"]:
        try:
            tokens = tokenize.generate_tokens(io.StringIO(fence.body).readline)
            kept = [token for token in tokens if token.type != tokenize.COMMENT]
            code = tokenize.untokenize(kept)
        except (tokenize.TokenError, SyntaxError, IndentationError):
            code = fence.body
    else:
        code = "\n".join(line.split("#", 1)[0] for line in fence.body.splitlines())
    return "\n".join(line.rstrip() for line in code.splitlines() if line.strip())


def _shape(fence: Fence) -> dict[str, str]:
    return {
        "fence": fence.chars + fence.info,
        "skip marker": "present" if fence.skip_reason else "absent",
        "code without comments": _without_comments(fence) + "\n",
        "expected output": fence.output.body if fence.output else "(none)\n",
    }


def _differences(en: Fence, zh: Fence) -> list[str]:
    english, chinese = _shape(en), _shape(zh)
    found = []
    for what in english:
        if english[what] != chinese[what]:
            diff = difflib.unified_diff(
                english[what].splitlines(keepends=True), chinese[what].splitlines(keepends=True),
                fromfile=en.where, tofile=zh.where,
            )
            found.append(f"{what} differs:\n{''.join(diff).rstrip()}")
    return found


@pytest.mark.parametrize("page", pages("zh"), ids=page_id)
def test_chinese_page_has_an_english_twin(page):
    assert (ROOT / twin(page, "en")).exists(), f"{page} has no English twin at {twin(page, 'en')}"


def translation_drift(english: Path, chinese: Path) -> list[str]:
    """What differs between a page and its twin, block by block; empty when in lockstep."""
    english_blocks = [fence for fence in parse_page(english) if not fence.is_output]
    chinese_blocks = [fence for fence in parse_page(chinese) if not fence.is_output]
    problems = [
        f"block {number}: {text}"
        for number, (en, zh) in enumerate(zip(english_blocks, chinese_blocks), start=1)
        for text in _differences(en, zh)
    ]
    if len(english_blocks) != len(chinese_blocks):
        problems.append(
            f"{english} has {len(english_blocks)} code blocks, {chinese} has {len(chinese_blocks)}"
        )
    return problems


@pytest.mark.parametrize("page", pages("en"), ids=page_id)
def test_chinese_twin_has_the_same_code_and_outputs(page):
    chinese = twin(page, "zh")
    if not (ROOT / chinese).exists():
        pytest.fail(f"{page} has no Chinese twin: create {chinese}", pytrace=False)
    problems = translation_drift(page, chinese)
    if problems:
        pytest.fail("translation drifted:\n" + "\n".join(problems), pytrace=False)
