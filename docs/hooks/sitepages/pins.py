"""The versions pyproject.toml pins: the one place the site's torch version is written."""

from __future__ import annotations

import functools
import re
import tomllib

from .layout import ROOT


@functools.cache
def requirements() -> dict[str, str]:
    """Package name (lower case) -> its requirement, from the dependencies and every extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = {}
    extras = [requirement for extra in project["optional-dependencies"].values() for requirement in extra]
    for requirement in project["dependencies"] + extras:
        name = re.split(r"[=<>!~\[ ;]", requirement, maxsplit=1)[0].lower()
        found[name] = requirement
    return found


def pinned(name: str) -> str:
    """The exact version pinned for a package (``name==X``); a clear error if it is not pinned so."""
    requirement = requirements().get(name.lower(), "")
    match = re.fullmatch(rf"{re.escape(name)}==([\w.+-]+)", requirement, flags=re.I)
    if not match:
        raise LookupError(f"pyproject.toml pins no exact version of {name} (found {requirement or 'nothing'!r})")
    return match.group(1)
