"""The interface strings of docs/data/interface.yml: every string in every language, and a missing one refused."""

from __future__ import annotations

import re

import pytest

from sitepages import LANGUAGES
from sitepages.strings import INTERFACE, InterfaceStringError, _table

# English inflects for number ("print{s}"); other languages need not.
INFLECTIONS = {"s", "es", "verb"}


def test_every_string_fills_in_the_same_fields_in_every_language():
    problems = []
    for group, entries in _table().items():
        for key, texts in entries.items():
            fields = {language: set(re.findall(r"\{(\w*)\}", texts[language])) - INFLECTIONS for language in LANGUAGES}
            if len({frozenset(found) for found in fields.values()}) > 1:
                problems.append(f"{group}.{key}: the languages fill in different fields {fields}")
    assert not problems, f"{INTERFACE}:\n" + "\n".join(problems)


def test_a_string_missing_in_a_language_is_refused_with_its_line(tmp_path):
    broken = tmp_path / "interface.yml"
    broken.write_text("page_chrome:\n  copied:\n    en: Copied!\n  permalink_title:\n    en: Permanent link\n"
                      "    zh: 本节链接\n", encoding="utf-8")
    missing = r"interface.yml:2: page_chrome.copied: missing 'zh'; expected the string in every language"
    with pytest.raises(InterfaceStringError, match=missing):
        _table(broken)
