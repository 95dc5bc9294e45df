"""Keep the notebook pages light and offline: no CDN scripts, only the CSS a page uses.

mkdocs-jupyter 0.26.3 renders each notebook with nbconvert's "lab" template and
puts into the page:

* a MathJax loader (``<script src="...">``, from cdnjs unless
  ``custom_mathjax_url`` is set; set to "" it becomes ``<script src="">``)
  and its configuration script, and a Mermaid loader that imports from
  cdnjs. The notebooks use neither maths nor diagrams: both are removed, so
  a notebook page asks nothing from outside the site;
* all of JupyterLab's stylesheet, about 575 KB inlined into every page, of
  which a notebook uses a few percent. Each ``<style>`` block is pruned to
  the rules whose selectors can match the page (every class a selector
  names occurs in the page, or is one of the md-* classes Material's
  JavaScript adds), together with its @-rules, and the custom properties
  (--name) no kept rule uses are dropped;
* a stray ``<style>`` holding the Python ``repr`` of a list of CSS strings,
  which is not CSS; it is removed.

tests/test_notebooks.py checks the result: no ``https://`` script or
stylesheet, and the page weight.
"""

from __future__ import annotations

import functools
import re

_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.S)
_STYLE = re.compile(r"(<style\b[^>]*>)(.*?)(</style>)", re.S)
_COMMENT = re.compile(r"<!-- (?:Load mathjax|MathJax configuration|End of mathjax configuration) -->")
_CLASS_ATTR = re.compile(r'class="([^"]*)"')
_CLASS_IN_SELECTOR = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_NOT = re.compile(r":not\([^()]*\)")
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def _is_cdn_or_empty_loader(script: str) -> bool:
    opening = script[: script.index(">") + 1]
    return (
        'src=""' in opening
        or "text/x-mathjax-config" in opening
        or "mermaid" in script
        or re.search(r'src="https?://', opening) is not None
    )


def _blocks(css: str):
    """Top-level (prelude, body) pairs of a stylesheet; body is None for statements."""
    i, n = 0, len(css)
    while i < n:
        j, depth, start, body_start = i, 0, i, None
        while j < n:
            c = css[j]
            if c in "\"'":  # skip a string, and the escapes in it
                j += 1
                while j < n and css[j] != c:
                    j += 2 if css[j] == "\\" else 1
                j += 1
                continue
            if css.startswith("/*", j):
                j = css.find("*/", j + 2)
                j = n if j < 0 else j + 2
                continue
            if c == ";" and depth == 0:
                yield css[start:j].strip(), None
                break
            if c == "{":
                if depth == 0:
                    body_start = j
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    yield css[start:body_start].strip(), css[body_start + 1 : j]
                    break
            j += 1
        i = j + 1


@functools.lru_cache(maxsize=64)
def _parsed(css: str) -> tuple[tuple[str, str | None], ...]:
    """``_blocks`` of a stylesheet, parsed once: every notebook page inlines the same CSS."""
    return tuple(_blocks(css))


def _split_selectors(prelude: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for c in prelude:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += c
    return [*parts, current]


def _can_match(selector: str, classes: set[str]) -> bool:
    if ":root" in selector and not selector.strip().startswith(":root"):
        return False  # e.g. ".jupyter-wrapper :root": the root is nobody's descendant
    while _NOT.search(selector):
        selector = _NOT.sub("", selector)
    # Material's JavaScript adds md-* classes at run time (e.g. it wraps tables
    # in .md-typeset__scrollwrap), so rules naming them are kept.
    return all(name in classes or name.startswith("md-") for name in _CLASS_IN_SELECTOR.findall(selector))


def _declarations(body: str) -> list[str]:
    """A rule body split at its top-level semicolons (not those in strings or url(...))."""
    parts, depth, quote, current = [], 0, "", ""
    for c in body:
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ";" and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += c
    return [part for part in [*parts, current] if part.strip()]


_VAR_USE = re.compile(r"var\(\s*(--[\w-]+)")
_VAR_DEFINITION = re.compile(r"^\s*(--[\w-]+)\s*:")


def drop_unused_variables(stylesheets: list[str]) -> list[str]:
    """Remove the custom properties (--name: ...) that no kept rule uses, even indirectly."""
    definitions: dict[str, list[str]] = {}
    used: set[str] = set()

    def collect(css: str) -> None:
        for prelude, body in _blocks(css):
            if body is None:
                continue
            if prelude.startswith("@") and not prelude.startswith(("@media", "@supports")):
                used.update(_VAR_USE.findall(body))
            elif prelude.startswith("@"):
                collect(body)
            else:
                for declaration in _declarations(body):
                    name = _VAR_DEFINITION.match(declaration)
                    if name:
                        definitions.setdefault(name.group(1), []).append(declaration)
                    else:
                        used.update(_VAR_USE.findall(declaration))

    for css in stylesheets:
        collect(css)
    pending = list(used)
    while pending:
        for value in definitions.get(pending.pop(), []):
            for name in _VAR_USE.findall(value):
                if name not in used:
                    used.add(name)
                    pending.append(name)

    def shake(css: str) -> str:
        out = []
        for prelude, body in _blocks(css):
            if body is None:
                continue
            if prelude.startswith(("@media", "@supports")):
                inner = shake(body)
                if inner:
                    out.append(f"{prelude}{{{inner}}}")
            elif prelude.startswith("@"):
                out.append(f"{prelude}{{{body}}}")
            else:
                kept = [
                    d for d in _declarations(body)
                    if not _VAR_DEFINITION.match(d) or _VAR_DEFINITION.match(d).group(1) in used
                ]
                if kept:
                    out.append(f"{prelude}{{{';'.join(kept)}}}")
        return "".join(out)

    return [shake(css) for css in stylesheets]


def prune_css(css: str, classes: set[str]) -> str:
    """The rules of ``css`` that can match an element with the given classes."""
    css = _CSS_COMMENT.sub("", css)  # "/* Keyword.Namespace */" is not a class
    kept = []
    for prelude, body in _parsed(css):
        if body is None or not prelude:
            continue  # @charset and the like: meaningless inside <style>
        if prelude.startswith(("@media", "@supports")):
            inner = prune_css(body, classes)
            if inner:
                kept.append(f"{prelude}{{{inner}}}")
        elif prelude.startswith("@"):
            kept.append(f"{prelude}{{{body}}}")
        else:
            selectors = [s for s in _split_selectors(prelude) if _can_match(s, classes)]
            if selectors:
                kept.append(f"{','.join(selectors)}{{{body}}}")
    return "".join(kept)


def lighten(html: str) -> str:
    """The notebook's HTML without CDN loaders, its CSS pruned to what it uses."""
    html = _SCRIPT.sub(lambda m: "" if _is_cdn_or_empty_loader(m.group(0)) else m.group(0), html)
    html = _COMMENT.sub("", html)
    classes = {name for attr in _CLASS_ATTR.findall(html) for name in attr.split()}

    blocks = _STYLE.findall(html)
    pruned = drop_unused_variables([
        "" if css.lstrip().startswith("[") else prune_css(css, classes)  # "[": a list's repr
        for _, css, _ in blocks
    ])
    replacements = iter(pruned)

    def styles(match: re.Match) -> str:
        css = next(replacements)
        return f"{match.group(1)}{css}{match.group(3)}" if css else ""

    return _STYLE.sub(styles, html)


def on_page_content(html: str, page, config, files) -> str:
    if page.file.src_uri.endswith(".ipynb"):
        return lighten(html)
    return html
