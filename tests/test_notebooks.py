"""The hands-on notebooks: in both languages, stored in canonical form, and printing in Jupyter what they store.

Their cells run like a page's blocks in the docs plugin (pytest docs/en/notebooks/),
and test_translation_parity.py compares each with its twin.
"""

from __future__ import annotations

import difflib
import json
import re

import pytest

from sitepages import ROOT, notebooks, page_id
from sitepages.notebook import canonical, dumps


def test_there_are_labs_in_both_languages():
    english = [path.name for path in notebooks("en")]
    assert len(english) >= 3 and english == [path.name for path in notebooks("zh")]


@pytest.mark.parametrize("notebook", notebooks(), ids=page_id)
def test_notebook_is_stored_in_canonical_form(notebook):
    text = (ROOT / notebook).read_text(encoding="utf-8")
    wanted = dumps(canonical(json.loads(text)))
    if text != wanted:
        diff = "".join(difflib.unified_diff(
            text.splitlines(keepends=True), wanted.splitlines(keepends=True),
            fromfile=f"{notebook} (stored)", tofile="canonical", n=1,
        ))
        pytest.fail(
            f"{notebook} holds execution counts, ids or metadata that change from run to run; "
            f"rewrite it with pytest --update-outputs {notebook}\n{diff}",
            pytrace=False,
        )


# How Python's console writes a warning: "FILE:LINE: Category: message", then the source line, indented.
_CONSOLE_WARNING = re.compile(r"^\S.*?:\d+: (?P<category>\w+): (?P<message>.*)$")


def as_stored(warned: str) -> str:
    """Jupyter's stderr warnings as a notebook stores them (tests.pagerun.execute.warning_lines):
    ``Category: message``, without the file, line, source line or torch's build location."""
    from tests.pagerun.execute import without_build_noise

    lines = []
    for line in warned.splitlines():
        if match := _CONSOLE_WARNING.match(line):
            lines.append(f"{match['category']}: {without_build_noise(match['message'])}\n")
        elif not line.startswith(" "):
            lines.append(line + "\n")  # not a warning's source line: keep it, so that it is reported
    return "".join(lines)


def _console_stderr_as_stored(cell) -> None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            output["text"] = as_stored(output["text"])


@pytest.mark.parametrize("notebook", notebooks("en"), ids=page_id)
def test_lab_runs_the_same_in_jupyter(notebook, tmp_path):
    """A real Jupyter kernel prints the stored outputs and displays nothing else.

    English only: the parity test proves the Chinese notebooks run the same code.
    """
    import nbformat
    from jupyter_client.manager import KernelManager
    from nbconvert.preprocessors import ExecutePreprocessor

    stored = nbformat.read(ROOT / notebook, as_version=4)
    executed = nbformat.read(ROOT / notebook, as_version=4)
    # Local sockets, not TCP: ipykernel warns on stderr about an unencrypted TCP kernel.
    kernel = KernelManager(kernel_name="python3", transport="ipc", ip=str(tmp_path / "kernel"))
    try:
        # A cell's prints may reach Jupyter in several chunks, depending on when the kernel flushes;
        # the stored notebook has them as one stream output, as nbclient's coalesce_streams merges them.
        ExecutePreprocessor(timeout=300, coalesce_streams=True).preprocess(
            executed, {"metadata": {"path": str(tmp_path)}}, km=kernel)
    finally:
        if kernel.has_kernel:  # gone before the test ends, so nothing it logs on its way out is left over
            kernel.shutdown_kernel(now=True)
    for cell in executed.cells:
        _console_stderr_as_stored(cell)
    failures = [
        f"{notebook}, cell {number}: stored {before.outputs}\n  Jupyter {after.outputs}"
        for number, (before, after) in enumerate(zip(stored.cells, executed.cells, strict=True), start=1)
        if before.cell_type == "code" and before.outputs != after.outputs
    ]
    assert not failures, "\n".join(failures)
