"""Run a writers' tool: ``python -m tests.tools NAME [ARGS...]``, from the repository root.

    python -m tests.tools update_figures            # redraw the figures in docs/
    python -m tests.tools cost_page --pages-only    # rewrite the cost page's tables
    python -m tests.tools torch_versions --help     # the torch version matrix
    python -m tests.tools benchmarks.build_time     # measurements (see tests/tools/README.md)
    python -m tests.tools NAME --help               # what a tool does and the options it takes

A tool imports the page model (``sitepages``, in docs/hooks/) and the page
runner (``tests.pagerun``) as the suite does, so it runs in a child
interpreter whose import roots are pyproject.toml's, the one place they are
written (``tests.pagerun.import_roots``). That is why ``python
tests/tools/NAME.py`` and ``python -m tests.tools.NAME`` do not work.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.pagerun.import_roots import ROOT, child_environment

TOOLS = Path(__file__).resolve().parent
COMMAND = "python -m tests.tools"


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


def tool_file(name: str) -> Path:
    """The file a tool runs: NAME.py, or NAME/__main__.py for a package."""
    package = TOOLS.joinpath(*name.split("."))
    return package / "__main__.py" if package.is_dir() else package.with_suffix(".py")


def summary(name: str) -> str:
    """The first line of the tool's docstring, read without importing it (which needs the import roots)."""
    docstring = ast.get_docstring(ast.parse(tool_file(name).read_text(encoding="utf-8"))) or ""
    return docstring.strip().split("\n")[0]


def usage() -> str:
    names = tool_names()
    width = max(map(len, names))
    tools = "\n".join(f"  {name:<{width}}  {summary(name)}" for name in names)
    return f"{__doc__.strip()}\n\nTools (run one as: {COMMAND} NAME [ARGS...]):\n{tools}"


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(usage())
        return 0 if len(sys.argv) >= 2 else 2
    name, arguments = sys.argv[1].replace("-", "_"), sys.argv[2:]
    if name not in tool_names():
        print(f"{COMMAND}: no tool named {sys.argv[1]!r}; the tools are: {', '.join(tool_names())}",
              file=sys.stderr)
        return 2
    return subprocess.run([sys.executable, "-m", f"tests.tools.{name}", *arguments], cwd=ROOT,
                          env=child_environment()).returncode


if __name__ == "__main__":
    sys.exit(main())
