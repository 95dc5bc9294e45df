"""Offer every page as a runnable notebook, generated from the page itself at build time.

For each Markdown page with at least one executed ```python block, the build
writes ``NAME.ipynb`` beside the page's ``index.html`` (``leaf-nodes.md`` ->
``leaf-nodes/leaf-nodes.ipynb``; ``intermediate/index.md`` ->
``intermediate/intermediate.ipynb``) and puts a "Download as notebook" link
at the top of the page. There is no second copy to drift: the prose becomes
markdown cells; each executed block becomes a code cell, in order, its
snippet includes expanded as the site shows them, with the output the page
shows (and the suite asserts) stored as the cell's output; a block the page
declares not run (``<!--pytest.mark.skip(...)-->``) stays in the markdown as
a fenced block with its reason; output blocks and the suite's markers are
left out.

A generated notebook's first code cell is one more: it prints the torch
version the reader runs and the one the page was verified with (the pin in
pyproject.toml); on Colab, or anywhere else, they may differ.

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
import re
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

# The notebook must hold exactly the code the suite runs and checks, so this
# hook reads pages with the parser the suite uses (which also expands snippet
# includes: a cell holds the code as it runs) and writes notebooks in the one
# canonical form, both from sitepages beside this file.
from sitepages import PageFormatError, language_of, parse_page
from sitepages.notebook import code_cell, dumps, markdown_cell, new_notebook
from sitepages.pins import pinned
from sitepages.strings import strings

log = get_plugin_logger("page_notebooks")

# The branch .github/workflows/publish.yml pushes the built site to.
PUBLISHED_BRANCH = "gh-pages"


def version_cell(language: str) -> dict:
    """The generated notebook's first code cell: the torch it runs, and the one its outputs come from."""
    return code_cell(
        f"import torch\n\n{strings('page_notebooks', language)['version_comment']}\n"
        f'print("running torch", torch.__version__, "| outputs verified with torch {pinned("torch")}")'
    )

_CONTAINER = re.compile(
    r'^ *(?:(?:!!!|\?\?\?\+?) *(?P<kind>[\w-]+)(?: +"(?P<title>[^"]*)")?|=== +"(?P<tab>[^"]*)") *$'
)


class _Prose:
    """Turns the page's Markdown between code blocks into plain Markdown Jupyter renders.

    Material's admonitions (``!!! note "Title"``) and content tabs
    (``=== "Tab"``) become a bold title, and their indented content is
    dedented so that Jupyter does not show it as a code block.
    """

    def __init__(self) -> None:
        self.open: list[int] = []  # indentation of the containers we are inside

    def convert(self, lines: list[str]) -> list[str]:
        out = []
        for line in lines:
            indent = len(line) - len(line.lstrip(" "))
            if line.strip():
                while self.open and indent <= self.open[-1]:
                    self.open.pop()
            text = line[min(indent, 4 * len(self.open)):] if line.strip() else ""
            container = _CONTAINER.match(line)
            if container:
                title = container["tab"] or container["title"] or container["kind"].capitalize()
                out += [f"**{title}**", ""]
                self.open.append(indent)
                continue
            out.append(text)
        return out


def notebook_name(src_uri: str) -> str:
    """The file name of a page's notebook: leaf-nodes.md -> leaf-nodes.ipynb, a/index.md -> a.ipynb."""
    path = Path(src_uri)
    if path.stem != "index":
        return f"{path.stem}.ipynb"
    return f"{path.parent.name}.ipynb" if len(path.parent.parts) > 1 else "index.ipynb"


def page_notebook(page: Path) -> dict | None:
    """The page as a notebook, or None when the page has no executed block."""
    blocks = parse_page(page)
    if not any(block.executed for block in blocks):
        return None
    language = language_of(page)
    lines = page.read_text(encoding="utf-8").splitlines()
    prose, cells, pending = _Prose(), [], []

    def flush() -> None:
        text = "\n".join(pending).strip("\n")
        if text:
            cells.append(markdown_cell(text))
        pending.clear()

    position = 1  # next line of the page not yet used
    if lines and lines[0] == "---":  # front matter (a search boost) is for MkDocs, not readers
        position = lines.index("---", 1) + 2
    for block in blocks:
        first = block.marker_line or block.line
        pending.extend(prose.convert(lines[position - 1 : first - 1]))
        position = block.end + 1
        if block.executed:
            flush()
            if not any(cell["cell_type"] == "code" for cell in cells):
                cells.append(version_cell(language))  # the first code cell, after the title and intro
            cells.append(code_cell(block.code, block.expected))
        else:
            indent = " " * block.indent
            shown = [indent + block.fence + block.info, *(indent + line for line in block.source.splitlines()),
                     indent + block.fence]
            if block.skip_reason:
                not_run = strings("page_notebooks", language)["not_run"]
                shown.insert(0, indent + not_run.format(block.skip_reason) + "\n")
            pending.extend(prose.convert(shown))
        if block.output:  # stored as its code cell's output, not shown again
            pending.extend(prose.convert(lines[position - 1 : block.output.marker_line - 1]))
            position = block.output.end + 1
    pending.extend(prose.convert(lines[position - 1 :]))
    flush()
    return new_notebook(cells)


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
