"""An old link to a section that moved to another page takes the reader to its new place.

A split page keeps each moved section's old id on a link to where the section
went (`[Title](new.md#id){ #old-id .moved }`, CONTRIBUTING, "Moving or
splitting a page"); docs/assets/javascripts/moved-anchors.js follows that link
when the reader opens the old URL with that #old-id. Every such link of the
built site is opened here, in both languages.
"""

from __future__ import annotations

from urllib.parse import unquote, urljoin, urlsplit

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.site_build import parsed


def moved_links(site_dir) -> list[tuple[str, str, str]]:
    """(page URL path, old id, the URL path#id it forwards to) for every a.moved of the built site."""
    found = []
    for html in sorted(site_dir.rglob("index.html")):
        text = html.read_text(encoding="utf-8")
        if "moved" not in text:
            continue
        url = "/" + html.parent.relative_to(site_dir).as_posix().strip(".") + "/"
        url = url.replace("//", "/")
        for link in parsed(text).select("a.moved[id][href]"):
            target = urlsplit(urljoin(f"http://site{url}", link["href"]))
            found.append((url, link["id"], target.path + (f"#{unquote(target.fragment)}" if target.fragment else "")))
    return found


def test_every_moved_anchor_forwards_the_reader(new_context, server, site_dir):
    links = moved_links(site_dir)
    assert links, "no page of the built site has a moved section's link (a.moved[id]): is the markup gone?"
    context = new_context()
    page = context.new_page()
    wrong = []
    for url, old_id, target in links:
        page.goto(server.url(f"{url}#{old_id}"), wait_until="load")
        try:
            page.wait_for_url(lambda now, target=target: server.site_path(now.split("#")[0]) == target.split("#")[0],
                              timeout=5000)
        except PlaywrightTimeout:
            wrong.append(f"{url}#{old_id}: stayed on {page.url} instead of going on to {target}")
            continue
        fragment = unquote(urlsplit(page.url).fragment)
        landed = server.site_path(page.url.split("#")[0]) + (f"#{fragment}" if fragment else "")
        if landed != target:
            wrong.append(f"{url}#{old_id}: landed on {landed}, expected {target}")
        elif "#" in target and not page.evaluate("id => !!document.getElementById(id)", target.split("#", 1)[1]):
            wrong.append(f"{url}#{old_id}: forwarded to {target}, which has no element with that id")
    context.close()
    assert not wrong, "\n".join(wrong)
