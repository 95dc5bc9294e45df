"""A block that wraps a model in DDP frees the wrapper before it destroys the process group.

DDP's reducer holds a reference to the process group. If the reducer is the
last holder when DDP is freed (the group already destroyed), the group's C++
destructor joins gloo's worker thread while the main thread holds Python's
GIL, and the worker may still need the GIL to release the all-reduce it just
finished: the process hangs (pytorch/pytorch#56297). It happens in a few runs
of a hundred (``python -m tests.tools repeat_pages``), at interpreter exit
for a reader, and inside the suite's fresh interpreters, which CI then kills
after 180 s. ``del ddp`` before ``dist.destroy_process_group()`` leaves the
group's last reference to ``destroy_process_group()``, whose binding releases
the GIL while it waits.

The rule, checked on the code of every executed block of the English pages
(the Chinese pages run the same code, tests/test_translation_parity.py): in
each scope (the block, or a function in it) that calls
``destroy_process_group()``, every name bound there to ``DDP(...)`` /
``DistributedDataParallel(...)`` is deleted (``del NAME``) after its last
binding and before the first ``destroy_process_group()`` that follows it.
"""

from __future__ import annotations

import ast

import pytest

from sitepages import page_id, pages, parse
from tests.scratch_pages import python_block, write_page

DDP_NAMES = {"DDP", "DistributedDataParallel"}


def _called_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        function = node.func
        return function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
    return None


def _scope_statements(body: list[ast.stmt]) -> list[ast.AST]:
    """Every node of a scope, not descending into the functions and classes it defines."""
    found, stack = [], list(body)
    while stack:
        node = stack.pop()
        found.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)
    return found


def _scopes(tree: ast.Module) -> list[list[ast.stmt]]:
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    return [tree.body] + [node.body for node in ast.walk(tree) if isinstance(node, functions)]


def undeleted_wrappers(code: str) -> list[tuple[str, int, int]]:
    """(name, line of its last DDP binding, line of the destroy_process_group() call) for each wrapper still bound
    there; lines count from the block's first line (1)."""
    problems = []
    for body in _scopes(ast.parse(code)):
        nodes = _scope_statements(body)
        destroys = sorted(node.lineno for node in nodes if _called_name(node) == "destroy_process_group")
        if not destroys:
            continue
        bound: dict[str, int] = {}
        deleted: dict[str, list[int]] = {}
        for node in nodes:
            if isinstance(node, ast.Assign) and _called_name(node.value) in DDP_NAMES:
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        bound[target.id] = max(bound.get(target.id, 0), node.lineno)
            elif isinstance(node, ast.Delete):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        deleted.setdefault(target.id, []).append(node.lineno)
        for name, line in sorted(bound.items()):
            destroy = next((d for d in destroys if d > line), None)
            if destroy is not None and not any(line < d < destroy for d in deleted.get(name, [])):
                problems.append((name, line, destroy))
    return problems


def page_problems(page) -> list[str]:
    problems = []
    for block in parse(page):
        if not block.executed or block.included_file is not None:
            continue
        for name, bound, destroy in undeleted_wrappers(block.code):
            problems.append(
                f"{page}:{block.line + destroy}: dist.destroy_process_group() while {name!r} (DDP, bound at line "
                f"{block.line + bound}) is still alive: write `del {name}` on the line before it (the group's last "
                "reference must not die inside DDP: tests/test_ddp_teardown.py says why)")
    return problems


@pytest.mark.parametrize("page", pages("en"), ids=page_id)
def test_ddp_is_freed_before_its_process_group(page):
    problems = page_problems(page)
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def test_the_check_names_the_page_line_of_a_wrapper_left_alive(tmp_path):
    code = ("import torch.distributed as dist\nfrom torch.nn.parallel import DistributedDataParallel as DDP\n\n"
            "def worker(model):\n    ddp = DDP(model)\n    dist.destroy_process_group()\n\n"
            "ddp = DDP(model)\nfor _ in range(2):\n    ddp = DDP(model)\ndel ddp\ndist.destroy_process_group()\n")
    page = write_page(tmp_path, python_block(code))
    problems = page_problems(page)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{page}:9: dist.destroy_process_group() while 'ddp' (DDP, bound at line 8)")
    assert "`del ddp`" in problems[0]
