import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Pages and their tracebacks use paths relative to the repository root.
os.chdir(ROOT)
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The site, built once per session with `mkdocs build --strict`: (site dir, CompletedProcess)."""
    site = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    return site, result
