"""The stored data: releases.yml, one RELEASE.json per release, what is stale, and merging a run's results into it.

A run of one release (``refresh.run_release``) writes a result file of the
same form as a release's data, holding only the pages it ran:
``{"requested": RELEASE, "torch": ..., "python": ..., "numpy": ..., "made": ...,
"pages": {PAGE: ENTRY}}`` (no "torch" when nothing was stale). ``merge`` puts
such files into docs/data/torch-versions/: each page it ran replaces that
page's entry, and the release's versions and date become the run's.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from sitepages import ROOT, Block, parse, sources
from sitepages.torch_versions import DATA, digest, page_code_hash, release_files, version_key

RELEASES = DATA / "releases.yml"
RUN_FIELDS = ("torch", "python", "numpy", "made")  # what a run says about the release as a whole


def planned_releases(folder: Path = DATA) -> list[str]:
    listed = yaml.safe_load((folder / RELEASES.name).read_text(encoding="utf-8"))["releases"]
    return sorted(map(str, listed), key=version_key)


def english_sources(chosen: list[Path] | None = None) -> dict[str, list[Block]]:
    """docs/en page or notebook (relative to docs/en) -> its executed blocks."""
    paths = chosen or sources("en")
    found = {}
    for path in paths:
        relative = Path(path).resolve().relative_to(ROOT)
        if relative.parts[:2] != ("docs", "en"):
            raise SystemExit(f"{path}: not an English page (the Chinese ones run the same code)")
        blocks = [block for block in parse(relative) if block.executed]
        if blocks:
            found[relative.relative_to("docs/en").as_posix()] = blocks
    return found


def load(version: str, folder: Path = DATA) -> dict:
    path = folder / f"{version}.json"
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    return {"requested": version, "pages": {}}


def save(data: dict, folder: Path = DATA) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data["pages"] = dict(sorted(data["pages"].items()))
    path = folder / f"{data['requested']}.json"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def is_current(stored: dict | None, blocks: list[Block]) -> bool:
    if stored is None or stored.get("code") != page_code_hash(blocks):
        return False
    if "not_run" in stored and not stored.get("retry"):
        return True
    entries = stored.get("blocks", [])
    # A block stored as the hash of what the page showed then is stale once the page shows something else.
    return len(entries) == len(blocks) and all(
        "stdout_hash" not in entry or entry["stdout_hash"] == digest(block.shown)
        for entry, block in zip(entries, blocks, strict=True))


def stale(version: str, pages: dict[str, list[Block]], folder: Path = DATA) -> list[str]:
    stored = load(version, folder)["pages"]
    return [name for name, blocks in pages.items() if not is_current(stored.get(name), blocks)]


# ------------------------------------------------------------------ merging runs' results
def _result_files(paths: list[Path]) -> list[Path]:
    files = []
    for path in paths:
        if path.is_dir():
            files += sorted(path.glob("*.json"), key=lambda file: version_key(file.stem))
        elif path.is_file():
            files.append(path)
        else:
            raise SystemExit(f"{path}: no such file or folder (the results of `torch_versions run`)")
    if not files:
        raise SystemExit(f"{', '.join(map(str, paths))}: no RELEASE.json to merge "
                         f"(the results of `torch_versions run`)")
    return files


def _read_result(file: Path, planned: list[str]) -> dict:
    """One run's results, refused with the file and what is wrong."""
    try:
        result = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SystemExit(f"{file}: not a JSON file: {error}") from None
    if not isinstance(result, dict) or not isinstance(result.get("pages"), dict) or "requested" not in result:
        raise SystemExit(f'{file}: not the result of `torch_versions run`: expected {{"requested": RELEASE, '
                         f'"pages": {{...}}, ...}}')
    release = result["requested"]
    if file.stem != release:
        raise SystemExit(f"{file}: holds the results of torch {release}, so it must be named {release}.json")
    if release not in planned:
        raise SystemExit(f"{file}: torch {release} is not in {RELEASES.relative_to(ROOT)} "
                         f"({', '.join(planned)}); add it there first")
    if result["pages"] and "torch" not in result:
        raise SystemExit(f"{file}: pages were run, but the file does not say which torch ran them (\"torch\")")
    for name, entry in result["pages"].items():
        if not (ROOT / "docs/en" / name).is_file():
            raise SystemExit(f"{file}: pages[{name!r}]: no page docs/en/{name}")
        if not isinstance(entry, dict) or "code" not in entry or not ({"blocks", "not_run"} & set(entry)):
            raise SystemExit(f"{file}: pages[{name!r}]: expected the page's code hash and its blocks or "
                             f"why it did not run (\"code\", \"blocks\" or \"not_run\")")
    return result


def _code_now(name: str) -> str:
    """The hash of what docs/en/NAME runs now."""
    return page_code_hash([block for block in parse(Path("docs/en") / name) if block.executed])


def merge(paths: list[Path], folder: Path = DATA) -> list[str]:
    """Put the results of runs (files, or folders of RELEASE.json) into ``folder``; what it did, line by line.

    Each page a run holds replaces that page's entry in the release's data, and
    the run's torch, Python and numpy versions and date become the release's,
    unless the run is of code the page no longer has while the data is of the
    code it has (a result file left from an earlier run).
    The data is also made to match releases.yml and the pages: a release no
    longer listed (replaced by a newer patch) and a page that no longer exists
    lose their data.
    """
    planned = planned_releases(folder)
    results: dict[str, Path] = {}
    report = []
    for file in _result_files(paths):
        result = _read_result(file, planned)
        release = result["requested"]
        if release in results:
            raise SystemExit(f"{file}: a second result for torch {release}, after {results[release]}")
        results[release] = file
        if not result["pages"]:
            report.append(f"torch {release}: nothing was stale, nothing to merge ({file})")
            continue
        data = load(release, folder)
        # A run of code the page no longer has does not replace data of the code it has (an old result file).
        older = [name for name, entry in result["pages"].items()
                 if entry["code"] != _code_now(name) == data["pages"].get(name, {}).get("code")]
        if older:
            report.append(f"torch {release}: kept the data of {', '.join(older)}: {file} ran older code")
        merged = {name: entry for name, entry in result["pages"].items() if name not in older}
        if merged:
            data.update({key: result[key] for key in RUN_FIELDS if key in result})
            data["pages"].update(merged)
            save(data, folder)
            report.append(f"torch {release}: {len(merged)} page(s) from {file} ({result['torch']})")
    for path in release_files(folder):  # the JSON Schemas beside the runs are not runs
        if path.stem not in planned:
            path.unlink()
            report.append(f"{path.name}: removed, torch {path.stem} is no longer in {RELEASES.name}")
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        gone = [name for name in data["pages"] if not (ROOT / "docs/en" / name).is_file()]
        if gone:
            for name in gone:
                del data["pages"][name]
            save(data, folder)
            report.append(f"{path.name}: removed the data of {', '.join(gone)}: no such page in docs/en")
    return report
