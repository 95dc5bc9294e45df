"""One release's environment: a virtual environment with that torch, or this interpreter for the pinned release.

It holds that torch with a numpy it supports (before 2.3: numpy<2), the page
parser's packages (tests.pagerun.fresh reads blocks with sitepages) and, when a
page to run needs it and it can be installed beside them, the TensorFlow the
"From TensorFlow" page uses. pip runs with ``PIP_CONFIG_FILE=/dev/null``: a
machine-wide constraint file or index must not choose the release.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sitepages.pins import pinned, requirements
from sitepages.torch_versions import version_key

# What the child interpreters need besides torch: the page model's packages.
PARSER_PACKAGES = ("markdown", "pymdown-extensions", "nbformat", "pyyaml", "jsonschema")


def numpy_for(version: str) -> str:
    """torch releases before 2.3 were built against numpy 1.x and fail to load numpy 2."""
    return "numpy<2" if version_key(version) < (2, 3) else requirements()["numpy"]


def pip_reason(stderr: str) -> str:
    """pip's own words for why it installed nothing, in a line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    wanted = [line for line in lines if "requires" in line or "conflict" in line.lower() or line.startswith("ERROR")]
    return " ".join((wanted or lines)[:3])[:400]


class Environment:
    """A virtual environment with one torch release, or this interpreter for the pinned one.

    ``keep``: leave the virtual environment in place when done (to look into a
    page there); a later run of the same release reuses it.
    """

    def __init__(self, version: str, folder: Path, dry_run: bool = False, index_url: str | None = None,
                 keep: bool = False) -> None:
        self.version, self.folder, self.dry_run, self.index_url, self.keep = version, folder, dry_run, index_url, keep
        self.python = sys.executable if self.is_pinned else str(folder / "bin" / "python")
        self.tensorflow = "" if self.is_pinned else "not installed"

    @property
    def is_pinned(self) -> bool:
        return self.version == pinned("torch").split("+")[0]

    def _pip(self, *arguments: str) -> subprocess.CompletedProcess:
        command = [self.python, "-m", "pip", "install", "--no-cache-dir", "--disable-pip-version-check", "-q",
                   *arguments]
        if self.index_url:  # e.g. PyTorch's CPU wheels, with PyPI for everything else
            command += ["--index-url", self.index_url, "--extra-index-url", "https://pypi.org/simple"]
        if self.dry_run:
            print("  would run:", " ".join(command[2:]))
            return subprocess.CompletedProcess(command, 0, "", "")
        # PIP_CONFIG_FILE=/dev/null: a machine-wide constraint file or index (as on the project's own
        # machines, which cap torch for their local wheels) must not choose the release.
        variables = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
        return subprocess.run(command, env=variables, capture_output=True, text=True)

    def create(self, tensorflow: bool = True) -> None:
        """Install this torch; with ``tensorflow``, TensorFlow beside it too, or say why it cannot be."""
        if self.is_pinned:
            return
        if not self.dry_run:
            reuse = self.keep and Path(self.python).is_file()
            subprocess.run([sys.executable, "-m", "venv", *([] if reuse else ["--clear"]), str(self.folder)],
                           check=True)
        numpy = numpy_for(self.version)
        parser = [requirements().get(name, name) for name in PARSER_PACKAGES]
        installed = self._pip(f"torch=={self.version}", numpy, *parser)
        if installed.returncode != 0:
            raise RuntimeError(f"pip could not install torch {self.version}:\n{installed.stderr[-2000:]}")
        if tensorflow:
            self._install_tensorflow()

    def _install_tensorflow(self) -> None:
        constraint = Path(tempfile.mkstemp(suffix=".txt")[1])
        numpy_now = self.run_python("import numpy; print(numpy.__version__)") if not self.dry_run else "X"
        constraint.write_text(f"numpy=={numpy_now}\ntorch=={self.version}\n", encoding="utf-8")
        tensorflow = self._pip(requirements()["tensorflow-cpu"], "-c", str(constraint))
        constraint.unlink()
        self.tensorflow = "" if tensorflow.returncode == 0 else (
            f"{requirements()['tensorflow-cpu']} cannot be installed beside torch {self.version} and numpy "
            f"{numpy_now}: " + pip_reason(tensorflow.stderr))

    def run_python(self, code: str) -> str:
        return subprocess.run([self.python, "-c", code], check=True, capture_output=True, text=True).stdout.strip()

    def full_version(self) -> str:
        return self.run_python("import torch; print(torch.__version__)")

    def remove(self) -> None:
        if not self.is_pinned and not self.dry_run and not self.keep:
            shutil.rmtree(self.folder, ignore_errors=True)
