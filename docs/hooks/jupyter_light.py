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


@functools.lru_cache(maxsize=64)
def _rules(css: str) -> tuple:
    """The stylesheet's rules, parsed once: every notebook page inlines the same CSS."""
    return tuple(
        rule for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
        if isinstance(rule, (QualifiedRule, AtRule))
    )


def _nested_rules(rule: AtRule) -> list:
    return [
        r for r in tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True)
        if isinstance(r, (QualifiedRule, AtRule))
    ]


def _selectors(prelude: list) -> list[list]:
    """A rule's selector list, split at its top-level commas."""
    selectors: list[list] = [[]]
    for token in prelude:
        if isinstance(token, LiteralToken) and token.value == ",":
            selectors.append([])
        else:
            selectors[-1].append(token)
    return selectors


def _can_match(selector: list, classes: set[str]) -> bool:
    """Whether every class the selector requires occurs in the page (classes inside
    functional pseudo-classes such as :not() or :is() are not required)."""
    text = tinycss2.serialize(selector).strip()
    if ":root" in text and not text.startswith(":root"):
        return False  # e.g. ".jupyter-wrapper :root": the root is nobody's descendant
    required = [
        name.value for dot, name in zip(selector, selector[1:], strict=False)
        if isinstance(dot, LiteralToken) and dot.value == "." and isinstance(name, IdentToken)
    ]
    # Material's JavaScript adds md-* classes at run time (e.g. it wraps tables
    # in .md-typeset__scrollwrap), so rules naming them are kept.
    return all(name in classes or name.startswith("md-") for name in required)


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


def _declarations(rule: QualifiedRule) -> list[Declaration]:
    return [
        d for d in tinycss2.parse_blocks_contents(rule.content, skip_comments=True, skip_whitespace=True)
        if isinstance(d, Declaration)
    ]


def _prune(rules, classes: set[str]) -> list:
    """The rules that can match the page, as (selector text, rule) pairs and kept @-rules."""
    kept = []
    for rule in rules:
        if isinstance(rule, AtRule):
            if rule.content is None:
                continue  # @charset, @import and the like: meaningless inside <style>
            if rule.lower_at_keyword in _GROUPING:
                inner = _prune(_nested_rules(rule), classes)
                if inner:
                    kept.append((rule, inner))
            else:
                kept.append((rule, None))
            continue
        selectors = [s for s in _selectors(rule.prelude) if _can_match(s, classes)]
        if selectors:
            kept.append((",".join(tinycss2.serialize(s).strip() for s in selectors), rule))
    return kept


def _serialize(kept, used: set[str]) -> str:
    out = []
    for head, rule in kept:
        if isinstance(head, AtRule):
            prelude = f"@{head.at_keyword}{tinycss2.serialize(head.prelude)}"
            if rule is None:
                out.append(f"{prelude}{{{tinycss2.serialize(head.content)}}}")
            else:
                inner = _serialize(rule, used)
                if inner:
                    out.append(f"{prelude.rstrip()}{{{inner}}}")
            continue
        declarations = [
            d for d in _declarations(rule) if not d.name.startswith("--") or d.name in used
        ]
        if declarations:
            body = ";".join(f"{d.name}:{tinycss2.serialize(d.value).strip()}{'!important' if d.important else ''}"
                            for d in declarations)
            out.append(f"{head}{{{body}}}")
    return "".join(out)


def _used_variables(kept_sheets: list) -> set[str]:
    """The custom properties the kept rules use, directly or through other custom properties."""
    definitions: dict[str, set[str]] = {}
    used: set[str] = set()

    def collect(kept) -> None:
        for head, rule in kept:
            if isinstance(head, AtRule):
                if rule is None:
                    used.update(_variables_used(head.content))
                else:
                    collect(rule)
                continue
            for declaration in _declarations(rule):
                refers = _variables_used(declaration.value)
                if declaration.name.startswith("--"):
                    definitions.setdefault(declaration.name, set()).update(refers)
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
    kept = [_prune(_rules(css), classes) for css in stylesheets]
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
