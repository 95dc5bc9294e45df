"""The version matrix (docs/data/torch-versions/) and what the site says about other torch releases agree.

The data is made by ``python -m tests.tools torch_versions refresh`` (never in
CI). Here it is read directly, without sitepages.torch_versions' logic, and
checked against the built pages: a release is claimed for a page only if the
data holds a run of the page's current code there in which every block printed
what the page shows; a block has a note exactly when some release with current
data did something else; stale data is shown as "not yet checked".
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from sitepages import LANGUAGES, ROOT, language_of, page_id, page_url, parse, sources, twin
from sitepages.torch_versions import DATA, changes, digest, minor, page_code_hash, page_result, releases
from tests.tools.torch_versions import RELEASES, planned_releases

WITH_CODE = [source for source in sources() if any(block.executed for block in parse(source))]
CLAIM = {"en": re.compile(r"runs unchanged on torch (\S+?)(?:–(\S+))?(?: only)?(?: \(|$| ·)"),
         "zh": re.compile(r"(?:仅)?在 torch (\S+?)(?:–(\S+))? 上运行结果不变")}


@functools.cache
def stored_releases() -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted(DATA.glob("*.json"))}


@functools.cache
def executed_blocks(english) -> list:
    return [block for block in parse(english) if block.executed]


@functools.cache
def current_runs(source) -> dict[str, dict | None]:
    """Release -> the stored run of the page's current code (None: no data for this code)."""
    english = twin(source, "en")
    code = page_code_hash(executed_blocks(english))
    found = {}
    for release, data in stored_releases().items():
        stored = data["pages"].get(english.relative_to("docs/en").as_posix())
        found[release] = stored if stored and stored["code"] == code else None
    return found


def block_agrees(entry: dict, block) -> bool:
    printed_as_shown = entry.get("stdout_hash") == digest(block.expected) or entry.get("stdout") == block.expected
    return printed_as_shown and not {"stderr", "error", "not_run"} & set(entry)


def runs_unchanged(source, release: str) -> bool:
    stored = current_runs(source)[release]
    blocks = executed_blocks(twin(source, "en"))
    return bool(stored) and "blocks" in stored and len(stored["blocks"]) == len(blocks) and all(
        block_agrees(entry, block) for entry, block in zip(stored["blocks"], blocks, strict=True))


def test_the_data_is_the_release_list():
    listed = planned_releases()
    stored = sorted(path.stem for path in DATA.glob("*.json"))
    unlisted = set(stored) - set(listed)
    assert not unlisted, f"data for releases not in {RELEASES.relative_to(ROOT)}: {unlisted}"
    for release in stored:
        data = json.loads((DATA / f"{release}.json").read_text(encoding="utf-8"))
        assert data["requested"] == release and data["torch"].startswith(release), (release, data.get("torch"))
        for name, page in data["pages"].items():
            assert (ROOT / "docs/en" / name).is_file(), f"{release}.json: no page docs/en/{name}"
            assert "code" in page and ("not_run" in page or "blocks" in page), f"{release}.json: {name}"


@pytest.mark.parametrize("source", WITH_CODE, ids=page_id)
def test_a_page_claims_only_releases_its_current_code_ran_unchanged_on(built_page, source):
    line = built_page(page_url(source)).select_one(".verified-with").get_text(" ", strip=True)
    match = CLAIM[language_of(source)].search(line)
    if match is None:
        return  # no claim: "not yet checked", which is always true
    order = [minor(release) for release in releases()]
    first, last = match.group(1), match.group(2) or match.group(1)
    claimed = [release for release in releases()
               if order.index(first) <= order.index(minor(release)) <= order.index(last)]
    wrong = [release for release in claimed if not runs_unchanged(source, release)]
    assert claimed and not wrong, \
        f"{page_url(source)} says {line!r}, but its current code has no unchanged run on {wrong}"


@pytest.mark.parametrize("source", [s for s in WITH_CODE if s.suffix == ".md"], ids=page_id)
def test_a_block_has_a_note_exactly_when_a_release_ran_it_differently(built_page, source):
    blocks = [block for block in parse(twin(source, "en")) if block.executed]
    differing = set()
    for stored in current_runs(source).values():
        if stored and "blocks" in stored:
            differing |= {i for i, (entry, block) in enumerate(zip(stored["blocks"], blocks, strict=True))
                          if not block_agrees(entry, block) and "not_run" not in entry}
    notes = [d for d in built_page(page_url(source)).select("details.note")
             if d.summary and "torch" in d.summary.get_text()]
    assert len(notes) == len(differing), f"{page_url(source)}: {len(notes)} notes, {len(differing)} blocks differ"
    misplaced = [note.summary.get_text() for note in notes if not _follows_a_code_block(note)]
    assert not misplaced, f"{page_url(source)}: a version note that does not follow a code or output block"


def _follows_a_code_block(note) -> bool:
    before = note.find_previous_sibling()
    if before is not None and before.name == "p":  # inside an admonition Python-Markdown wraps the output's
        before = before.find_all("div", recursive=False)[-1:] and before.find_all("div", recursive=False)[-1]
    return bool(before) and "highlight" in before.get("class", [])  # marker comment and fence in one <p>


def test_stale_data_is_not_yet_checked(tmp_path):
    """A page's data stops counting when its code, or a block's shown output, changes."""
    page = ROOT / "docs/en/leaf-nodes.md"
    blocks = [block for block in parse(page) if block.executed]
    fresh = {"code": page_code_hash(blocks), "blocks": [{"stdout_hash": digest(b.expected)} for b in blocks]}
    cases = {
        "current": fresh,
        "code-changed": {**fresh, "code": "0" * 16},
        "output-changed": {**fresh, "blocks": [{"stdout_hash": "0" * 16}] + fresh["blocks"][1:]},
    }
    for release, stored in cases.items():
        (tmp_path / f"{release}.json").write_text(json.dumps(
            {"requested": release, "torch": release, "pages": {"leaf-nodes.md": stored}}), encoding="utf-8")
    states = {release: page_result(page.relative_to(ROOT), release, tmp_path).state for release in cases}
    assert states == {"current": "same", "code-changed": "not checked", "output-changed": "not checked"}


def test_the_scheduled_refresh_runs_the_tool_and_opens_a_pull_request():
    workflow = yaml.safe_load((ROOT / ".github/workflows/torch-versions.yml").read_text(encoding="utf-8"))
    assert workflow[True]["schedule"] and "workflow_dispatch" in workflow[True]  # YAML 1.1 reads `on:` as True
    steps = workflow["jobs"]["refresh"]["steps"]
    runs = [step["run"] for step in steps if "run" in step]
    assert any("torch_versions discover --write" in run for run in runs)
    refresh = next(run for run in runs if "torch_versions refresh" in run)
    assert "--index-url https://download.pytorch.org/whl/cpu" in refresh, "the refresh must use the CPU wheels"
    pull_request = next(step for step in steps if step.get("uses", "").startswith("peter-evans/create-pull-request"))
    assert pull_request["with"]["add-paths"] == "docs/data/torch-versions"
    # The refresh step itself, as a dry run: what it would install and run, for the oldest release.
    command = refresh.split() + ["--dry-run", "--force", "--versions", planned_releases()[0]]
    result = subprocess.run([sys.executable, *command[1:]], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"torch=={planned_releases()[0]}" in result.stdout and "download.pytorch.org/whl/cpu" in result.stdout


def _block_run(release: str, change) -> dict | None:
    """The stored run of the change's block, if the release's data holds the page's current code."""
    source = Path("docs/en") / change.page
    stored = current_runs(source)[release]
    blocks = executed_blocks(source)
    if not stored or "blocks" not in stored:
        return None
    index = [i for i, block in enumerate(blocks) if change.code in block.code][0]
    entry = stored["blocks"][index]
    return {"agrees": block_agrees(entry, blocks[index]), **{k: v for k, v in entry.items() if k != "line"}}


def test_every_change_names_one_executed_block():
    for change in changes():
        holding = [block.where for block in executed_blocks(Path("docs/en") / change.page) if change.code in block.code]
        assert len(holding) == 1, \
            f"changes.yml: {change.id}: {change.code!r} must be in one block of docs/en/{change.page}: {holding}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_change_shown_is_one_the_data_shows(built_page, language):
    page = built_page(page_url(f"docs/{language}/torch-versions.md"))
    shown = [span["id"].removeprefix("change-") for span in page.select('span[id^="change-"]')]
    order = list(releases())
    wrong = []
    for change in changes():
        since = next(r for r in order if minor(r) == change.since)
        before = order[order.index(since) - 1]
        runs = (_block_run(before, change), _block_run(since, change))
        shows_it = None not in runs and runs[0] != runs[1]
        if (change.id in shown) != shows_it:
            data = "shows" if shows_it else "does not show"
            wrong.append(f"{change.id}: shown {change.id in shown}, but the data {data} "
                         f"a change from {before} to {since} in docs/en/{change.page}")
    assert shown and not wrong, "\n".join(wrong)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_message_reworded_across_releases_links_to_its_change(built_page, language):
    page = built_page(page_url(f"docs/{language}/troubleshooting.md"))
    missing = []
    for change in changes():
        if not change.troubleshooting:
            continue
        heading = page.find(id=change.troubleshooting)
        section = []
        for element in heading.find_next_siblings():
            if element.name == "h2":
                break
            section.append(element)
        links = [a["href"] for element in section for a in element.find_all("a", href=True)]
        if not any(href.endswith("torch-versions/#behaviour-changes") for href in links):
            missing.append(f"#{change.troubleshooting} does not link to the behaviour changes ({change.id})")
    assert not missing, "\n".join(missing)
