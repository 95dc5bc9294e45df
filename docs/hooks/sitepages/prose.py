"""The prose of a rendered page, as pieces of HTML that a build step may wrap: the one place that says
where the site adds tooltips and links to a page (``term_tooltips``, ``api_links``).

``pieces(html)`` cuts a page's HTML (what Python-Markdown gives, before the
theme) into ``Piece``s: ``text`` is a run of text of a paragraph, a list item
or a table cell; ``code`` is a whole inline ``<code>`` element there; all the
rest (tags, code blocks, headings, links, abbreviations, admonition titles,
the lines the hooks add under the title) is ``markup``, left as it is. A step
replaces the ``html`` of the pieces it changes and joins them again
(``"".join``): what it does not touch comes back byte for byte.

Why not a parser: the pages' HTML is Python-Markdown's, well formed, and a
scan of it with one regular expression costs a page a millisecond; an HTML
tree would cost the build seconds and rewrite every page's markup.
"""

from __future__ import annotations

import html as html_module
import re
from dataclasses import dataclass
from typing import Literal

# Elements whose text is prose where a tooltip or a link may go.
PROSE = frozenset({"p", "li", "td", "th", "dd", "dt"})
# Elements inside which nothing is added: code blocks (and inline code not taken whole), headings,
# links, tooltips, interface.
EXCLUDED = frozenset({"pre", "code", "h1", "h2", "h3", "h4", "h5", "h6", "a", "abbr", "button", "label", "summary",
                      "script", "style", "svg", "math", "kbd", "select", "textarea", "nav", "figcaption"})
# Classes of elements inside which nothing is added: admonition titles, the lines the hooks put under
# the title, the heading links' marks.
EXCLUDED_CLASSES = frozenset({"admonition-title", "verified-with", "notebook-download", "builds-on",
                              "headerlink", "torch-version-note", "md-annotation"})
# Inline code inside these is left as written: the short answer is read and copied at a glance.
NO_CODE_CLASSES = frozenset({"short-answer"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                   "wbr"})
_RAW = frozenset({"script", "style"})
_TOKEN = re.compile(
    r"<!--.*?-->"  # a comment
    r"|<(?P<close>/?)(?P<tag>[a-zA-Z][\w-]*)(?P<attrs>(?:[^>\"']|\"[^\"]*\"|'[^']*')*)>"  # a tag
    r"|[^<]+|<",  # text (a stray "<" too)
    re.DOTALL,
)
_CLASS = re.compile(r"""\bclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")


@dataclass
class Piece:
    html: str
    kind: Literal["markup", "text", "code"]

    @property
    def text(self) -> str:
        """What a reader sees of the piece: its text without tags, character references resolved."""
        return html_module.unescape(re.sub(r"<[^>]*>", "", self.html))


@dataclass(frozen=True)
class _Open:
    tag: str
    classes: frozenset[str]


def _classes(attrs: str) -> frozenset[str]:
    match = _CLASS.search(attrs)
    return frozenset(next(group for group in match.groups() if group is not None).split()) if match else frozenset()


def _where(stack: list[_Open]) -> tuple[bool, bool]:
    """(prose may change here, inline code may change here) for text under the open elements ``stack``."""
    if not any(element.tag in PROSE for element in stack):
        return False, False
    if any(element.tag in EXCLUDED or element.classes & EXCLUDED_CLASSES for element in stack):
        return False, False
    return True, not any(element.classes & NO_CODE_CLASSES for element in stack)


def pieces(html: str) -> list[Piece]:
    """The page's HTML cut into pieces whose ``html`` joins back into it exactly."""
    found: list[Piece] = []
    stack: list[_Open] = []
    position = 0
    while position < len(html):
        token = _TOKEN.match(html, position)
        assert token is not None  # the last alternative matches any character
        end = token.end()
        tag = (token["tag"] or "").lower()
        if not tag:  # text, a comment or a stray "<"
            prose, _ = _where(stack)
            kind = "text" if prose and not token.group().startswith("<") else "markup"
            found.append(Piece(token.group(), kind))
        elif token["close"]:
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth].tag == tag:
                    del stack[depth:]
                    break
            found.append(Piece(token.group(), "markup"))
        elif tag in _RAW:  # its content up to its end tag, as one piece
            close = html.lower().find(f"</{tag}", end)
            end = len(html) if close < 0 else html.index(">", close) + 1
            found.append(Piece(html[position:end], "markup"))
        elif tag == "code" and _where(stack)[1]:  # inline code in prose, with its end tag, as one piece
            close = html.find("</code>", end)
            end = len(html) if close < 0 else close + len("</code>")
            found.append(Piece(html[position:end], "code"))
        else:
            if tag not in _VOID and not token["attrs"].rstrip().endswith("/"):
                stack.append(_Open(tag, _classes(token["attrs"])))
            found.append(Piece(token.group(), "markup"))
        position = end
    return found


def join(found: list[Piece]) -> str:
    return "".join(piece.html for piece in found)
