"""The set-up the README promises is the one CI runs, against the torch version the site states."""

import re
import tomllib

import torch

from sitepages import ROOT


def _readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```(?:sh|bash|console)\n(.*?)\n```", readme, flags=re.S)


def test_ci_runs_the_readme_test_command():
    commands = [command for command in _readme_commands() if "pytest" in command]
    assert len(commands) == 1, f"README.md should show exactly one test command, found {commands}"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[0] in ci, f".ci/run does not call the README's test command {commands[0]!r}"


def test_site_states_the_torch_version_that_produced_its_outputs():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    pinned = next(dep.split("==")[1] for dep in dependencies if dep.startswith("torch=="))
    assert torch.__version__.split("+")[0] == pinned, f"torch {torch.__version__} installed, {pinned} pinned"
    mkdocs_yml = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert f"torch {pinned}" in mkdocs_yml, "the site footer (copyright in mkdocs.yml) names another torch version"
    for language in ("en", "zh"):
        home = (ROOT / "docs" / language / "index.md").read_text(encoding="utf-8")
        assert f"{pinned}+cpu" in home, f"docs/{language}/index.md does not print torch {pinned}"
