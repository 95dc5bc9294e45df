"""Visiting the built site in Chromium: browser contexts that stay on 127.0.0.1, and one visit per page.

``Visitor`` loads every page once, a chunk at a time, in two tabs (one loads while the other's
axe-core runs), and records in a ``Visit`` everything the per-page checks
read: console errors, requests, links, the language switcher's landing,
axe-core's serious and critical violations, the copy button's clipboard, the
width at 375 px. The fixtures in conftest.py make one ``Visitor`` per session.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sitepages import language_of
from tests.browser.harness import SiteServer, is_local

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 800}
# Everything except 127.0.0.1 (matched inside the driver: no Python round trip per request).
NOT_LOCAL = re.compile(r"^(?!(?:https?|wss?)://127\.0\.0\.1[:/])")


class Contexts:
    """Opens browser contexts that abort every request leaving 127.0.0.1, and remember them."""

    def __init__(self, browser):
        self.browser = browser
        self.opened = []
        self._blocked: dict[int, list[str]] = {}

    def __call__(self, **options):
        context = self.browser.new_context(viewport=DESKTOP, **options)
        blocked = self._blocked[id(context)] = []

        def block(route):
            blocked.append(route.request.url)
            route.abort("blockedbyclient")

        context.route(NOT_LOCAL, block)
        self.opened.append(context)
        return context

    def blocked(self, context) -> list[str]:
        """The requests this context tried to send away from 127.0.0.1."""
        return self._blocked[id(context)]

    def close(self):
        for context in self.opened:
            context.close()


@dataclass
class Visit:
    """What one load of one page showed; every per-page check reads it."""

    path: str
    console_errors: list[str] = field(default_factory=list)
    outside_requests: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    axe_violations: list[dict] | None = None  # serious and critical; None: axe-core is not installed
    phone_widths: tuple[int, int] = (0, 0)
    # At 375 px: the width of each table wider than the box it scrolls in (a reader would scroll it sideways).
    phone_wide_tables: list[int] = field(default_factory=list)
    switcher: dict[str, str] = field(default_factory=dict)
    switcher_target: str = ""  # where the switcher's link to the other language points (a site path)
    landed: str = ""  # where clicking it landed (on the pages of SWITCHER_CLICKED)
    images: list[str] = field(default_factory=list)  # src of every img in the content
    notebook_cells: dict | None = None  # None: not a notebook page
    # The first ```python block: the text its copy button copies (the element
    # its data-clipboard-target names), and the output block shown right after it
    # ("" when there is none).
    has_python: bool = False
    copy_target: str | None = None
    shown_output: str = ""


# Run in the page after load: what the checks need from the DOM.
COLLECT = """() => {
  const visible = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const block = document.querySelector('.md-content div.language-python.highlight');
  const button = block && block.querySelector('button[data-md-type=copy]');
  const target = button && document.querySelector(button.dataset.clipboardTarget);
  let output = '';
  const next = block && block.nextElementSibling;
  if (next && next.matches('div.language-text.highlight')
      && ['Output', '输出'].includes((next.querySelector('.filename') || {}).textContent)) {
    output = next.querySelector('code').textContent;
  }
  const wrapper = document.querySelector('.jupyter-wrapper');
  const cells = wrapper ? [...wrapper.querySelectorAll('.jp-Cell')] : [];
  return {
    links: [...document.querySelectorAll('a[href]')].map(a => a.href),
    switcher: Object.fromEntries([...document.querySelectorAll('a.md-select__link[hreflang]')]
                                    .map(a => [a.hreflang, a.href])),
    images: [...document.querySelectorAll('.md-content img')].map(img => img.getAttribute('src')),
    has_python: !!block,
    copy_target: target ? target.textContent : null,
    shown_output: output,
    notebook_cells: wrapper ? {
      cells: cells.length,
      visible: cells.filter(visible).length,
      code: cells.filter(c => c.matches('.jp-CodeCell') && visible(c) && c.querySelector('.jp-InputArea pre')).length,
      outputs: [...wrapper.querySelectorAll('.jp-OutputArea-output')].filter(visible).length,
      markdown: cells.filter(c => c.matches('.jp-MarkdownCell') && visible(c) && c.innerText.trim()).length,
    } : null,
  };
}"""

# The tables of the content wider than the box that scrolls them (Material wraps each in a scroll wrapper; a
# table outside one counts against the window).
WIDE_TABLES = """() => [...document.querySelectorAll('.md-content table')].filter(table => {
  const box = table.closest('.md-typeset__scrollwrap');
  return table.scrollWidth > (box ? box.clientWidth : window.innerWidth) + 1;
}).map(table => table.scrollWidth)"""

# axe-core on the whole document, started without waiting: the result is
# collected later, while the other tab loads its next page.
#
# Colour contrast dominates axe's time, and the pages share one stylesheet, so
# most of their text has colours already checked on another page. axe judges an
# element's contrast from its computed colour, font size and weight, and the
# backgrounds behind it. Each element that holds text gets that as a signature;
# the contrast rule runs only on elements whose signature no earlier page (in
# this colour scheme) has shown, and every other rule runs on the whole page.
# The assumption: an element is judged as another with the same signature is.
# (It does not cover text overlapped by another element; Material positions
# none over the content.)
#
# Most of every rule's time goes into the thousands of highlighted code tokens
# of a page, which come in few kinds: one token of each kind (its CSS class, in
# each kind of block and container) stays; the others, same colours on the same
# background, are unwrapped into plain text of their block, whose own colour is
# checked. (Excluding them by selector instead costs axe-core more.)
AXE_START = """checked => {
  const kinds = new Set();
  for (const token of document.querySelectorAll('.md-content pre span')) {
    if (token.children.length) continue;
    const block = token.closest('pre').parentElement;
    const around = token.closest('.admonition, details, .tabbed-block, .jp-Cell');
    const kind = [token.className, block.className, around ? around.className : ''].join('|');
    if (kinds.has(kind)) token.replaceWith(token.textContent);
    else kinds.add(kind);
  }
  const seen = new Set(checked);
  const fresh = new Set();
  const backgrounds = new Map();
  const behind = el => {
    if (!el) return '';
    if (backgrounds.has(el)) return backgrounds.get(el);
    const s = getComputedStyle(el);
    const own = [s.backgroundColor, s.backgroundImage, s.opacity, s.mixBlendMode].join(' ');
    const opaque = s.backgroundImage === 'none' && s.backgroundColor.startsWith('rgb(') && s.opacity === '1';
    const value = opaque ? own : own + ' / ' + behind(el.parentElement);
    backgrounds.set(el, value);
    return value;
  };
  const marked = [];
  for (const el of document.querySelectorAll('body *')) {
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const s = getComputedStyle(el);
    const signature = [s.color, s.fontSize, s.fontWeight, s.textShadow, behind(el)].join(' | ');
    if (seen.has(signature) || fresh.has(signature)) continue;
    fresh.add(signature);
    el.setAttribute('data-contrast-check', '');
    marked.push(el);
  }
  window.__axe_signatures = [...fresh];
  const quiet = {resultTypes: ['violations'], rules: {'color-contrast': {enabled: false}}};
  // After a timeout: axe.run does much of its work before its first await.
  window.__axe_result = new Promise(resolve => setTimeout(resolve, 0))
    .then(() => axe.run(document, quiet))
    .then(async other => {
      if (!marked.length) return other;
      const contrast = await axe.run({include: [['[data-contrast-check]']]},
                                     {resultTypes: ['violations'], runOnly: ['color-contrast']});
      return {violations: [...other.violations, ...contrast.violations]};
    });
}"""
# Only serious and critical violations are kept.
AXE_COLLECT = """async () => {
  const result = await window.__axe_result;
  return [window.__axe_signatures, result.violations.filter(v => ['serious', 'critical'].includes(v.impact)).map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary.split('\\n').slice(1, 2).join('').trim()),
  }))];
}"""

# Pages whose language switcher is clicked for real: the homes, whose links once
# were root-absolute, and a tutorial and a notebook page per language. That
# shows Material's script leaves the click where the link points; on the other
# pages the link's target is checked.
SWITCHER_CLICKED = {
    "/", "/zh/", "/leaf-nodes/", "/zh/leaf-nodes/", "/notebooks/layer-gradients/", "/zh/notebooks/layer-gradients/",
}

_EMPTIED_INDEX: dict = {}


def _empty_search_index(route) -> None:
    if not _EMPTIED_INDEX:
        _EMPTIED_INDEX.update(route.fetch().json(), docs=[])
    route.fulfill(json=_EMPTIED_INDEX)


SEARCH_WORKERS = re.compile(r"/workers/(search\.[0-9a-f]+\.min|lunr-token-set-fix)\.js(\?|$)")


def _idle_worker(route) -> None:
    route.fulfill(status=200, content_type="application/javascript", body="// no search in these visits\n")


def _stub_documents(route) -> None:
    if route.request.is_navigation_request():
        route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>stub</title>")
    else:
        route.fallback()


class Lane:
    """One tab. It records what happens while a visit is under way into that visit."""

    def __init__(self, context, server: SiteServer, axe: bool, contrast_checked: set[str]):
        self.server = server
        self.axe = axe
        self.contrast_checked = contrast_checked  # shared by the lanes of one Visitor (see AXE_START)
        self.page = context.new_page()
        self.current: Visit | None = None
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self._record("console_errors", f"uncaught: {error}"))
        self.page.on("request", self._request)
        self.page.on("requestfailed", self._failed)
        self.page.on("response", self._response)

    def _record(self, what: str, entry: str) -> None:
        if self.current is not None:
            getattr(self.current, what).append(entry)

    def _console(self, message) -> None:
        if message.type == "error":
            where = message.location.get("url", "")
            self._record("console_errors", f"{message.text} ({where})" if where else message.text)

    def _request(self, request) -> None:
        if not is_local(request.url):
            self._record("outside_requests", request.url)

    def _failed(self, request) -> None:
        # net::ERR_ABORTED: a load cancelled by navigating away; a missing file
        # is an HTTP error status, recorded by _response.
        if is_local(request.url) and request.failure != "net::ERR_ABORTED":
            self._record("failed_requests", f"{request.url}: {request.failure}")

    def _response(self, response) -> None:
        if response.status >= 400:
            self._record("failed_requests", f"{response.url}: HTTP {response.status}")

    def start(self, path: str) -> None:
        """Load the page at desktop width, read the DOM, start axe-core."""
        visit = self.current = Visit(path)
        page = self.page
        page.set_viewport_size(DESKTOP)
        page.goto(self.server.url(path), wait_until="load")
        for key, value in page.evaluate(COLLECT).items():
            setattr(visit, key, value)
        if self.axe:
            page.evaluate(AXE_START, sorted(self.contrast_checked))

    def finish(self) -> Visit:
        """Collect axe-core's result, measure at 375 px, follow the language switcher."""
        visit, page = self.current, self.page
        if self.axe:
            signatures, visit.axe_violations = page.evaluate(AXE_COLLECT)
            self.contrast_checked.update(signatures)
        page.set_viewport_size(PHONE)
        visit.phone_widths = tuple(page.evaluate(
            "() => [document.documentElement.scrollWidth, window.innerWidth]"))
        visit.phone_wide_tables = page.evaluate(WIDE_TABLES)
        self.current = None  # what follows belongs to the twin's own visit
        other = "zh" if language_of(visit.path) == "en" else "en"
        visit.switcher_target = self.server.site_path(visit.switcher.get(other, "")) or visit.switcher.get(other, "")
        link = page.locator(f"a.md-select__link[hreflang={other}]")
        if visit.path in SWITCHER_CLICKED and link.count() == 1:
            # A script click: the link sits in a hover menu, and Material's own
            # click handler (which may rewrite the target) still runs. Where it
            # lands is all this needs: the twin's document is a stub, so no time
            # goes into loading it (its own visit loads it for real).
            page.route("**/*", _stub_documents)
            try:
                with page.expect_navigation(wait_until="commit"):
                    link.evaluate("a => a.click()")
                visit.landed = self.server.site_path(page.url) or page.url
            finally:
                page.unroute("**/*", _stub_documents)
        return visit


class Visitor:
    """Visits every page once, in two tabs: one loads while the other's axe-core runs.

    Each tab has a browser context of its own, so Chromium gives each its own
    renderer process and the two can use two cores.
    """

    LANES = 2
    CHUNK = 24  # pages loaded per uncached visit: about half a minute on a CI machine

    def __init__(self, contexts: Contexts, server: SiteServer, pages: list[str], axe_source: str | None):
        self.pages = pages
        self.contexts = contexts
        contrast_checked: set[str] = set()
        self.lanes = []
        for _ in range(self.LANES):
            context = contexts()
            # Every page load makes Material start its search worker and build the
            # search index of the whole language there; these visits do not search
            # (test_search.py does, with the real index and worker), so they get an
            # index without pages and a worker that does nothing (Material's, and the
            # one that loads it to fix its lunr: docs/assets/javascripts/search-worker-fix.js).
            context.route("**/search/search_index.json", _empty_search_index)
            context.route(SEARCH_WORKERS, _idle_worker)
            if axe_source:
                context.add_init_script(axe_source)
            self.lanes.append(Lane(context, server, bool(axe_source), contrast_checked))
        self.context = self.lanes[0].page.context  # the one a single visit uses
        self.cache: dict[str, Visit] = {}

    def visit(self, path: str) -> Visit:
        """The visit of ``path``; a page not yet visited is loaded with the next few unvisited pages.

        A few, not all: the tests are parametrized in page order, so each test
        pays for a bounded chunk (a first test that visited all 742 pages ran
        past pytest's 600-second timeout on CI).
        """
        if path not in self.cache:
            start = self.pages.index(path) + 1 if path in self.pages else 0
            ahead = [p for p in self.pages[start:] + self.pages[:start] if p not in self.cache and p != path]
            self._visit_all([path] + ahead[:self.CHUNK - 1])
        return self.cache[path]

    def _visit_all(self, paths: list[str]) -> None:
        queue = list(paths)
        busy: list[Lane] = []
        while queue or busy:
            for lane in self.lanes:
                if lane in busy:
                    visit = lane.finish()
                    self.cache[visit.path] = visit
                    busy.remove(lane)
                if queue:
                    lane.start(queue.pop(0))
                    busy.append(lane)
