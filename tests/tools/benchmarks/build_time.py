"""How long the site takes to build, and to rebuild under `mkdocs serve` after one page changes.

One command, from the repository root:

    python -m tests.tools benchmarks.build_time

1. `mkdocs build --strict` of both languages into a temporary folder: the
   median of 3 builds (target: under 10 s on 2 cores).
2. `mkdocs serve --dirty` (README's command) and plain `mkdocs serve`, each on
   a temporary copy of the repository (the real pages are never touched):
   after the first build, a newline is appended to (then removed from) one
   page, 3 times; each rebuild is timed from the file write to the log line
   that says the browsers are being reloaded, which mkdocs writes once the
   rebuild has finished (target with --dirty: within 3 s). --dirty rebuilds
   only the pages whose sources changed.
"""

from __future__ import annotations

import argparse
import queue
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.tools.benchmarks.common import ENV, ROOT, build_site, load_averages

COPY_IGNORE = shutil.ignore_patterns(
    ".git", "node_modules", "site", "test-artifacts", "__pycache__", ".pytest_cache", "*.egg-info", "build",
    ".ipynb_checkpoints",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Serve:
    """`mkdocs serve` in a copy of the repository; its log lines, time-stamped as they arrive."""

    def __init__(self, repo: Path, options: tuple[str, ...] = ()):
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", *options, "--dev-addr", f"127.0.0.1:{free_port()}"],
            cwd=repo, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put((time.perf_counter(), line.rstrip()))

    def wait_for(self, pattern: str, timeout: float = 120) -> tuple[float, list[str]]:
        """The time the first line matching pattern arrived, and the lines up to it."""
        seen, deadline = [], time.perf_counter() + timeout
        while True:
            try:
                at, line = self.lines.get(timeout=max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                raise SystemExit(
                    f"mkdocs serve: no line matching {pattern!r} in {timeout} s:\n" + "\n".join(seen)) from None
            seen.append(line)
            if re.search(pattern, line):
                return at, seen

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def rebuild_times(page: str, repeats: int, options: tuple[str, ...] = ()) -> tuple[float, list[float]]:
    with tempfile.TemporaryDirectory(prefix="build-time-") as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(ROOT, repo, ignore=COPY_IGNORE)
        target = repo / page
        original = target.read_text(encoding="utf-8")
        start = time.perf_counter()
        serve = Serve(repo, options)
        try:
            first, _ = serve.wait_for(r"Serving on")
            times = []
            for i in range(repeats):
                time.sleep(1.0)  # let the watcher settle
                edited = original + "\n" if i % 2 == 0 else original
                written = time.perf_counter()
                target.write_text(edited, encoding="utf-8")
                done, lines = serve.wait_for(r"Reloading browsers")
                if not any("Detected file changes" in line or "Building documentation" in line for line in lines):
                    raise SystemExit("mkdocs serve reloaded without rebuilding:\n" + "\n".join(lines))
                times.append(done - written)
        finally:
            serve.stop()
        return first - start, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--page", default="docs/en/leaf-nodes.md", help="the page edited under mkdocs serve")
    args = parser.parse_args()

    print(f"load average at start: {load_averages()}")
    builds = []
    with tempfile.TemporaryDirectory(prefix="build-time-site-") as tmp:
        for _ in range(args.repeats):
            builds.append(build_site(Path(tmp) / "site"))
            shutil.rmtree(Path(tmp) / "site", ignore_errors=True)
    build = statistics.median(builds)
    print(f"mkdocs build --strict (both languages): median {build:.2f} s of "
          f"{', '.join(f'{b:.2f}' for b in builds)} (target: under 10 s on 2 cores)")

    for options, target in ((("--dirty",), " (target: within 3 s)"), ((), "")):
        first, rebuilds = rebuild_times(args.page, args.repeats, options)
        name = " ".join(("mkdocs serve", *options))
        print(f"{name}: first build until 'Serving on' {first:.2f} s")
        print(f"{name}: rebuild after editing {args.page}: median {statistics.median(rebuilds):.2f} s of "
              f"{', '.join(f'{r:.2f}' for r in rebuilds)} (file write -> 'Reloading browsers'){target}")
    print(f"load average at end: {load_averages()}")


if __name__ == "__main__":
    main()
