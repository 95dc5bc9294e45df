"""How a page or notebook is compared with its twin: the code with comments removed, and the outputs.

Comments are translated; everything else a block holds must be the same in
both languages. ``code_key`` is the same comparison as one value: twins with
equal keys run the same code, so one run of it serves both (the portability
pass replays each distinct page once).
"""

from __future__ import annotations

import difflib
import io
import tokenize
from pathlib import Path

from sitepages import Block, parse


def without_comments(block: Block) -> str:
    """The block's code, comments and blank lines removed (other fences: text before a #)."""
    if block.info.split()[:1] == ["python"]:
        try:
            tokens = tokenize.generate_tokens(io.StringIO(block.source).readline)
            code = tokenize.untokenize(token for token in tokens if token.type != tokenize.COMMENT)
        except (tokenize.TokenError, SyntaxError, IndentationError):
            code = block.source
    else:
        code = "\n".join(line.split("#", 1)[0] for line in block.source.splitlines())
    return "\n".join(line.rstrip() for line in code.splitlines() if line.strip()) + "\n"


def code_key(blocks: list[Block]) -> tuple[str, ...]:
    """What the blocks that run would execute, comments aside."""
    return tuple(without_comments(block) for block in blocks if block.executed)


def _shape(block: Block) -> dict[str, str]:
    return {
        "fence": block.fence + block.info,
        "skip marker": "present" if block.skip_reason else "absent",
        "place among the notebook's cells": f"cell {block.cell}\n" if block.cell is not None else "",
        "code without comments": without_comments(block),
        "expected output": block.output.text if block.output else "(none)\n",
        "expected warnings": block.warnings.text if block.warnings else "(none)\n",
    }


def translation_drift(english: Path, chinese: Path) -> list[str]:
    """What differs between a page (or notebook) and its twin, block by block; empty when in lockstep."""
    english_blocks, chinese_blocks = parse(english), parse(chinese)
    problems = []
    for number, (en, zh) in enumerate(zip(english_blocks, chinese_blocks, strict=False), start=1):
        left, right = _shape(en), _shape(zh)
        for what in left:
            if left[what] != right[what]:
                diff = difflib.unified_diff(
                    left[what].splitlines(keepends=True), right[what].splitlines(keepends=True),
                    fromfile=en.where, tofile=zh.where,
                )
                problems.append(f"block {number}: {what} differs:\n{''.join(diff).rstrip()}")
    if len(english_blocks) != len(chinese_blocks):
        problems.append(f"{english} has {len(english_blocks)} code blocks, {chinese} has {len(chinese_blocks)}")
    return problems
