"""The set-up the README promises is the one CI runs, against the torch version the site states."""

import re

import torch

from sitepages import LANGUAGES, ROOT
from sitepages.pins import pinned


def _readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```(?:sh|bash|console)\n(.*?)\n```", readme, flags=re.S)


def test_ci_runs_the_readme_test_command():
    commands = [command for command in _readme_commands() if "pytest" in command]
    assert len(commands) == 1, f"README.md should show exactly one test command, found {commands}"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[0] in ci, f".ci/run does not call the README's test command {commands[0]!r}"


def test_the_torch_pin_is_the_one_place_its_version_is_written():
    """Outputs come from the installed torch, which is the pin; the pages' "Verified with" line reads the
    pin (docs/hooks/verified_with.py, tested in test_publishing.py), so mkdocs.yml must not repeat it."""
    version = pinned("torch")
    assert torch.__version__.split("+")[0] == version, f"torch {torch.__version__} installed, {version} pinned"
    assert version not in (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), "mkdocs.yml repeats the torch version"
    for language in LANGUAGES:
        home = (ROOT / "docs" / language / "index.md").read_text(encoding="utf-8")
        assert f"{version}+cpu" in home, f"docs/{language}/index.md does not print torch {version}"
