"""How a message of the error index (docs/data/autograd-messages.yml) matches what torch prints.

One rule, read by the search box (docs/hooks/error_message_lookup.py hands the
regular expressions to docs/assets/javascripts/search-message-lookup.js), by the
suite (tests/test_error_index.py) and by the tool that derives the list from
torch's source (tests/tools/autograd_messages): ``<...>`` in a listed text is
what varies and may be any text, a number may be any number, whitespace any
whitespace; everything else is literal.
"""

from __future__ import annotations

import re

_PARTS = re.compile(r"(<[^<>]*>|\d+|\s+)")


def message_regex(text: str) -> str:
    """The regular expression of a listed text, in the syntax Python's ``re`` and JavaScript's ``RegExp`` share.

    What varies stays within one line (``.*?``): the suite searches a page's whole output, where a hole must not
    join two lines; the search box collapses a query's whitespace first, so it holds one line anyway.
    """
    return "".join(
        ".*?" if part.startswith("<") and part.endswith(">") and len(part) > 2
        else r"\d+" if part.isdigit() else r"\s+" if part.isspace() else re.escape(part)
        for part in _PARTS.split(text) if part)


def printed_regex(type_: str, text: str) -> str:
    """The regular expression of a message as torch prints it: its type, a colon, its text."""
    return message_regex(f"{type_}: {text}")
