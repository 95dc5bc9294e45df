"""Offer every page as a runnable notebook, generated from the page itself at build time.

For each Markdown page with at least one executed ```python block, the build
writes ``NAME.ipynb`` beside the page's ``index.html`` (``leaf-nodes.md`` ->
``leaf-nodes/leaf-nodes.ipynb``; ``intermediate/index.md`` ->
``intermediate/intermediate.ipynb``) and puts a "Download as notebook" link
at the top of the page. What the notebook holds is ``sitepages.page_notebook``'s
(the page's prose and executed blocks, with the outputs the page shows).

A notebook page (docs/*/notebooks/*.ipynb) gets the same link, to the .ipynb
that mkdocs-jupyter copies beside it (``include_source: true``).

With a GitHub ``repo_url`` (REPO_URL), each link gets an "Open in Colab"
link beside it. Colab opens notebooks from a path on GitHub: a lab notebook
from the source branch (the one in ``edit_uri``), a generated notebook from
the branch the deploy workflow pushes the built site to
(PUBLISHED_BRANCH, .github/workflows/publish.yml). These are links, never
requests: nothing is fetched from Colab or GitHub when a page loads.

tests/test_page_notebooks.py checks that every generated notebook's code cells
are exactly the page's executed blocks and that the built site serves each
notebook at the URL its link names.
"""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from sitepages import PageFormatError, language_of
from sitepages.notebook import dumps
from sitepages.page_notebook import notebook_name, page_notebook
from sitepages.strings import strings

log = get_plugin_logger("page_notebooks")

# The branch .github/workflows/publish.yml pushes the built site to.
PUBLISHED_BRANCH = "gh-pages"


def colab_url(repo_url: str | None, branch: str, path: str) -> str | None:
    """Where Colab opens a notebook at ``path`` on ``branch`` of a GitHub repository; None elsewhere."""
    parts = urlsplit(repo_url or "")
    owner_repo = parts.path.strip("/").removesuffix(".git")
    if parts.netloc != "github.com" or owner_repo.count("/") != 1:
        return None
    return f"https://colab.research.google.com/github/{owner_repo}/blob/{branch}/{path}"


def _links(href: str, text: str, title: str, colab: str | None, language: str) -> str:
    links = f'<a class="md-button" href="{html.escape(href)}" download title="{html.escape(title)}">{text}</a>'
    if colab:
        words = strings("page_notebooks", language)
        links += (f' <a class="md-button" href="{html.escape(colab)}" title="{html.escape(words["colab_title"])}">'
                  f"{words['colab']}</a>")
    return f'<p class="notebook-download" data-search-exclude>{links}</p>'


def _after_title(content: str, link: str) -> str:
    end = content.find("</h1>")
    if end < 0:
        return link + content
    end += len("</h1>")
    return content[:end] + link + content[end:]


def on_page_content(content: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    src = Path(page.file.src_uri)
    language = language_of(src)
    if src.suffix == ".ipynb":
        if config.plugins["mkdocs-jupyter"].config["include_source"]:
            source_branch = (config.edit_uri or "edit/main/").split("/")[1]
            colab = colab_url(config.repo_url, source_branch, f"{config.docs_dir.rstrip('/').split('/')[-1]}/{src}")
            words = strings("page_notebooks", language)
            return _after_title(content, _links(src.name, words["notebook_link"], src.name, colab, language))
        return content
    try:
        nb = page_notebook(Path(page.file.abs_src_path))
    except PageFormatError as error:  # the page tests report it too; --strict fails on this
        log.warning(f"no notebook for {page.file.src_uri}: {error}")
        return content
    if nb is None:
        return content
    name = notebook_name(page.file.src_uri)
    target = Path(page.file.abs_dest_path).parent / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(dumps(nb), encoding="utf-8")
    published = Path(page.file.dest_uri).parent / name
    colab = colab_url(config.repo_url, PUBLISHED_BRANCH, published.as_posix())
    words = strings("page_notebooks", language)
    return _after_title(content, _links(name, words["link"], words["link_title"], colab, language))
