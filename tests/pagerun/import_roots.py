"""The import roots of a child interpreter that runs the project's code, from pyproject.toml.

pytest puts pyproject.toml's ``pythonpath`` (the repository root and
``docs/hooks``, where the page model ``sitepages`` lives beside the MkDocs
hooks that use it) on ``sys.path``; that list is the one place the project's
import roots are written. An interpreter started outside pytest (a fresh page
replay, a writers' tool, a torch version's virtual environment) gets the same
list as its PYTHONPATH from here, and never edits ``sys.path`` itself.
Standard library only: it runs before those roots are importable.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def pythonpath() -> str:
    """pyproject.toml's pytest ``pythonpath``, as absolute folders joined for PYTHONPATH."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    return os.pathsep.join(str((ROOT / folder).resolve()) for folder in options["pythonpath"])


def child_environment(variables: dict[str, str] | None = None) -> dict[str, str]:
    """os.environ (or ``variables``) with PYTHONPATH set to the project's import roots, and nothing else."""
    return {**(os.environ if variables is None else variables), "PYTHONPATH": pythonpath()}
