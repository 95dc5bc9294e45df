"""The releases on PyPI that releases.yml lacks: the newest patch of every minor version from 2.0 on."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from sitepages import ROOT
from sitepages.torch_versions import DATA, version_key

from .data import RELEASES, planned_releases


def newest_patches(available: list[str]) -> dict[tuple[int, ...], str]:
    """(major, minor) -> its newest patch, from 2.0 on; pre-releases and local versions left out."""
    newest: dict[tuple[int, ...], str] = {}
    for version in available:
        if not re.fullmatch(r"\d+\.\d+\.\d+", version):
            continue
        key = version_key(version)[:2]
        if key >= (2, 0) and (key not in newest or version_key(version) > version_key(newest[key])):
            newest[key] = version
    return newest


def discover(write: bool) -> None:
    """The newest patch of every minor release on PyPI that releases.yml lacks; with ``write``, added there
    (a newer patch replaces the older one, whose data then goes: it ran other code)."""
    result = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "torch"], capture_output=True, text=True,
                            env={**os.environ, "PIP_CONFIG_FILE": os.devnull})
    match = re.search(r"Available versions: (.*)", result.stdout)
    if not match:
        raise SystemExit(f"pip index versions torch failed:\n{result.stdout}{result.stderr}")
    newest = newest_patches([v.strip() for v in match.group(1).split(",")])
    listed = {version_key(v)[:2]: v for v in planned_releases()}
    new = {key: version for key, version in newest.items() if listed.get(key) != version}
    for key, version in sorted(new.items()):
        print(f"{version}: {'a newer patch than ' + listed[key] if key in listed else 'not in the matrix'}")
    if not new:
        print("releases.yml lists the newest patch of every minor release on PyPI")
    if write and new:
        for key in new:
            if key in listed:
                (DATA / f"{listed[key]}.json").unlink(missing_ok=True)
        releases = sorted({**listed, **new}.values(), key=version_key)
        text = RELEASES.read_text(encoding="utf-8")
        header = text[:text.index("releases:")]
        RELEASES.write_text(header + "releases:\n" + "".join(f"  - {v}\n" for v in releases), encoding="utf-8")
        print(f"wrote {RELEASES.relative_to(ROOT)}")
