"""A block that wraps a model in DDP frees the wrapper before it destroys the process group.

DDP's reducer holds a reference to the process group. If the group is
destroyed while the wrapper is alive, the reducer can be the group's last
holder (it is when ``torch._dynamo`` was imported before
``init_process_group``, as in the suite's fresh interpreters, which import
it up front, and in a reader's script that built an optimizer first). Freeing
the wrapper then runs the group's C++ destructor, which joins gloo's worker
thread, with Python's GIL held, and the worker may still need the GIL to free
the all-reduce it has just finished: the process hangs (pytorch/pytorch#56297;
at interpreter exit it can abort instead). It happens in a few runs of a
hundred (``python -m tests.tools repeat_pages``), so CI meets it now and then
and kills the interpreter after 180 s. ``del ddp`` before
``dist.destroy_process_group()`` frees the reducer while the group is still
registered, so the reducer is never its last holder.

The rule, checked on the code of every executed block of the English pages
(the Chinese pages run the same code, tests/test_translation_parity.py): in
each scope (the block, or a function in it) that calls
``destroy_process_group()``, a ``DDP(...)`` / ``DistributedDataParallel(...)``
kept under a name (``ddp = DDP(m)``, ``ddp, opt = DDP(m), ...``,
``ddp: DDP = DDP(m)``, ``(ddp := DDP(m))``) or an attribute or item
(``state.ddp = DDP(m)``) is deleted there (``del ddp``, ``del state.ddp``)
after its last binding and before the first ``destroy_process_group()`` that
follows it. A wrapper used only in the expression that builds it
(``DDP(m).register_comm_hook(...)``) is freed at once and needs nothing. What
an AST cannot see (another name for the same wrapper, a hook that refers to
it, a wrapper built in one block and destroyed in a later one) is the
writer's to avoid.
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


def _scope_nodes(body: list[ast.stmt]) -> list[ast.AST]:
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


def _is_ddp(node: ast.AST | None) -> bool:
    return _called_name(node) in DDP_NAMES


def _kept_wrappers(node: ast.AST) -> list[str]:
    """What a binding statement keeps a DDP wrapper under: names, or attributes and items as source text."""
    if isinstance(node, ast.NamedExpr):
        return [node.target.id] if _is_ddp(node.value) else []
    if isinstance(node, ast.AnnAssign):
        return [ast.unparse(node.target)] if _is_ddp(node.value) else []
    if not isinstance(node, ast.Assign):
        return []
    kept = []
    for target in node.targets:
        if _is_ddp(node.value):
            kept.append(ast.unparse(target))
        elif (isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List))
              and len(target.elts) == len(node.value.elts)):
            kept += [ast.unparse(name) for name, value in zip(target.elts, node.value.elts, strict=True)
                     if _is_ddp(value)]
    return kept


def undeleted_wrappers(code: str) -> list[tuple[str, int, int]]:
    """(what keeps the wrapper, line of its last DDP binding, line of the destroy_process_group() call) for each
    wrapper still kept there; lines count from the block's first line (1)."""
    problems = []
    for body in _scopes(ast.parse(code)):
        nodes = _scope_nodes(body)
        destroys = sorted(node.lineno for node in nodes if _called_name(node) == "destroy_process_group")
        if not destroys:
            continue
        bound: dict[str, int] = {}
        deleted: dict[str, list[int]] = {}
        for node in nodes:
            for kept in _kept_wrappers(node):
                bound[kept] = max(bound.get(kept, 0), node.lineno)
            if isinstance(node, ast.Delete):
                for target in node.targets:
                    for one in target.elts if isinstance(target, ast.Tuple) else [target]:
                        deleted.setdefault(ast.unparse(one), []).append(node.lineno)
        for kept, line in sorted(bound.items()):
            destroy = next((d for d in destroys if d > line), None)
            if destroy is not None and not any(line < d < destroy for d in deleted.get(kept, [])):
                problems.append((kept, line, destroy))
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
            "ddp = DDP(model)\nfor _ in range(2):\n    ddp = DDP(model)\ndel ddp\ndist.destroy_process_group()\n"
            "dist.init_process_group('gloo')\nddp, opt = DDP(model), None\nstate.ddp = DDP(model)\n"
            "DDP(model).register_comm_hook(None, hook)\ndel ddp, opt\ndist.destroy_process_group()\n")
    page = write_page(tmp_path, python_block(code))
    problems = page_problems(page)
    assert len(problems) == 2, problems
    in_function = next(problem for problem in problems if problem.startswith(f"{page}:9: "))
    assert in_function.startswith(f"{page}:9: dist.destroy_process_group() while 'ddp' (DDP, bound at line 8)")
    assert "`del ddp`" in in_function
    attribute = next(problem for problem in problems if problem.startswith(f"{page}:21: "))
    assert "while 'state.ddp' (DDP, bound at line 18)" in attribute and "`del state.ddp`" in attribute
