"""The build's MkDocs-specific layer stays thin, so that another builder (Zensical, a MkDocs fork) is a small change.

MkDocs 1.x is unmaintained and Material is in maintenance mode. The page
model and much of what the build adds to the pages (the generated notebooks,
the version notes, the question bank's data) live in ``sitepages``, which
imports no MkDocs; what a move would port is the hooks and the template
overrides. Two rules keep that layer portable: every hook event takes its
context by keyword, typed (Material's own style), and no template calls a
Python function (Zensical's MiniJinja cannot): the hooks hand templates their
data (``config.extra``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import jinja2
import pytest
from jinja2 import nodes

from sitepages import ROOT

TEMPLATES = sorted((ROOT / "docs" / "overrides").rglob("*.html"))
# The one call the templates may make: Material's own translation macro (partials/language.html).
ALLOWED_CALLS = {"lang.t"}


def hook_events(path: Path) -> list[ast.FunctionDef]:
    return [node for node in ast.parse(path.read_text(encoding="utf-8")).body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("on_")]


def signature_problems(event: ast.FunctionDef) -> list[str]:
    """What keeps an event function from Material's style: the item positional, its context keyword-only, all typed."""
    arguments = event.args
    problems = []
    if len(arguments.args) > 1:
        problems.append(f"takes {', '.join(a.arg for a in arguments.args[1:])} by position (put them after *)")
    unannotated = [a.arg for a in [*arguments.args, *arguments.kwonlyargs] if a.annotation is None]
    if unannotated:
        problems.append(f"has no type for {', '.join(unannotated)}")
    if event.returns is None:
        problems.append("has no return type")
    return [f"{event.name} (line {event.lineno}) {problem}" for problem in problems]


# quiet_log.py has no event: it quiets loggers when imported.
HOOKS = [path for path in sorted((ROOT / "docs" / "hooks").glob("*.py")) if hook_events(path)]


@pytest.mark.parametrize("hook", HOOKS, ids=lambda path: path.name)
def test_every_hook_event_takes_its_context_by_keyword_with_types(hook):
    events = hook_events(hook)
    problems = [problem for event in events for problem in signature_problems(event)]
    assert not problems, f"{hook.relative_to(ROOT)}: " + "; ".join(problems) + \
        " (e.g. def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:)"


def _dotted(node: nodes.Node) -> str:
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Getattr):
        return f"{_dotted(node.node)}.{node.attr}"
    return type(node).__name__


def template_calls(source: str) -> list[tuple[int, str]]:
    """(line, callee) of every call in a Jinja template, filters and tests aside."""
    tree = jinja2.Environment().parse(source)
    return [(call.lineno, _dotted(call.node)) for call in tree.find_all(nodes.Call)]


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.relative_to(ROOT / "docs").as_posix())
def test_no_template_calls_a_python_function(template):
    calls = [(line, callee) for line, callee in template_calls(template.read_text(encoding="utf-8"))
             if callee not in ALLOWED_CALLS]
    assert not calls, (
        f"{template.relative_to(ROOT)} calls "
        + ", ".join(f"{callee}() at line {line}" for line, callee in calls)
        + ": pass the data from a hook instead (config.extra, as docs/hooks/interface_language.py does)"
        " and fill {name} fields with Jinja's replace filter"
    )


def test_the_template_check_sees_a_python_call():
    """The check above would catch the calls the templates used to make."""
    old = '<p>{{ interface("templates", "not_found_text").format(home=home) }}</p>'
    assert [callee for _, callee in template_calls(old)] == ["Call.format", "interface"]
