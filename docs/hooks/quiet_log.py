"""The build's log shows what a writer acts on: warnings, errors, and mkdocs' own progress and address.

Routine chatter of the plugins is dropped, at import time, before any of them
logs: mkdocs-static-i18n's per-language notes ("Building 'zh' documentation",
"Overriding 'zh' config ..."), mkdocs-jupyter's "Converting notebook" and
"Copied jupyter file" for every notebook, and jieba's four lines when it loads
its dictionary for Chinese search, and the date plugin's note on each page not
committed yet (it then shows the build date, as it should). Under ``mkdocs serve --dirty`` (the
README's command) mkdocs reports the dirty build itself and its stale files
on every rebuild; both are the mode the writer chose, not problems, and are
dropped too. Any other warning still fails ``mkdocs build --strict``.

Material's end-of-life banner is printed when the theme is imported, before
any hook is loaded; ``NO_MKDOCS_2_WARNING=1`` (README, .ci/run) silences it.
"""

from __future__ import annotations

import logging

import jieba

for name in ("mkdocs.plugins.mkdocs_static_i18n", "mkdocs.plugins.mkdocs_jupyter", "mkdocs.mkdocs-jupyter",
             "mkdocs.plugins.mkdocs_git_revision_date_localized_plugin"):
    logging.getLogger(name).setLevel(logging.WARNING)
jieba.setLogLevel(logging.WARNING)

_CHOSEN_MODE = ("A 'dirty' build is being performed", "The directory contains stale files")


class _DirtyBuildNotes(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_CHOSEN_MODE)


logging.getLogger("mkdocs.commands.build").addFilter(_DirtyBuildNotes())
