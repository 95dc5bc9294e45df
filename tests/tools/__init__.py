"""The writers' tools, each run as ``python -m tests.tools NAME`` (tests/tools/__main__.py says why)."""

from __future__ import annotations

import importlib.util
import sys


def _tool_run_directly() -> str | None:
    """NAME, when this interpreter was started as ``python -m tests.tools.NAME``."""
    argv = sys.orig_argv
    if "-m" in argv[:-1] and argv[argv.index("-m") + 1].startswith(f"{__name__}."):
        return argv[argv.index("-m") + 1].removeprefix(f"{__name__}.")
    return None


# Without the project's import roots, a tool would stop at its first import with a bare ModuleNotFoundError.
if importlib.util.find_spec("sitepages") is None and (_name := _tool_run_directly()):
    raise SystemExit(
        f"python -m tests.tools.{_name} lacks the project's import roots (docs/hooks, for sitepages): "
        f"run it as  python -m tests.tools {_name}  from the repository root "
        "(python -m tests.tools --help lists the tools)"
    )
