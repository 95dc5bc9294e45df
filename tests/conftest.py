"""What the suite's tests share: the one strict build of the site.

tests/ and docs/hooks/ are on sys.path (pyproject.toml's ``pythonpath``), and
tests/docs_plugin.py runs everything from the repository root.
"""

import os
import subprocess
import sys

import pytest
from sitepages import ROOT


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The site, built once per session with `mkdocs build --strict`: (site dir, CompletedProcess)."""
    site = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    return site, result
