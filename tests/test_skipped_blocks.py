"""A block the suite does not run still works when a reader pastes the page's blocks in order.

A block declared ``<!--pytest.mark.skip(reason="...")-->`` (it needs a GPU,
say) is run by readers who have one, after the blocks above it. So every name
it uses must be bound by an earlier block of the page (run or not) or by the
block itself, or be a builtin: otherwise that reader gets a NameError. Python's
own symbol tables (``symtable``) say which names a block binds at the top level
and which it needs from there, functions and classes included.
"""

from __future__ import annotations

import builtins
import symtable
from pathlib import Path

import pytest

from sitepages import Block, page_id, pages, parse
from tests.scratch_pages import python_block, write_page

BUILTINS = set(dir(builtins)) | {"__name__", "__file__", "__builtins__"}


def _tables(table: symtable.SymbolTable):
    yield table
    for child in table.get_children():
        yield from _tables(child)


def bound_names(block: Block) -> set[str]:
    """The names a block binds at the top level of the session: assignments, imports, defs, classes."""
    module = symtable.symtable(block.code, block.where, "exec")
    return {symbol.get_name() for symbol in module.get_symbols()
            if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace()}


def needed_names(block: Block) -> set[str]:
    """The names a block reads from the top level of the session, in its own code or in its functions'."""
    needed = set()
    for table in _tables(symtable.symtable(block.code, block.where, "exec")):
        for symbol in table.get_symbols():
            if not symbol.is_referenced():
                continue
            if table.get_type() == "module" or symbol.is_global():
                needed.add(symbol.get_name())
    return needed


def unbound_names(blocks: list[Block]) -> list[str]:
    """One line per name a not-run block uses that nothing before it (or itself) binds."""
    problems = []
    bound: set[str] = set()
    for number, block in enumerate(blocks):
        if block.info.split()[:1] != ["python"]:
            continue
        if not block.executed:
            missing = sorted(needed_names(block) - bound_names(block) - bound - BUILTINS)
            for name in missing:
                later = next((b for b in blocks[number + 1:] if b.info.split()[:1] == ["python"]
                              and name in bound_names(b)), None)
                where = f"; the block at line {later.line} defines it, after this one" if later else ""
                problems.append(f"{block.where}: this block, which the suite does not run, uses {name!r}, "
                                f"which no earlier block defines{where}: a reader who pastes the blocks "
                                "in order gets a NameError")
        bound |= bound_names(block)
    return problems


@pytest.mark.parametrize("page", [p for p in pages() if any(not b.executed and b.skip_reason for b in parse(p))],
                         ids=page_id)
def test_a_block_the_suite_does_not_run_uses_only_names_defined_before_it(page):
    problems = unbound_names(parse(page))
    assert not problems, "\n".join(problems)


def test_the_check_names_a_name_a_later_block_defines(tmp_path):
    page = write_page(
        Path(tmp_path), python_block("import torch"),
        '<!--pytest.mark.skip(reason="needs two GPUs")-->\n' + python_block(
            "def wrap(model):\n    return torch.nn.DataParallel(model)\n\nprint(wrap(LinearWithLoss()))"),
        python_block("class LinearWithLoss(torch.nn.Module):\n    pass"),
    )
    assert unbound_names(parse(page)) == [
        f"{page}:8: this block, which the suite does not run, uses 'LinearWithLoss', which no earlier block "
        "defines; the block at line 15 defines it, after this one: a reader who pastes the blocks in order "
        "gets a NameError"]


def test_names_bound_before_or_inside_the_block_pass(tmp_path):
    page = write_page(
        Path(tmp_path), python_block("import torch\nx = torch.ones(2)"),
        '<!--pytest.mark.skip(reason="needs a GPU")-->\n' + python_block(
            "y = x.cuda()\nfor i in range(2):\n    print(len([y for _ in range(i)]))"),
    )
    assert unbound_names(parse(page)) == []
