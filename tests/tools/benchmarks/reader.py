"""How long each page is for a reader, in screens, and where its short answer starts.

One command, from the repository root:

    python -m tests.tools benchmarks.reader [--site DIR] [--pages GLOB] [--dry-run]

It builds the site (`mkdocs build --strict`, into a temporary folder) unless
--site names a built one, serves it on 127.0.0.1 with the browser tests'
server, and opens every page of mkdocs.yml's nav, in both languages, in
Debian's Chromium (Playwright), once at 1280x800 and once on a phone at
375x740. After the page, its images and its fonts have loaded, it reads:

- the page's height in screens: the document's scroll height / 800 on the
  desktop, / 740 on the phone;
- where the short answer starts: the top of the first element with the CSS
  class `short-answer`, in screens (of 800 px) from the top of the page at
  1280x800, or "none" when the page has none.

It prints a table (page, language, screens desktop, screens phone, short
answer at), then per language: the whole site, the median page, the pages
over 20 screens (desktop), the pages whose short answer starts in the first
screen (start < 1.0) as a count and share of the pages that show code (at
least one code block or notebook code cell in their source), and the
learners' path: the sum of the pages of the nav section titled "Start here"
if mkdocs.yml has one, otherwise of the reviewed core (CORE below). It
names the pages it summed.

Nothing is timed, but the first line still says when and where it measured,
and the next lines name the fonts Chromium drew each language's text with:
the site uses the system's fonts (mkdocs.yml: `font: false`), so a page's
height depends on the fonts the machine has. English text falls back to
whatever Helvetica or Arial resolve to (DejaVu Sans on a bare Debian, a font
wider than Arial); Chinese text, Latin letters included, to Noto Sans CJK.
Compare only numbers measured with the same fonts.
"""

from __future__ import annotations

import argparse
import fnmatch
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sitepages import LANGUAGES, ROOT, page_url, parse
from sitepages.data import load
from tests.browser.harness import CHROMIUM, CHROMIUM_ARGS, SiteServer
from tests.tools.benchmarks.common import load_averages, measured_on, site_to_measure

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 375, "height": 740}}
SHORT_ANSWER_CLASS = "short-answer"
START_HERE = "Start here"
# The learners' core that the reader review (reader-t4) measured, summed until the nav has a "Start here" section.
CORE = ("leaf-nodes.md", "retain-graph.md", "turning-gradients-off.md", "intermediate/index.md",
        "intermediate/hooks.md")
LONG = 20.0  # screens: a page over this is counted as long
FIRST_SCREEN = 1.0

# Run in the page once it has loaded: lazy images are made eager and awaited, then fonts, so that the
# height is the one a reader who scrolls to the end sees.
MEASURE_JS = """async (shortAnswerClass) => {
    const images = [...document.images];
    for (const image of images) image.loading = "eager";
    await Promise.all(images.map(image => image.complete ? null :
        new Promise(done => { image.addEventListener("load", done); image.addEventListener("error", done); })));
    await document.fonts.ready;
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    const first = document.querySelector("." + shortAnswerClass);
    return {
        height: Math.max(document.documentElement.scrollHeight, document.body.scrollHeight),
        shortAnswer: first ? first.getBoundingClientRect().top + window.scrollY : null,
    };
}"""


@dataclass
class Page:
    """One nav entry in one language."""

    nav_path: str  # as nav lists it: intermediate/hooks.md
    section: str  # the nav section it is under ("" at the top level)
    language: str
    source: Path = field(init=False)
    url: str = field(init=False)
    shows_code: bool = field(init=False)
    screens: dict[str, float] = field(default_factory=dict)
    short_answer: float | None = None

    def __post_init__(self) -> None:
        self.source = Path("docs", self.language, self.nav_path)
        if not (ROOT / self.source).is_file():
            raise SystemExit(f"mkdocs.yml's nav lists {self.nav_path!r}, but {self.source} does not exist")
        self.url = page_url(self.source)
        self.shows_code = bool(parse(ROOT / self.source))


def nav_pages(nav: list, section: str = "") -> list[tuple[str, str]]:
    """(nav path, title of the section it is under) of every page of the nav, in nav order."""
    found = []
    for item in nav:
        if isinstance(item, str):
            found.append((item, section))
            continue
        if not isinstance(item, dict) or len(item) != 1:
            raise SystemExit(f"mkdocs.yml: a nav entry should be `Title: page.md` or `Title: [...]`, got {item!r}")
        [(title, value)] = item.items()
        if isinstance(value, list):
            found += nav_pages(value, title)
        else:
            found.append((value, section))
    return found


def learners_path(entries: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """Which pages make the learners' path, and where that list comes from."""
    listed = [path for path, section in entries if section.casefold() == START_HERE.casefold()]
    if listed:
        return f'the nav section "{START_HERE}"', listed
    missing = [path for path in CORE if path not in {path for path, _ in entries}]
    if missing:
        raise SystemExit(f"the reviewed core lists pages that are not in mkdocs.yml's nav: {', '.join(missing)} "
                         f"(update CORE in {Path(__file__).relative_to(ROOT)}, or add a {START_HERE!r} section)")
    return f'the reviewed core (mkdocs.yml has no "{START_HERE}" section yet)', list(CORE)


def rendering_fonts(tab) -> str:
    """The fonts Chromium drew the first paragraph of the page's text with, most glyphs first: the site uses the
    system's fonts (theme font: false), so a page's height depends on which the machine has."""
    session = tab.context.new_cdp_session(tab)
    try:
        session.send("DOM.enable")
        session.send("CSS.enable")
        document = session.send("DOM.getDocument", {"depth": 0})
        node = session.send("DOM.querySelector", {"nodeId": document["root"]["nodeId"],
                                                  "selector": ".md-content .md-typeset p"})["nodeId"]
        if not node:
            return "no paragraph found"
        text = session.send("DOM.describeNode", {"nodeId": node, "depth": 1})["node"].get("children", [])
        target = next((child["backendNodeId"] for child in text if child["nodeType"] == 3), None)
        if target is not None:
            node = session.send("DOM.pushNodesByBackendIdsToFrontend", {"backendNodeIds": [target]})["nodeIds"][0]
        fonts = session.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    finally:
        session.detach()
    return ", ".join(f"{font['familyName']} ({font['glyphCount']} glyphs)"
                     for font in sorted(fonts, key=lambda font: -font["glyphCount"])) or "none reported"


def measure(site: Path, pages: list[Page]) -> dict[str, str]:
    """Fill in each page's screens and short answer; return the fonts of each language's text (desktop)."""
    from playwright.sync_api import sync_playwright

    fonts: dict[str, str] = {}
    with SiteServer(site) as server, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for name, viewport in VIEWPORTS.items():
            phone = name == "phone"
            context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone,
                                          device_scale_factor=2 if phone else 1)
            tab = context.new_page()
            for page in pages:
                response = tab.goto(server.url(page.url), wait_until="load")
                if response is None or response.status != 200:
                    raise SystemExit(f"{page.url} ({page.source}) is not in the site at {site} "
                                     f"(HTTP {response.status if response else 'no response'}); "
                                     "build the site again, or leave out --site")
                result = tab.evaluate(MEASURE_JS, SHORT_ANSWER_CLASS)
                page.screens[name] = result["height"] / viewport["height"]
                if not phone and result["shortAnswer"] is not None:
                    page.short_answer = result["shortAnswer"] / viewport["height"]
                if not phone and page.language not in fonts:
                    fonts[page.language] = f"{page.url}: {rendering_fonts(tab)}"
            context.close()
        browser.close()
    return fonts


def short_answer_at(page: Page) -> str:
    return "none" if page.short_answer is None else f"{page.short_answer:.1f}"


def report(pages: list[Page], path_source: str, path_pages: list[str], selected_all: bool) -> None:
    header = f"| {'page':<38} | language | screens desktop | screens phone | short answer at |"
    print(header)
    print("|" + "|".join("-" * len(cell) for cell in header.split("|")[1:-1]) + "|")
    for page in pages:
        print(f"| {page.nav_path:<38} | {page.language:<8} | {page.screens['desktop']:15.1f} | "
              f"{page.screens['phone']:13.1f} | {short_answer_at(page):>15} |")
    print("(screens: scroll height / 800 at 1280x800, / 740 at 375x740; short answer: top of the first "
          f".{SHORT_ANSWER_CLASS}, in screens of 800 px at 1280x800)")
    for language in LANGUAGES:
        mine = [page for page in pages if page.language == language]
        if not mine:
            continue
        desktop = [page.screens["desktop"] for page in mine]
        phone = [page.screens["phone"] for page in mine]
        long = [page for page in mine if page.screens["desktop"] > LONG]
        with_code = [page for page in mine if page.shows_code]
        early = [page for page in with_code if page.short_answer is not None and page.short_answer < FIRST_SCREEN]
        share = f"{100 * len(early) / len(with_code):.0f} %" if with_code else "n/a"
        print(f"\n{language}: {len(mine)} pages")
        print(f"  whole site: {sum(desktop):.1f} screens desktop, {sum(phone):.1f} phone")
        print(f"  median page: {statistics.median(desktop):.1f} screens desktop, {statistics.median(phone):.1f} phone")
        named = ", ".join(f"{page.nav_path} {page.screens['desktop']:.1f}" for page in long)
        print(f"  pages over {LONG:.0f} screens (desktop): {len(long)}" + (f" ({named})" if long else ""))
        print(f"  short answer in the first screen (starts < {FIRST_SCREEN:.1f}): {len(early)} of the "
              f"{len(with_code)} pages that show code ({share}); pages with a .{SHORT_ANSWER_CLASS} at all: "
              f"{sum(page.short_answer is not None for page in mine)}")
        on_path = [page for page in mine if page.nav_path in path_pages]
        if len(on_path) == len(path_pages):
            print(f"  learners' path ({path_source}; {len(on_path)} pages: {', '.join(path_pages)}): "
                  f"{sum(p.screens['desktop'] for p in on_path):.1f} screens desktop, "
                  f"{sum(p.screens['phone'] for p in on_path):.1f} phone")
        else:
            left_out = [path for path in path_pages if path not in {page.nav_path for page in on_path}]
            print(f"  learners' path: not summed, --pages leaves out {', '.join(left_out)}")
    if not selected_all:
        print("\n(--pages: totals are over the selected pages only)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="an already built site (default: build one)")
    parser.add_argument("--pages", metavar="GLOB",
                        help="only the nav pages whose path matches, e.g. 'intermediate/*' or 'leaf-nodes.md'")
    parser.add_argument("--dry-run", action="store_true",
                        help="list the pages, languages and viewports that would be measured; start no browser")
    args = parser.parse_args()

    config = load(ROOT / "mkdocs.yml").value
    entries = nav_pages(config.get("nav") or [])
    if not entries:
        raise SystemExit("mkdocs.yml has no nav: nothing to measure")
    path_source, path_pages = learners_path(entries)
    chosen = [(path, section) for path, section in entries if not args.pages or fnmatch.fnmatch(path, args.pages)]
    if not chosen:
        print(f"--pages {args.pages!r} matches no page of mkdocs.yml's nav; nav paths look like "
              f"{entries[1][0]!r}", file=sys.stderr)
        return 2
    pages = [Page(path, section, language) for path, section in chosen for language in LANGUAGES]
    if args.site and not (args.site / "index.html").is_file():
        print(f"--site {args.site}: no index.html there; give the folder `mkdocs build` wrote", file=sys.stderr)
        return 2

    if args.dry_run:
        print(f"would measure {len(pages)} pages ({len(chosen)} nav entries x {', '.join(LANGUAGES)}) at "
              + " and ".join(f"{v['width']}x{v['height']} ({k})" for k, v in VIEWPORTS.items())
              + f", in {CHROMIUM}, from " + (str(args.site) if args.site else "a fresh `mkdocs build --strict`"))
        for page in pages:
            print(f"  {page.url:<42} {page.source}{'' if page.shows_code else '  (shows no code)'}")
        print(f"learners' path: {path_source}: {', '.join(path_pages)}")
        print("dry run: nothing built, no browser started, nothing measured")
        return 0

    print(measured_on())
    print(f"load average at start: {load_averages()}")
    with site_to_measure(args.site, "reader-") as site:
        fonts = measure(site, pages)
    for language, used in fonts.items():
        print(f"text font ({language}), first paragraph of {used}")
    report(pages, path_source, path_pages, selected_all=len(chosen) == len(entries))
    print(f"load average at end: {load_averages()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
