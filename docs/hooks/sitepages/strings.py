"""The interface strings the site's own code writes, per language: one table, docs/data/interface.yml.

    words = strings("verified_with", "zh")   # {"verified": "本页输出已在 ...", ...}
    words["verified"].format(version="2.13.0")

Every string must exist in every language of mkdocs.yml (``LANGUAGES``);
loading refuses the table otherwise, naming the line.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

from .layout import DOCS, LANGUAGES, ROOT

INTERFACE = DOCS / "data" / "interface.yml"


class InterfaceStringError(ValueError):
    """The table lacks a language, or holds something that is not a string per language; says where."""


@functools.cache
def _table(path: Path = INTERFACE) -> dict[str, dict[str, dict[str, str]]]:
    root = yaml.compose(path.read_text(encoding="utf-8"))
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    table: dict[str, dict[str, dict[str, str]]] = {}
    for group_key, group in root.value:
        table[group_key.value] = {}
        for key, node in group.value:
            line = key.start_mark.line + 1
            texts = {language.value: text.value for language, text in node.value} if isinstance(
                node, yaml.MappingNode) else {}
            missing = [language for language in LANGUAGES if not isinstance(texts.get(language), str)]
            if missing:
                raise InterfaceStringError(f"{where}:{line}: {group_key.value}.{key.value} has no text in "
                                           f"{', '.join(missing)} (every string needs {', '.join(LANGUAGES)})")
            table[group_key.value][key.value] = texts
    return table


def strings(group: str, language: str) -> dict[str, str]:
    """The group's strings in one language."""
    try:
        found = _table()[group]
    except KeyError:
        raise KeyError(f"{INTERFACE.relative_to(ROOT)} has no group {group!r}") from None
    return {key: texts[language] for key, texts in found.items()}
