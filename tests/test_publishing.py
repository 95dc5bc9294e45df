"""The site is ready to publish: addresses from SITE_URL and REPO_URL, links that work under a sub-path.

The suite builds the site as it is published (conftest.py: SITE_URL under a
sub-path, a GitHub REPO_URL). Then:

* canonical links, the sitemap and its language alternates are under SITE_URL;
* every page links "Edit this page", "View source" and "Report a problem with
  this page" on REPO_URL, and a page with code says which torch verified it (the pin); a page without
  executed code carries no such line (nothing on it ran);
* every notebook, lab or generated, can be opened in Colab from its path on GitHub;
* no internal link is root-absolute (a 404 page, served at any depth, links
  from SITE_URL's path); the browser tests serve the site under that
  sub-path and follow every link there;
* a plain build, with neither variable and without tests/, names no host.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlsplit
from xml.etree import ElementTree

import page_notebooks
import pytest
import yaml
from bs4 import BeautifulSoup, SoupStrainer

from sitepages import LANGUAGES, ROOT, language_of, page_id, page_url, parse, sources, twin
from sitepages.page_notebook import page_notebook
from sitepages.pins import pinned
from tests.site_build import REPO_URL, SITE_URL, SUBPATH, build_site, parsed

SOURCES = sources()


@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_canonical_link_is_under_site_url(built_page, source):
    canonical = built_page(page_url(source)).select_one('link[rel="canonical"]')
    assert canonical is not None and canonical["href"] == SITE_URL + page_url(source).lstrip("/")


def test_sitemap_lists_every_page_under_site_url_with_its_twin(built_site):
    site, _ = built_site
    tree = ElementTree.parse(site / "sitemap.xml")
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    listed = {url.findtext("s:loc", namespaces=ns): {
        link.get("hreflang"): link.get("href") for link in url.findall("x:link", ns)
    } for url in tree.getroot()}
    expected = {SITE_URL + page_url(source).lstrip("/") for source in SOURCES}
    assert set(listed) == expected
    for source in SOURCES:
        alternates = listed[SITE_URL + page_url(source).lstrip("/")]
        assert alternates == {lang: SITE_URL + page_url(twin(source, lang)).lstrip("/") for lang in LANGUAGES}


@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_page_links_edit_view_and_report_on_the_repository(built_page, source):
    soup = built_page(page_url(source))
    src = page_id(source)
    edit = soup.select_one('a.md-content__button[rel="edit"]')
    assert edit is not None and edit["href"] == f"{REPO_URL}/edit/main/docs/{src}"
    assert soup.select_one(f'a.md-content__button[href="{REPO_URL}/raw/main/docs/{src}"]'), "no View source link"
    report = soup.select_one("a[data-report-problem]")
    assert report is not None, "no Report a problem link"
    address = urlsplit(report["href"])
    assert f"{address.scheme}://{address.netloc}{address.path}" == f"{REPO_URL}/issues/new"
    query = parse_qs(address.query)
    assert SITE_URL + page_url(source).lstrip("/") in query["body"][0] and f"docs/{src}" in query["body"][0]
    assert query["title"][0].startswith("页面问题：" if language_of(source) == "zh" else "Problem on page: ")


@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_page_says_which_torch_verified_it(built_page, source):
    line = built_page(page_url(source)).select_one("p.verified-with")
    if not any(block.executed for block in parse(source)):
        assert line is None, f"{source} runs no code, but says it was verified: {line.get_text()!r}"
        return
    assert line is not None, "no verified-with line"
    assert f"torch {pinned('torch')}" in line.get_text()
    assert ("最后修改于" if language_of(source) == "zh" else "last changed") in line.get_text()


@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_every_notebook_opens_in_colab_from_its_path_on_github(built_page, source):
    soup = built_page(page_url(source))
    download = soup.select_one("p.notebook-download a[download]")
    if download is None:
        assert source.suffix == ".md" and page_notebook(ROOT / source) is None
        return
    colab = soup.select_one('p.notebook-download a[href^="https://colab.research.google.com/github/"]')
    assert colab is not None, f"{source}: a notebook without an Open in Colab link"
    repository = urlsplit(REPO_URL).path.strip("/")
    if source.suffix == ".ipynb":
        wanted = f"{repository}/blob/main/{source.as_posix()}"
    else:
        wanted = f"{repository}/blob/{page_notebooks.PUBLISHED_BRANCH}/{page_url(source).lstrip('/')}{download['href']}"
    assert colab["href"] == f"https://colab.research.google.com/github/{wanted}"


def _links(soup: BeautifulSoup) -> list[str]:
    return [tag.get("href") or tag.get("src") for tag in soup.select("[href], [src]")]


@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_no_internal_link_is_root_absolute(built_page, source):
    links = _links(built_page(page_url(source)))
    rooted = [link for link in links if link.startswith("/") and not link.startswith("//")]
    assert not rooted, f"{source}: root-absolute links break under a sub-path: {rooted[:5]}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_404_page_links_from_the_site_url_path(built_site, language):
    site, _ = built_site
    page = site / ("404.html" if language == "en" else "zh/404.html")
    links = _links(parsed(page.read_text(encoding="utf-8")))
    rooted = [link for link in links if link.startswith("/") and not link.startswith("//")]
    outside = [link for link in rooted if not link.startswith(SUBPATH)]
    assert rooted and not outside, outside


# --- a plain build: no variables, no tests/ -------------------------------------------


@pytest.fixture(scope="module")
def plain_build(tmp_path_factory) -> Path:
    """`mkdocs build --strict` in a copy of the repository without tests/ and without SITE_URL and REPO_URL."""
    copy = tmp_path_factory.mktemp("plain") / "repository"
    copy.mkdir()
    for name in ("docs", "snippets", "mkdocs.yml", "pyproject.toml"):
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(ROOT / name, copy / name)
    result = build_site(copy / "site", cwd=copy, published=False)
    assert result.returncode == 0, \
        f"the build needs something outside docs/, snippets/ and mkdocs.yml:\n{result.stderr[-3000:]}"
    return copy / "site"


def test_a_plain_build_names_no_host(plain_build):
    """No address of the site names a host: links, sources, canonical and alternate links, the sitemap.
    (Page text may mention 127.0.0.1: the distributed-training page's code connects there.)"""
    sitemap = ElementTree.parse(plain_build / "sitemap.xml")
    addresses = [element.text or element.get("href", "") for element in sitemap.iter()
                 if element.tag.endswith(("}loc", "}link"))]
    named = [f"sitemap.xml: {address}" for address in addresses if urlsplit(address).netloc]
    for file in plain_build.rglob("*.html"):
        soup = parsed(file.read_text(encoding="utf-8"), SoupStrainer(["a", "link", "script", "img"]))
        named += [f"{file.relative_to(plain_build)}: {link}" for link in _links(soup)
                  if urlsplit(link).hostname in ("127.0.0.1", "localhost")]
    assert not named, named
    home = parsed((plain_build / "index.html").read_text(encoding="utf-8"))
    assert home.select_one('link[rel="canonical"]') is None
    assert home.select_one('a[rel="edit"]') is None and home.select_one("a[data-report-problem]") is None
    leaf = parsed((plain_build / "leaf-nodes" / "index.html").read_text(encoding="utf-8"))
    assert leaf.select_one("p.notebook-download a[download]") is not None
    assert leaf.select_one('a[href*="colab.research.google.com"]') is None


# --- the deploy workflow ------------------------------------------------------------------


def test_the_publish_workflow_tests_then_deploys_to_pages(tmp_path):
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "publish.yml").read_text(encoding="utf-8"))
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as True
    assert triggers["push"]["branches"] == ["main"]
    test, publish = workflow["jobs"]["test"], workflow["jobs"]["publish"]
    assert any(step.get("run") == "bash .ci/run" for step in test["steps"]), "the test job must run .ci/run"
    assert publish["needs"] == "test"
    build = next(step for step in publish["steps"] if "mkdocs build" in step.get("run", ""))
    assert build["env"]["SITE_URL"].startswith("${{ steps.pages.outputs.base_url }}")
    assert build["env"]["REPO_URL"] == "${{ github.server_url }}/${{ github.repository }}"
    uses = [step.get("uses", "").split("@")[0] for step in publish["steps"]]
    assert {"actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"} <= set(uses)
    push = next(step["run"] for step in publish["steps"] if "ghp-import" in step.get("run", ""))
    assert f"--branch {page_notebooks.PUBLISHED_BRANCH}" in push


# --- abbreviations, from the glossary -------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_glossary_abbreviation_has_its_tooltip_where_it_is_used(built_page, language):
    from glossary_abbreviations import abbreviations

    defined = abbreviations(ROOT / "docs" / language / "glossary.md", language)
    assert {abbr for abbr, _ in defined} >= {"DDP", "BPTT", "VJP"}
    missing = []
    for abbr, tooltip in defined:
        shown = [source for source in sources(language)
                 if built_page(page_url(source)).select_one(f'article abbr[title="{tooltip}"]')]
        if not shown:
            missing.append(f"{abbr}: no {language} page shows it with the glossary's tooltip")
    assert not missing, "\n".join(missing)
