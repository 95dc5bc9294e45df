"""What the benchmark scripts share: the repository root, timing helpers, a strict site build.

Not a test module: pytest collects nothing from tests/tools/ (no test_*.py there).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sitepages import ROOT
from tests import site_build

ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def measured_on() -> str:
    """When and where a measurement is made, printed first by every benchmark: a timing quoted anywhere
    carries this line with it, or is not quoted."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), cpu)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (f"measured {now} on {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}")


def load_averages() -> str:
    """The load averages (1, 5, 15 min): other processes on the machine skew every timing."""
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def wall(command: list[str], **kwargs) -> float:
    """Seconds one subprocess takes, start to exit; it must succeed."""
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=kwargs.pop("cwd", ROOT), env=kwargs.pop("env", ENV), **kwargs)
    return time.perf_counter() - start


def timed_pytest(*arguments: str, cwd: Path = ROOT) -> float:
    """Seconds a pytest run in ``cwd`` takes, start to exit; it must pass."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments],
                            cwd=cwd, env=ENV, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        lines = result.stdout.strip().splitlines() or ["(no output)"]
        failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
        raise SystemExit(f"{cwd}: pytest {' '.join(arguments)} failed:\n" + "\n".join(failed[:20] or lines[-20:]))
    return seconds


def build_site(site_dir: Path, cwd: Path = ROOT) -> float:
    """`mkdocs build --strict` into site_dir; seconds. Fails loudly with mkdocs' log."""
    start = time.perf_counter()
    result = site_build.build_site(site_dir, cwd=cwd, published=False)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"mkdocs build --strict failed:\n{result.stdout}{result.stderr}")
    return seconds


@contextlib.contextmanager
def site_to_measure(given: Path | None, prefix: str):
    """The site a benchmark measures: ``given`` (``--site DIR``), or a fresh strict build in a temporary
    folder that is removed afterwards."""
    if given is not None:
        yield given
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        build_site(Path(tmp) / "site")
        yield Path(tmp) / "site"


def gzip_site_server(directory: Path):
    """The browser tests' SiteServer, but sending text files gzip-compressed, as most hosts do.

    Only when the client accepts gzip; everything else (binary files, 404 pages,
    redirects) is answered exactly as SiteServer answers it.
    """
    import gzip
    import io

    from tests.browser.harness import SiteHandler, SiteServer

    compressible = {"application/json", "application/javascript", "image/svg+xml"}
    cache: dict[str, bytes] = {}

    class GzipHandler(SiteHandler):
        def send_head(self):
            if "gzip" not in self.headers.get("Accept-Encoding", ""):
                return super().send_head()
            path = self.translate_path(self.path)
            if os.path.isdir(path):
                if not self.path.split("?", 1)[0].endswith("/"):
                    return super().send_head()  # the redirect to the folder
                path = os.path.join(path, "index.html")
            ctype = self.guess_type(path)
            if not os.path.isfile(path) or not (ctype.startswith("text/") or ctype in compressible):
                return super().send_head()
            if path not in cache:
                cache[path] = gzip.compress(Path(path).read_bytes(), compresslevel=6)
            body = cache[path]
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Vary", "Accept-Encoding")
            self.end_headers()
            return io.BytesIO(body)

    return SiteServer(directory, GzipHandler)
