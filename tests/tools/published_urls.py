"""Add every page URL of both languages, with its section anchors, to docs/data/published-urls.yml.

    python -m tests.tools published_urls --check                   # what it would add; exit 1 if anything
    python -m tests.tools published_urls --write                   # add it
    python -m tests.tools published_urls --write --site /tmp/site  # from a site built already

Links are forever: a URL the site has published keeps working after its page
moves (a redirect in mkdocs.yml), and so does every #anchor it had (an explicit
heading id). The list is what tests/test_published_urls.py holds the built site
to. This tool builds the site (as the suite does, about 30 s) unless --site
names a build of the current sources, and adds to the list every page URL
(sitepages' ``page_url`` of every source: English at /, Chinese at /zh/) and
every heading id of its page. It never removes one: a URL or anchor the build
no longer has stays listed, and is reported, so that the test says what to do.
Run it before moving or splitting a page, on the sources as published, and
commit the list with the move (.github/CONTRIBUTING.md, "Moving or splitting a page").
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import yaml

from sitepages import DOCS, ROOT, page_url, sources
from sitepages.data import Data, load, parse
from tests.site_build import build_site, heading_ids, redirect_target

LIST = DOCS / "data" / "published-urls.yml"
SCHEMA = DOCS / "data" / "published-urls.schema.json"
COMMAND = "python -m tests.tools published_urls"
HEADER = f"""\
# yaml-language-server: $schema={SCHEMA.name}
# Every page URL the site has published, in both languages, with the section
# anchors (heading ids) each page had. Links are forever: none is ever removed.
# tests/test_published_urls.py checks that each URL still leads to a page (or a
# redirect to one, mkdocs.yml) that has each of its anchors. Written by
# `{COMMAND} --write`, which only adds
# (.github/CONTRIBUTING.md, "Moving or splitting a page").
"""


def listed(path: Path = LIST) -> Data:
    """The list, checked against its schema: ``value["urls"]`` maps a URL path to its anchors."""
    return load(path, SCHEMA)


def published_today(site: Path) -> dict[str, list[str]]:
    """URL path -> heading ids, for every page and notebook of both languages, from a built site."""
    found = {}
    for source in sources():
        url = page_url(source)
        html_file = site / url.lstrip("/") / "index.html"
        if not html_file.is_file():
            raise SystemExit(f"{html_file} is missing: {source.as_posix()} is not built there "
                             f"(is {site} a build of the current sources?)")
        html = html_file.read_text(encoding="utf-8")
        if redirect_target(html) is not None:
            raise SystemExit(f"{html_file} is a redirect, not the page of {source.as_posix()}")
        found[url] = heading_ids(html)
    return found


def merged(old: dict[str, list[str]], today: dict[str, list[str]]) -> tuple[dict[str, list[str]], list[str]]:
    """The list with what today's site adds (URLs sorted; a URL's anchors as listed, then its new ones in
    page order), and one line per URL or anchor added. Nothing listed is dropped."""
    urls = {url: list(anchors) for url, anchors in old.items()}
    added = []
    for url, anchors in today.items():
        if url not in urls:
            added.append(f"{url}: new URL, with {len(anchors)} anchors")
            urls[url] = []
        new = [anchor for anchor in anchors if anchor not in urls[url]]
        if new and old.get(url) is not None:
            added += [f"{url}#{anchor}: new anchor" for anchor in new]
        urls[url] += new
    return dict(sorted(urls.items())), added


def gone(old: dict[str, list[str]], today: dict[str, list[str]]) -> list[str]:
    """One line per listed URL or anchor that today's pages do not have (kept in the list)."""
    lines = []
    for url, anchors in old.items():
        if url not in today:
            lines.append(f"{url}: no page at this URL today (kept; it needs a redirect)")
        else:
            lines += [f"{url}#{anchor}: not on the page today (kept; it needs an explicit id or a redirect)"
                      for anchor in anchors if anchor not in today[url]]
    return lines


def text(urls: dict[str, list[str]]) -> str:
    """The file's text: the header, then ``urls:`` in YAML (Chinese ids as they are)."""
    body = yaml.safe_dump({"urls": urls}, allow_unicode=True, sort_keys=False, default_flow_style=False,
                          width=1000, indent=2)
    return HEADER + body


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="add today's URLs and anchors to the list")
    mode.add_argument("--check", action="store_true",
                      help="write nothing: say what --write would add; exit 1 if anything (a dry run)")
    parser.add_argument("--site", type=Path, help="a site built from the current sources (default: build one)")
    arguments = parser.parse_args()

    old = listed().value["urls"] if LIST.is_file() else {}
    if arguments.site:
        today = published_today(arguments.site)
    else:
        with tempfile.TemporaryDirectory() as folder:
            print("building the site (mkdocs build --strict)...", file=sys.stderr)
            result = build_site(Path(folder) / "site")
            if result.returncode != 0:
                print(result.stderr[-3000:], file=sys.stderr)
                print("the site did not build: fix the build first", file=sys.stderr)
                return 2
            today = published_today(Path(folder) / "site")

    urls, added = merged(old, today)
    for line in gone(old, today):
        print(line)
    anchors = sum(map(len, urls.values()))
    shown = LIST.relative_to(ROOT)
    if not added:
        print(f"{shown}: nothing to add ({len(urls)} URLs, {anchors} anchors listed)")
        return 0
    print("\n".join(added))
    if arguments.check:
        print(f"{shown}: {len(added)} to add; `{COMMAND} --write` adds them")
        return 1
    new_text = text(urls)
    if parse(new_text, LIST, SCHEMA).value["urls"] != urls:  # the YAML reads back as written, and fits the schema
        raise SystemExit(f"{shown}: the text written would not read back as the list")
    LIST.write_text(new_text, encoding="utf-8")
    print(f"{shown}: {len(added)} added ({len(urls)} URLs, {anchors} anchors listed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
