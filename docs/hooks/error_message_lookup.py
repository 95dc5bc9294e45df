"""The error index's messages, for the search box: a pasted message leads to its entry (a MkDocs hook).

A reader pastes an error message into the search box. Search ranks pages by the words they share with
the query, and the index holds messages that share most of their words: "a leaf Variable that requires
grad is being used in an in-place operation" and "a view of a leaf Variable that requires grad is being
used in an in-place operation" have their own entries, and the longer one ranked first for both. The
list of messages (docs/data/autograd-messages.yml) says which entry explains which message, so after
the build every language folder gets ``search/error-messages.json``: each message with an entry, as
``[type, text, entry, printed, whole]`` (``<...>`` in the text for what varies, the entry as its search
location, ``errors/ID/``, and the regular expressions of the message with and without its type, from
sitepages.messages: the rule the suite checks the pages with).
docs/assets/javascripts/search-message-lookup.js reads it on the first search and puts the entry of the
message a query holds first among the results; all other ranking stays Material's.
"""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from sitepages import DEFAULT_LANGUAGE, LANGUAGES, ROOT
from sitepages.data import DataError, load
from sitepages.messages import message_regex, printed_regex

DATA = ROOT / "docs/data/autograd-messages.yml"
SCHEMA = ROOT / "docs/data/autograd-messages.schema.json"


def lookup(docs: Path = ROOT / "docs", data: Path = DATA) -> list[list[str]]:
    """``[type, text, location, printed, whole]`` for every message whose entry page exists in every language; a message
    naming an entry that one language lacks is an error (file:line of the message)."""
    messages = load(data, SCHEMA)
    found = []
    for index, message in enumerate(messages.value["messages"]):
        entry = message.get("entry")
        if not entry:
            continue
        missing = [language for language in LANGUAGES if not (docs / language / entry).is_file()]
        if missing:
            raise messages.error(("messages", index, "entry"),
                                 f"entry {entry!r} of message {message['id']!r} has no page "
                                 + ", ".join(f"docs/{language}/{entry}" for language in missing))
        found.append([message["type"], message["text"], entry.removesuffix(".md") + "/",
                      printed_regex(message["type"], message["text"]), message_regex(message["text"])])
    return found


@event_priority(-200)  # after mkdocs-static-i18n (-100) has built every language
def on_post_build(*, config: MkDocsConfig) -> None:
    if config.plugins["i18n"].building:
        return  # a nested build of another language: the site is not whole yet
    try:
        messages = json.dumps(lookup(), ensure_ascii=False, separators=(",", ":"))
    except DataError as error:
        raise PluginError(f"error_message_lookup: {error}") from None
    site = Path(config.site_dir)
    for language in LANGUAGES:
        folder = site / ("" if language == DEFAULT_LANGUAGE else language) / "search"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "error-messages.json").write_text(messages, encoding="utf-8")
