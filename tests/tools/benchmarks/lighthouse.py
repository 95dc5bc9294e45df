"""Lighthouse performance and accessibility scores of three pages, mobile profile.

One command, from the repository root (the first line once, to install Lighthouse):

    npm ci --prefix tests/tools/benchmarks --no-audit --no-fund
    python -m tests.tools benchmarks.lighthouse

Lighthouse is pinned in tests/tools/benchmarks/package-lock.json (12.8.x: Lighthouse
13 needs Node.js 22.19 or newer, Debian's is 20) and installed into the
ignored tests/tools/benchmarks/node_modules/. It is not part of the test suite and
.ci/run does not install it.

The script builds the site (`mkdocs build --strict`, into a temporary
folder), serves it on 127.0.0.1 with the browser tests' server and runs
Lighthouse with Debian's Chromium (CHROME_PATH=/usr/bin/chromium, flags
--headless --no-sandbox --disable-gpu) on the home page, one tutorial page
and one notebook page, twice: as the browser tests' server sends them
(uncompressed, like `mkdocs serve`) and gzip-compressed (as most hosts send
text files). Lighthouse's default mobile profile (emulated phone,
simulated slow 4G and 4x CPU slowdown), categories performance and
accessibility. Target: at least 95 in each. The JSON reports go to a temporary
folder unless --reports DIR is given.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.browser.harness import CHROMIUM, SiteServer
from tests.tools.benchmarks.common import ROOT, build_site, gzip_site_server, load_averages

HERE = Path(__file__).resolve().parent
LIGHTHOUSE = HERE / "node_modules" / ".bin" / "lighthouse"
PAGES = {
    "home": "/",
    "tutorial": "/intermediate/",
    "notebook": "/notebooks/toy-graph-three-ways/",
}
AUDITS = ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time",
          "cumulative-layout-shift", "speed-index")


def run_lighthouse(url: str, report: Path) -> dict:
    command = [
        str(LIGHTHOUSE), url,
        "--only-categories=performance,accessibility",
        "--output=json", f"--output-path={report}",
        "--chrome-flags=--headless --no-sandbox --disable-gpu",
        "--quiet",
    ]
    result = subprocess.run(command, env={**os.environ, "CHROME_PATH": CHROMIUM},
                            capture_output=True, text=True, cwd=ROOT)
    if result.returncode != 0 or not report.is_file():
        raise SystemExit(f"lighthouse failed on {url} (exit {result.returncode}):\n{result.stdout}{result.stderr}")
    return json.loads(report.read_text(encoding="utf-8"))


def score_pages(server, served: str, reports: Path) -> int:
    """Run Lighthouse on each page through one server; print a row each; the number of scores below 95."""
    below = 0
    for name, path in PAGES.items():
        data = run_lighthouse(server.url(path), reports / f"{name}-{served}.json")
        scores = {key: round(cat["score"] * 100) for key, cat in data["categories"].items()}
        metrics = [data["audits"][audit]["displayValue"] for audit in AUDITS]
        below += sum(score < 95 for score in scores.values())
        print(f"| {name:<9} | {path:<34} | {served:<12} | {scores['performance']:>4} | "
              f"{scores['accessibility']:>4} | " + " | ".join(metrics) + " |")
        failed = [
            f"{audit['id']} ({audit['title']})"
            for ref in data["categories"]["accessibility"]["auditRefs"]
            if (audit := data["audits"][ref["id"]])["score"] is not None and audit["score"] < 1
        ]
        if failed:
            print(f"    accessibility audits not passed: {', '.join(failed)}")
    return below


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="an already built site (default: build one)")
    parser.add_argument("--reports", type=Path, help="keep the JSON reports in this folder")
    args = parser.parse_args()
    if not LIGHTHOUSE.is_file():
        raise SystemExit(f"{LIGHTHOUSE.relative_to(ROOT)} not found: run `npm ci --prefix tests/tools/benchmarks`")
    version = subprocess.run([str(LIGHTHOUSE), "--version"], capture_output=True, text=True).stdout.strip()
    chromium = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"lighthouse {version}, {chromium}; load average at start: {load_averages()}")

    below = 0
    with tempfile.TemporaryDirectory(prefix="lighthouse-") as tmp:
        site = args.site or Path(tmp) / "site"
        if not args.site:
            build_site(site)
        reports = args.reports or Path(tmp)
        reports.mkdir(parents=True, exist_ok=True)
        print(f"| {'page':<9} | {'url':<34} | {'served':<12} | perf | a11y | " + " | ".join(AUDITS) + " |")
        for served, make_server in (("uncompressed", SiteServer), ("gzip", gzip_site_server)):
            with make_server(site) as server:
                below += score_pages(server, served, reports)
    print(f"scores below 95: {below}")
    print(f"load average at end: {load_averages()}")
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
