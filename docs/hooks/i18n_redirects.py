"""One entry of the redirect map redirects in every language: mkdocs-redirects with mkdocs-static-i18n.

mkdocs.yml's ``redirects`` plugin maps an old page to its new one in the
languages' shared paths, as ``nav`` names pages (``old.md: new/place.md``).
Unfixed (mkdocs-redirects 1.2.2, mkdocs-static-i18n 1.3.1), no such entry
works: the redirects plugin's ``on_files`` (priority 0) records the pages
before mkdocs-static-i18n's (-100) has moved them into their languages, so it
knows ``en/new/place.md`` at the URL ``en/new/place/`` (which is never
published) and ``new/place.md`` not at all ("Redirect target ... does not
exist"). An English entry written ``old.md: en/new/place.md`` redirects to
``/en/new/place/``, a 404; only Chinese entries written with their folder
(``zh/old.md: zh/new/place.md``) happened to work.

The fix: after the i18n plugin (priority -110), the redirects plugin is given,
for the language being built, the pages as the i18n plugin publishes them,
by their shared path, and the map with the language's folder in front of
each old page (``zh/old.md``, nothing for English, which is served at ``/``).
mkdocs-static-i18n builds each language in turn, so each entry writes
``/old/`` and ``/zh/old/``, each pointing, relatively, at its own language's
new page; a target missing in one language fails the strict build there.
tests/test_published_urls.py builds a scratch site with one entry and checks
both redirects.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files


@event_priority(-110)  # after mkdocs-static-i18n's on_files (-100), which moves the pages into their languages
def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    redirects, i18n = config.plugins.get("redirects"), config.plugins["i18n"]
    if redirects is None:
        return files
    language = i18n.current_language
    prefix = "" if language == i18n.default_language else f"{language}/"
    redirects.redirects = {prefix + old: new for old, new in redirects.config["redirect_maps"].items()}
    redirects.doc_pages = {file.norm_src_uri: file for file in files.documentation_pages()}
    return files
