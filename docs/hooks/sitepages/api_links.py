"""Links from the PyTorch names in a page's prose to their pages in PyTorch's reference.

The map from a name as the pages write it (``torch.autograd.grad``,
``retain_grad``) to its object and its page is docs/data/api-links.yml (schema
beside it), written and checked by ``python -m tests.tools api_links``, which
resolves each object in the installed torch and builds its URL from the
layout of PyTorch's documentation. Nothing here imports torch or asks the
network for anything: the build reads the map and nothing else.

Inline code names an API when, without a call's parentheses (``retain_grad()``,
``torch.no_grad()``, ``torch.func.grad(f)``), it is a name of the map; a
method's name also with a receiver (``y.retain_grad()``,
``model.fc.register_forward_hook``), where the map says ``receiver: true``. A
name that is ambiguous on its own (``grad``: also the attribute ``.grad``) is
linked only on the pages the map lists for it (``only_on``).
"""

from __future__ import annotations

import functools
import html
import re
from dataclasses import dataclass
from pathlib import Path

from .data import DataError, load
from .layout import DOCS
from .prose import join, pieces

_NAME = re.compile(r"(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(.*\))*")


class ApiLinkDataError(DataError):
    """docs/data/api-links.yml breaks its schema."""


@dataclass(frozen=True)
class Api:
    name: str  # as the pages write it, without parentheses
    object: str  # the dotted name of the object in torch
    url: str  # its page, absolute
    receiver: bool  # a method: also linked as ``x.NAME``
    only_on: tuple[str, ...]  # the only pages (relative to docs/LANG/) where it is linked; () for all


@functools.cache
def apis(docs: Path = DOCS) -> dict[str, Api]:
    """The map of docs/data/api-links.yml: name as written -> Api."""
    data = load(docs / "data" / "api-links.yml", schema=docs / "data" / "api-links.schema.json",
                error=ApiLinkDataError)
    base = data.value["base"]
    for name, entry in data.value["names"].items():
        if "url" not in entry:
            raise data.error(("names", name), f"{name} has no url: run `python -m tests.tools api_links write`")
    return {name: Api(name, entry["object"], base + entry["url"], entry.get("receiver", False),
                      tuple(entry.get("only_on", ()))) for name, entry in data.value["names"].items()}


def api_of(code: str, known: dict[str, Api], page: str) -> Api | None:
    """The API that inline code ``code`` names on ``page`` (a path relative to docs/LANG/), or None."""
    match = _NAME.fullmatch(code.strip())
    if match is None:
        return None
    parts = match["name"].split(".")
    found = known.get(match["name"])
    for cut in range(1, len(parts)):  # y.grad_fn.register_hook: grad_fn.register_hook, then register_hook
        if found is not None:
            break
        method = known.get(".".join(parts[cut:]))
        found = method if method is not None and method.receiver else None
    if found is not None and found.only_on and page not in found.only_on:
        return None
    return found


def add_links(page_html: str, page: str, known: dict[str, Api]) -> str:
    """``page_html`` with the first inline code that names each API linked to its reference page."""
    done: set[str] = set()
    found = pieces(page_html)
    for piece in found:
        if piece.kind != "code":
            continue
        api = api_of(piece.text, known, page)
        if api is not None and api.object not in done:
            done.add(api.object)
            piece.html = f'<a class="api-link" href="{html.escape(api.url, quote=True)}">{piece.html}</a>'
    return join(found)
