"""Links to the repository only when there is one: no edit_uri without REPO_URL.

mkdocs.yml reads repo_url from REPO_URL and sets the relative edit_uri
(edit/main/docs/) that Material's "Edit this page" and "View source" buttons
append to it. A build without REPO_URL has no repository to link, and MkDocs
warns (so --strict fails) about a relative edit_uri with no repo_url: it is
dropped, and with it every edit, source, report and Colab link.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if not config.repo_url:
        config.edit_uri = None
    return config
