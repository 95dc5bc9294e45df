"""Keep the notebook pages light and offline: no CDN scripts, only the CSS a page uses.

mkdocs-jupyter 0.26.3 renders each notebook with nbconvert's "lab" template and
puts into the page:

* a MathJax loader (``<script src="...">``, from cdnjs unless
  ``custom_mathjax_url`` is set; set to "" it becomes ``<script src="">``)
  and its configuration script, and a Mermaid loader that imports from
  cdnjs. The notebooks use neither maths nor diagrams: both are removed, so
  a notebook page asks nothing from outside the site;
* all of JupyterLab's stylesheet, about 575 KB inlined into every page, of
  which a notebook uses a few percent. Each ``<style>`` block is parsed with
  tinycss2 and pruned to the rules whose selectors can match the page (every
  class a selector names occurs in the page, or is one of the md-* classes
  Material's JavaScript adds), together with its @-rules, and the custom
  properties (--name) no kept rule uses are dropped;
* a stray ``<style>`` holding the Python ``repr`` of a list of CSS strings,
  which is not CSS; it is removed.

tests/test_built_notebook_pages.py checks the result: no ``https://`` script
or stylesheet, and the page weight.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import tinycss2
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from tinycss2.ast import AtRule, Declaration, FunctionBlock, IdentToken, LiteralToken, QualifiedRule

_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.S)
_STYLE = re.compile(r"(<style\b[^>]*>)(.*?)(</style>)", re.S)
_COMMENT = re.compile(r"<!-- (?:Load mathjax|MathJax configuration|End of mathjax configuration) -->")
_CLASS_ATTR = re.compile(r'class="([^"]*)"')
_GROUPING = ("media", "supports")  # at-rules whose content is rules, pruned like the top level


def _is_cdn_or_empty_loader(script: str) -> bool:
    opening = script[: script.index(">") + 1]
    return (
        'src=""' in opening
        or "text/x-mathjax-config" in opening
        or "mermaid" in script
        or re.search(r'src="https?://', opening) is not None
    )


def _rule_list(tokens) -> list:
    return [rule for rule in tokens if isinstance(rule, (QualifiedRule, AtRule)) and not (
        isinstance(rule, AtRule) and rule.content is None)]  # @charset, @import...: meaningless inside <style>


def _selectors(prelude: list) -> list[list]:
    """A rule's selector list, split at its top-level commas."""
    selectors: list[list] = [[]]
    for token in prelude:
        if isinstance(token, LiteralToken) and token.value == ",":
            selectors.append([])
        else:
            selectors[-1].append(token)
    return selectors


def _selector(selector: list) -> tuple[str, frozenset[str]] | None:
    """A selector's text and the classes a page must hold for it to match; None if it can match no page.

    Classes inside functional pseudo-classes such as :not() or :is() are not
    required. Material's JavaScript adds md-* classes at run time (e.g. it
    wraps tables in .md-typeset__scrollwrap), so those are never required.
    """
    text = tinycss2.serialize(selector).strip()
    if ":root" in text and not text.startswith(":root"):
        return None  # e.g. ".jupyter-wrapper :root": the root is nobody's descendant
    required = frozenset(
        name.value for dot, name in zip(selector, selector[1:], strict=False)
        if isinstance(dot, LiteralToken) and dot.value == "." and isinstance(name, IdentToken)
        and not name.value.startswith("md-")
    )
    return text, required


def _variables_used(tokens) -> set[str]:
    """Names of the custom properties var(--name) refers to, anywhere in the tokens."""
    used = set()
    for token in tokens or ():
        if isinstance(token, FunctionBlock):
            if token.lower_name == "var":
                first = next((t for t in token.arguments if t.type != "whitespace"), None)
                if isinstance(first, IdentToken) and first.value.startswith("--"):
                    used.add(first.value)
            used |= _variables_used(token.arguments)
        elif hasattr(token, "content") and token.content is not None:
            used |= _variables_used(token.content)
    return used


@dataclass(frozen=True)
class _Style:
    """A style rule: its selectors that can match some page, and its declarations as written out."""

    selectors: tuple[tuple[str, frozenset[str]], ...]  # (text, classes required)
    declarations: tuple[tuple[str, str, frozenset[str]], ...]  # (property, "property:value", custom properties used)


@dataclass(frozen=True)
class _Group:
    """@media or @supports: rules pruned like the top level."""

    prelude: str
    rules: tuple


@dataclass(frozen=True)
class _Verbatim:
    """Any other at-rule with a block (@font-face, @keyframes...), kept whole."""

    text: str
    variables: frozenset[str]


def _digest_rules(rules: list) -> tuple:
    digested = []
    for rule in rules:
        if isinstance(rule, AtRule):
            prelude = f"@{rule.at_keyword}{tinycss2.serialize(rule.prelude)}"
            if rule.lower_at_keyword in _GROUPING:
                nested = tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True)
                digested.append(_Group(prelude.rstrip(), _digest_rules(_rule_list(nested))))
            else:
                digested.append(_Verbatim(f"{prelude}{{{tinycss2.serialize(rule.content)}}}",
                                          frozenset(_variables_used(rule.content))))
            continue
        declarations = [
            d for d in tinycss2.parse_blocks_contents(rule.content, skip_comments=True, skip_whitespace=True)
            if isinstance(d, Declaration)
        ]
        digested.append(_Style(
            tuple(found for found in map(_selector, _selectors(rule.prelude)) if found is not None),
            tuple((d.name, f"{d.name}:{tinycss2.serialize(d.value).strip()}{'!important' if d.important else ''}",
                   frozenset(_variables_used(d.value))) for d in declarations),
        ))
    return tuple(digested)


@functools.lru_cache(maxsize=64)
def _digest(css: str) -> tuple:
    """The stylesheet parsed and digested once: every notebook page inlines the same CSS, and pruning
    it for a page is then only a check of each selector's classes against the page's."""
    return _digest_rules(_rule_list(tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)))


def _prune(rules: tuple, classes: set[str]) -> list:
    """The rules that can match the page: (selector text, _Style) pairs, (_Group, its kept rules), (_Verbatim, None)."""
    kept = []
    for rule in rules:
        if isinstance(rule, _Group):
            inner = _prune(rule.rules, classes)
            if inner:
                kept.append((rule, inner))
        elif isinstance(rule, _Verbatim):
            kept.append((rule, None))
        else:
            selectors = [text for text, required in rule.selectors if required <= classes]
            if selectors:
                kept.append((",".join(selectors), rule))
    return kept


def _serialize(kept, used: set[str]) -> str:
    out = []
    for head, rule in kept:
        if isinstance(head, _Verbatim):
            out.append(head.text)
        elif isinstance(head, _Group):
            inner = _serialize(rule, used)
            if inner:
                out.append(f"{head.prelude}{{{inner}}}")
        else:
            body = ";".join(text for name, text, _ in rule.declarations if not name.startswith("--") or name in used)
            if body:
                out.append(f"{head}{{{body}}}")
    return "".join(out)


def _used_variables(kept_sheets: list) -> set[str]:
    """The custom properties the kept rules use, directly or through other custom properties."""
    definitions: dict[str, set[str]] = {}
    used: set[str] = set()

    def collect(kept) -> None:
        for head, rule in kept:
            if isinstance(head, _Verbatim):
                used.update(head.variables)
            elif isinstance(head, _Group):
                collect(rule)
            else:
                for name, _, refers in rule.declarations:
                    if name.startswith("--"):
                        definitions.setdefault(name, set()).update(refers)
                    else:
                        used.update(refers)

    for kept in kept_sheets:
        collect(kept)
    pending = list(used)
    while pending:
        for name in definitions.get(pending.pop(), ()):
            if name not in used:
                used.add(name)
                pending.append(name)
    return used


def prune_stylesheets(stylesheets: list[str], classes: set[str]) -> list[str]:
    """Each stylesheet reduced to the rules that can match an element with these classes,
    without the custom properties that none of the kept rules of any sheet uses."""
    kept = [_prune(_digest(css), classes) for css in stylesheets]
    used = _used_variables(kept)
    return [_serialize(sheet, used) for sheet in kept]


def lighten(html: str) -> str:
    """The notebook's HTML without CDN loaders, its CSS pruned to what it uses."""
    html = _SCRIPT.sub(lambda m: "" if _is_cdn_or_empty_loader(m.group(0)) else m.group(0), html)
    html = _COMMENT.sub("", html)
    classes = {name for attr in _CLASS_ATTR.findall(html) for name in attr.split()}
    blocks = _STYLE.findall(html)
    pruned = iter(prune_stylesheets(
        ["" if css.lstrip().startswith("[") else css for _, css, _ in blocks],  # "[": a list's repr
        classes,
    ))

    def styles(match: re.Match) -> str:
        css = next(pruned)
        return f"{match.group(1)}{css}{match.group(3)}" if css else ""

    return _STYLE.sub(styles, html)


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri.endswith(".ipynb"):
        return lighten(html)
    return html
