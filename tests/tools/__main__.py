"""Run a writers' tool: ``python -m tests.tools NAME [ARGS...]``, from the repository root.

    python -m tests.tools update_figures            # redraw the figures in docs/
    python -m tests.tools cost_page --pages-only    # rewrite the cost page's tables
    python -m tests.tools torch_versions --help     # the torch version matrix
    python -m tests.tools benchmarks.build_time     # measurements (see tests/tools/README.md)

A tool imports the page model (``sitepages``, in docs/hooks/) and the page
runner (``tests.pagerun``) as the suite does, so it runs in a child
interpreter whose import roots are pyproject.toml's, the one place they are
written (``tests.pagerun.import_roots``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.pagerun.import_roots import ROOT, child_environment

TOOLS = Path(__file__).resolve().parent


def tool_names() -> list[str]:
    """Every module under tests/tools/ that runs as a program (a package runs its __main__), dotted."""
    names = []
    for path in TOOLS.rglob("*.py"):
        relative = path.relative_to(TOOLS)
        if path.name == "__main__.py" and path.parent != TOOLS:
            names.append(".".join(relative.parent.parts))
        elif path.name != "__main__.py" and '__name__ == "__main__"' in path.read_text(encoding="utf-8"):
            names.append(".".join(relative.with_suffix("").parts))
    return sorted(names)


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip() + "\n\nTools: " + ", ".join(tool_names()))
        return 0 if len(sys.argv) >= 2 else 2
    name, arguments = sys.argv[1].replace("-", "_"), sys.argv[2:]
    if name not in tool_names():
        print(f"python -m tests.tools: no tool named {sys.argv[1]!r}; the tools are: {', '.join(tool_names())}",
              file=sys.stderr)
        return 2
    return subprocess.run([sys.executable, "-m", f"tests.tools.{name}", *arguments], cwd=ROOT,
                          env=child_environment()).returncode


if __name__ == "__main__":
    sys.exit(main())
