"""The interface strings the site's own code writes, per language: one table, docs/data/interface.yml.

    words = strings("verified_with", "zh")   # {"verified": "本页输出已在 ...", ...}
    words["verified"].format(version="2.13.0")

Every string must exist in every language of mkdocs.yml (``LANGUAGES``):
docs/data/interface.schema.json says so, and loading refuses the table
otherwise, naming the line.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .data import DataError, load
from .layout import DOCS, ROOT

INTERFACE = DOCS / "data" / "interface.yml"
SCHEMA = DOCS / "data" / "interface.schema.json"


class InterfaceStringError(DataError):
    """The table lacks a language, or holds something that is not a string per language; says where."""


@functools.cache
def _table(path: Path = INTERFACE) -> dict[str, dict[str, dict[str, str]]]:
    """group -> key -> language -> string, checked against docs/data/interface.schema.json."""
    return load(path, SCHEMA, InterfaceStringError).value


def strings(group: str, language: str) -> dict[str, str]:
    """The group's strings in one language."""
    try:
        found = _table()[group]
    except KeyError:
        raise KeyError(f"{INTERFACE.relative_to(ROOT)} has no group {group!r}") from None
    return {key: texts[language] for key, texts in found.items()}
