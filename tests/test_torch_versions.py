"""The version matrix (docs/data/torch-versions/) and what the site says about other torch releases agree.

The data is made by ``python -m tests.tools torch_versions run`` and ``merge`` (never
in CI's test job; the weekly workflow runs them, one job per release). Here it is
read directly, without sitepages.torch_versions' logic, and checked against the
built pages: a page claims its code runs on a release only if the data holds a
run of the page's current code there in which no block raised, and claims its
output identical only if every block printed what the page shows (log lines of
``LOG_LINES`` aside, tests/test_version_differences.py); a block has a note
exactly when some release with current data did something else; stale data is
shown as "not yet checked".
"""

from __future__ import annotations

import fnmatch
import functools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from sitepages import LANGUAGES, ROOT, language_of, page_id, page_url, parse, sources, twin
from sitepages.data import load
from sitepages.pins import pinned
from sitepages.torch_versions import (
    DATA,
    RELEASE_SCHEMA,
    changes,
    digest,
    minor,
    page_code_hash,
    page_result,
    release_files,
    releases,
    without_log_lines,
)
from tests.tools.torch_versions.data import RELEASES, is_current, merge, planned_releases

PIN = pinned("torch").split("+")[0]
WITH_CODE = [source for source in sources() if any(block.executed for block in parse(source))]
# The claims of the verified-with line: (the releases the code runs on, those its output is identical on).
RANGE = r"(\d+\.\d+)(?:–(\d+\.\d+))?"
CLAIMS = {"en": [(re.compile(rf"code runs with identical output on torch {RANGE}"), ("runs", "same")),
                 (re.compile(rf"code runs on torch {RANGE}"), ("runs",)),
                 (re.compile(rf"output identical on {RANGE}"), ("same",))],
          "zh": [(re.compile(rf"代码在 torch {RANGE} ?(?:这一个版本)?上运行且输出完全相同"), ("runs", "same")),
                 (re.compile(rf"代码可在 torch {RANGE} ?(?:这一个版本)?上运行"), ("runs",)),
                 (re.compile(rf"在 {RANGE} ?(?:这一个版本)?上输出完全相同"), ("same",))]}


@functools.cache
def stored_releases() -> dict[str, dict]:
    return {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in release_files()}


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
    printed_as_shown = entry.get("stdout_hash") == digest(block.shown) or (
        "stdout" in entry and without_log_lines(entry["stdout"]) == block.shown)
    return printed_as_shown and not without_log_lines(entry.get("stderr", "")) and not {"error", "not_run"} & set(entry)


def runs_unchanged(source, release: str) -> bool:
    stored = current_runs(source)[release]
    blocks = executed_blocks(twin(source, "en"))
    return bool(stored) and "blocks" in stored and len(stored["blocks"]) == len(blocks) and all(
        block_agrees(entry, block) for entry, block in zip(stored["blocks"], blocks, strict=True))


def runs_without_error(source, release: str) -> bool:
    stored = current_runs(source)[release]
    blocks = executed_blocks(twin(source, "en"))
    return bool(stored) and "blocks" in stored and len(stored["blocks"]) == len(blocks) and not any(
        {"error", "not_run"} & set(entry) for entry in stored["blocks"])


@pytest.mark.parametrize("path", release_files(), ids=lambda path: path.name)
def test_every_release_file_has_the_shape_its_schema_gives(path):
    load(path, RELEASE_SCHEMA)  # raises, naming the file, the place in it and what was expected


def test_the_data_is_the_release_list():
    listed = planned_releases()
    stored = sorted(path.stem for path in release_files())
    unlisted = set(stored) - set(listed)
    assert not unlisted, f"data for releases not in {RELEASES.relative_to(ROOT)}: {unlisted}"
    for release in stored:
        data = json.loads((DATA / f"{release}.json").read_text(encoding="utf-8"))
        assert data["requested"] == release and data["torch"].startswith(release), (release, data.get("torch"))
        for name, page in data["pages"].items():
            assert (ROOT / "docs/en" / name).is_file(), f"{release}.json: no page docs/en/{name}"
            assert "code" in page and ("not_run" in page or "blocks" in page), f"{release}.json: {name}"


def claims(line: str, language: str) -> dict[str, tuple[str, str]]:
    """What a verified-with line claims: "runs" and "same" -> (first, last) release."""
    found: dict[str, tuple[str, str]] = {}
    for pattern, kinds in CLAIMS[language]:
        match = pattern.search(line)
        for kind in kinds if match else ():
            found.setdefault(kind, (match.group(1), match.group(2) or match.group(1)))
    return found


@pytest.mark.parametrize("source", WITH_CODE, ids=page_id)
def test_a_page_claims_only_releases_its_current_code_ran_on(built_page, source):
    """"code runs on A–B": no block raised there; "output identical on C–D": every block printed what the page
    shows there."""
    line = built_page(page_url(source)).select_one(".verified-with").get_text(" ", strip=True)
    found = claims(line, language_of(source))
    if not found:
        assert "not yet checked" in line or "尚未" in line, f"{page_url(source)}: no claim read from {line!r}"
        return
    assert set(found) == {"runs", "same"}, f"{page_url(source)}: {line!r} makes only the claims {set(found)}"
    order = [minor(release) for release in releases()]
    for kind, check in (("runs", runs_without_error), ("same", runs_unchanged)):
        first, last = found[kind]
        claimed = [release for release in releases()
                   if order.index(first) <= order.index(minor(release)) <= order.index(last)]
        wrong = [release for release in claimed if not check(source, release)]
        assert claimed and not wrong, f"{page_url(source)} says {line!r}, but its current code {kind} not on {wrong}"
    assert order.index(found["runs"][0]) <= order.index(found["same"][0]) \
        and order.index(found["same"][1]) <= order.index(found["runs"][1]), f"{line!r}: identical output, no run?"


def test_the_claims_are_read_in_every_wording():
    assert claims("Verified with torch 2.13.0 (CPU) · code runs on torch 2.0–2.15, output identical on 2.13 only "
                  "(what differs on other releases)", "en") == {"runs": ("2.0", "2.15"), "same": ("2.13", "2.13")}
    assert claims("code runs with identical output on torch 2.8–2.15 · last changed", "en") == {
        "runs": ("2.8", "2.15"), "same": ("2.8", "2.15")}
    assert claims("代码可在 torch 2.0–2.15 上运行，在 2.13 这一个版本上输出完全相同（其他版本上的差异）", "zh") == {
        "runs": ("2.0", "2.15"), "same": ("2.13", "2.13")}
    assert claims("代码在 torch 2.0–2.15 上运行且输出完全相同 · 最后修改于", "zh") == {
        "runs": ("2.0", "2.15"), "same": ("2.0", "2.15")}


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
    fresh = {"code": page_code_hash(blocks), "blocks": [{"stdout_hash": digest(b.shown)} for b in blocks]}
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


WORKFLOW = ROOT / ".github/workflows/torch-versions.yml"


def _job_needs(job: dict) -> list[str]:
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else needs


def _step(job: dict, name: str, test) -> dict:
    found = [step for step in job["steps"] if test(step)]
    assert len(found) == 1, f"{WORKFLOW.relative_to(ROOT)}: expected one step that {name}, found {len(found)}"
    return found[0]


def test_the_weekly_refresh_runs_one_job_per_release_and_merges_them_with_the_tool():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert workflow[True]["schedule"] and "workflow_dispatch" in workflow[True]  # YAML 1.1 reads `on:` as True
    jobs = workflow["jobs"]

    # The matrix: one job per release, the list printed by a first job from releases.yml (after discover).
    matrix_jobs = [name for name, job in jobs.items() if "matrix" in job.get("strategy", {})]
    assert len(matrix_jobs) == 1, f"one matrix job expected, found {matrix_jobs}"
    run_job = jobs[matrix_jobs[0]]
    assert run_job["strategy"]["fail-fast"] is False, "one release failing must not cancel the others"
    source = re.fullmatch(r"\$\{\{ fromJSON\(needs\.([\w-]+)\.outputs\.([\w-]+)\) \}\}",
                          str(run_job["strategy"]["matrix"].get("release")))
    assert source, "the matrix must be another job's output (fromJSON(needs.JOB.outputs.NAME)), not a list"
    assert source[1] in _job_needs(run_job)
    lister = jobs[source[1]]
    step_id = re.fullmatch(r"\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}", lister["outputs"][source[2]])
    listing = _step(lister, f"has the id {step_id[1]}", lambda step: step.get("id") == step_id[1])["run"]
    assert "torch_versions releases --json" in listing and f"{step_id[2]}=" in listing and "GITHUB_OUTPUT" in listing
    lister_runs = [step.get("run", "") for step in lister["steps"]]
    discover = [i for i, run in enumerate(lister_runs) if "torch_versions discover --write" in run]
    assert discover and discover[0] < lister_runs.index(listing), "new releases are added before the list is made"
    printed = subprocess.run([sys.executable, "-m", "tests.tools", "torch_versions", "releases", "--json"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == planned_releases() == [
        str(release) for release in yaml.safe_load(RELEASES.read_text(encoding="utf-8"))["releases"]]

    # Each release's job runs the tool's `run` for its release and uploads what it wrote.
    run_step = _step(run_job, "runs `torch_versions run`", lambda step: "torch_versions run " in step.get("run", ""))
    command = run_step["run"]
    release = "${{ matrix.release }}"
    assert f"--release {release}" in command or (
        '--release "$RELEASE"' in command and run_step.get("env", {}).get("RELEASE") == release)
    assert "--index-url https://download.pytorch.org/whl/cpu" in command, "the run must use the CPU wheels"
    out = re.search(r"--out (\S+)", command)[1]
    upload = _step(run_job, "uploads an artifact",
                   lambda step: step.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["path"] == f"{out}/{release}.json" and release in upload["with"]["name"]

    # One job, after them, downloads every release's results and merges them with the tool's own `merge`.
    merge_job = next(job for job in jobs.values() if matrix_jobs[0] in _job_needs(job))
    download = _step(merge_job, "downloads the releases' results",
                     lambda step: step.get("uses", "").startswith("actions/download-artifact")
                     and "pattern" in step.get("with", {}))
    uploaded = upload["with"]["name"].replace(release, planned_releases()[0])
    assert fnmatch.fnmatchcase(uploaded, download["with"]["pattern"]) and download["with"]["merge-multiple"] is True
    results = download["with"]["path"]
    assert not results.startswith("docs/"), "the results reach docs/data/torch-versions only through the merge"
    merge_runs = [step["run"] for step in merge_job["steps"] if "run" in step]
    merging = [run for run in merge_runs if "torch_versions merge" in run]
    assert merging == [f"python -m tests.tools torch_versions merge {results}"], \
        f"the merge job must merge what it downloaded with the tool's own `merge`; its commands: {merge_runs}"
    assert not [run for run in merge_runs if re.search(r"\b(cp|mv|rsync|jq|sed)\b", run)], \
        "the data must be merged by the tool, not copied in by the workflow"
    pull_request = _step(merge_job, "opens a pull request",
                         lambda step: step.get("uses", "").startswith("peter-evans/create-pull-request"))
    assert pull_request["with"]["add-paths"] == "docs/data/torch-versions"
    steps = merge_job["steps"]
    assert steps.index(download) < steps.index(next(s for s in steps if s.get("run") == merging[0])) \
        < steps.index(pull_request)

    # The run step itself, as a dry run: what it would install and run, for the oldest release.
    oldest = planned_releases()[0]
    command = command.replace(release, oldest).replace('"$RELEASE"', oldest)
    result = subprocess.run([sys.executable, *command.split()[1:], "--dry-run", "--force"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"torch=={oldest}" in result.stdout and "download.pytorch.org/whl/cpu" in result.stdout


def _data_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    return folder


def _result(folder: Path, release: str, pages: dict, **fields) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{release}.json"
    path.write_text(json.dumps({"requested": release, "pages": pages, **fields}), encoding="utf-8")
    return path


def test_merge_replaces_the_pages_a_run_holds_and_nothing_else(tmp_path):
    data = _data_copy(tmp_path)
    release = planned_releases()[0]
    before = json.loads((data / f"{release}.json").read_text(encoding="utf-8"))
    code = page_code_hash([block for block in parse(ROOT / "docs/en/leaf-nodes.md") if block.executed])
    entry = {"code": code, "not_run": "a test's entry"}
    result = _result(tmp_path / "results", release, {"leaf-nodes.md": entry}, torch=f"{release}+test", made="today")
    report = merge([result.parent], data)
    after = json.loads((data / f"{release}.json").read_text(encoding="utf-8"))
    assert after["pages"]["leaf-nodes.md"] == entry and (after["torch"], after["made"]) == (f"{release}+test", "today")
    assert {**after["pages"], "leaf-nodes.md": None} == {**before["pages"], "leaf-nodes.md": None}
    assert after["python"] == before["python"] and report == [
        f"torch {release}: 1 page(s) from {result} ({release}+test)"]
    # A run with nothing stale changes nothing; nor does a run of code the page no longer has (an old result).
    merge([_result(tmp_path / "empty", release, {})], data)
    assert json.loads((data / f"{release}.json").read_text(encoding="utf-8")) == after
    old = _result(tmp_path / "old", release, {"leaf-nodes.md": {**entry, "code": "0" * 16}}, torch="old")
    assert merge([old], data) == [f"torch {release}: kept the data of leaf-nodes.md: {old} ran older code"]
    assert json.loads((data / f"{release}.json").read_text(encoding="utf-8")) == after


def test_merge_makes_the_data_match_the_release_list(tmp_path):
    data = _data_copy(tmp_path)
    (data / "1.13.1.json").write_text(json.dumps({"requested": "1.13.1", "pages": {}}), encoding="utf-8")
    release = planned_releases()[-1]
    stored = json.loads((data / f"{release}.json").read_text(encoding="utf-8"))
    stored["pages"]["no-such-page.md"] = {"code": "0" * 16, "not_run": "gone"}
    (data / f"{release}.json").write_text(json.dumps(stored), encoding="utf-8")
    report = merge([_result(tmp_path / "results", release, {})], data)
    assert not (data / "1.13.1.json").exists()
    assert "no-such-page.md" not in json.loads((data / f"{release}.json").read_text(encoding="utf-8"))["pages"]
    assert "1.13.1.json: removed, torch 1.13.1 is no longer in releases.yml" in report
    schemas = sorted(path.name for path in DATA.glob("*.schema.json"))
    assert schemas and sorted(path.name for path in data.glob("*.schema.json")) == schemas, "the schemas stay"


@pytest.mark.parametrize("case", ["unlisted release", "misnamed", "unknown page", "no torch", "no blocks", "twice",
                                  "not JSON", "nothing"])
def test_merge_refuses_a_bad_result_saying_what_is_wrong(tmp_path, case):
    data = _data_copy(tmp_path)
    release = planned_releases()[0]
    ok = {"code": "0" * 16, "not_run": "x"}
    results = tmp_path / "results"
    wrong = {
        "unlisted release": (lambda: _result(results, "1.13.1", {}), "torch 1.13.1 is not in"),
        "misnamed": (lambda: (results / "x.json", _result(results, release, {}).rename(results / "x.json"))[0],
                     f"so it must be named {release}.json"),
        "unknown page": (lambda: _result(results, release, {"nope.md": ok}, torch=release), "no page docs/en/nope.md"),
        "no torch": (lambda: _result(results, release, {"leaf-nodes.md": ok}), "which torch ran them"),
        "no blocks": (lambda: _result(results, release, {"leaf-nodes.md": {"code": "0"}}, torch=release),
                      "pages['leaf-nodes.md']: expected the page's code hash"),
        "twice": (lambda: [_result(results / "a", release, {}), _result(results / "b", release, {})][0],
                  "a second result for torch"),
        "not JSON": (lambda: (results.mkdir(), (results / f"{release}.json").write_text("{"),
                              results / f"{release}.json")[-1], "not a JSON file"),
        "nothing": (lambda: results.mkdir(), "no RELEASE.json to merge"),
    }
    make, message = wrong[case]
    made = make()
    paths = [results / "a", results / "b"] if case == "twice" else [made if isinstance(made, Path) else results]
    before = {path.name: path.read_bytes() for path in data.iterdir()}
    with pytest.raises(SystemExit, match=re.escape(message)) as refused:
        merge(paths, data)
    assert str(paths[0]) in str(refused.value) or case == "twice"
    assert {path.name: path.read_bytes() for path in data.iterdir()} == before, "a refused merge changes nothing"


def test_a_release_run_and_merged_as_the_workflow_does(tmp_path):
    """`run` for the pinned release (this interpreter, no download) on one page, then `merge`."""
    page = "docs/en/leaf-nodes.md"
    result = subprocess.run([sys.executable, "-m", "tests.tools", "torch_versions", "run", "--release", PIN,
                             "--pages", page, "--force", "--out", str(tmp_path / "results")],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    written = json.loads((tmp_path / "results" / f"{PIN}.json").read_text(encoding="utf-8"))
    assert list(written["pages"]) == ["leaf-nodes.md"] and written["torch"].split("+")[0] == PIN
    data = _data_copy(tmp_path)
    merge([tmp_path / "results"], data)
    merged = json.loads((data / f"{PIN}.json").read_text(encoding="utf-8"))["pages"]["leaf-nodes.md"]
    blocks = [block for block in parse(ROOT / page) if block.executed]
    assert is_current(merged, blocks) and all(set(entry) == {"line", "stdout_hash"} for entry in merged["blocks"]), \
        merged


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
    missing = []
    for change in changes():
        if not change.entry:
            continue
        page = built_page(page_url(f"docs/{language}/{change.entry}"))
        links = [a["href"] for a in page.find_all("a", href=True)]
        if not any(href.endswith("torch-versions/#behaviour-changes") for href in links):
            missing.append(f"docs/{language}/{change.entry} does not link to the behaviour changes ({change.id})")
    assert not missing, "\n".join(missing)
