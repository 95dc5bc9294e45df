"""Render the notebooks as pages in every language: a fix for mkdocs-static-i18n issue #198.

https://github.com/ultrabug/mkdocs-static-i18n/issues/198 (open upstream):
with mkdocs-jupyter and mkdocs-static-i18n together, a notebook's page comes
out as the notebook's raw JSON, in every language.

What goes wrong (mkdocs-jupyter 0.26.3, mkdocs-static-i18n 1.3.1):
mkdocs-jupyter's ``on_files`` wraps each ``.ipynb`` in a ``NotebookFile``,
whose ``is_documentation_page()`` says True, so MkDocs makes a page of it
with the destination ``notebooks/x/index.html``. mkdocs-static-i18n's
``on_files`` runs after it (priority -100) and rebuilds every file as a
plain ``mkdocs.structure.files.File`` (``folder.create_i18n_file``): it keeps
that destination but drops the wrapper. A plain File whose source ends in
``.ipynb`` is not a documentation page, so MkDocs copies the notebook, byte
for byte, to ``notebooks/x/index.html``.

Because the plugin took the notebook for an asset, it also recorded no
twin in the other language, so the language switcher pointed at the other
language's home page instead of the twin.

The fix: after the i18n plugin (priority -110), each notebook it kept becomes
a documentation page again, in place (same object, same destination), and
gets its twins as language alternates, made by the plugin's own
``create_i18n_file``. mkdocs-jupyter's ``on_pre_page`` then recognises the
page by its source path and renders it as usual.
tests/test_notebooks.py proves the built pages of both languages hold
rendered cells, not JSON.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs_static_i18n.folder import create_i18n_file


class NotebookPage(File):
    """A notebook the i18n plugin rebuilt as a plain File, made a page again."""

    def is_documentation_page(self) -> bool:
        return True


@event_priority(-110)  # after mkdocs-static-i18n's on_files (-100)
def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    jupyter, i18n = config.plugins["mkdocs-jupyter"], config.plugins["i18n"]
    notebooks = [
        f for f in files
        if f.inclusion.is_included() and not f.is_documentation_page() and jupyter.should_include(f)
    ]
    for file in notebooks:
        file.__class__ = NotebookPage  # keeps every attribute the i18n plugin set
        for language in i18n.build_languages:
            twin = f"{language}/{file.norm_src_uri}"
            if language not in file.alternates and (Path(config.docs_dir) / twin).is_file():
                page = NotebookPage(twin, config.docs_dir, config.site_dir, config.use_directory_urls)
                file.alternates[language] = create_i18n_file(
                    page, language, i18n.default_language, i18n.all_languages, config
                )
    if notebooks:
        # The sitemap's list of pages was taken before this fix.
        i18n.i18n_files_per_language[i18n.current_language] = files.documentation_pages()
    return files
