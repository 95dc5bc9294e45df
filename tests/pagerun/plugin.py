"""pytest collects the site's pages and notebooks: one test item per code block, one session per page.

    pytest docs/en/leaf-nodes.md             # that page: items docs/en/leaf-nodes.md::line 12, ...
    pytest docs                              # every page and notebook of both languages
    pytest --update-outputs docs/en/x.md     # rewrite the page's expected outputs from a real run

A page's blocks run in order in one session (``tests.pagerun.execute``, isolated: state
is reset and checked around each block), as a reader pasting them. Selecting one
block (``pytest "docs/en/x.md::line 40"``) runs the blocks before it too, since
it depends on them; a block after one that raised is skipped, naming that block.

A failure shows only what the writer needs: the page and line, the rule the
block broke or the expected and actual output as a diff, and a traceback that
starts in the page's own code, none of this plugin's or pytest's frames.

Malformed markup (an unclosed fence, a misplaced marker, a fence that would
not run and does not say why) is a collection error naming the page and line.

A Chinese page runs the same code as its English twin, comments aside
(tests/test_translation_parity.py), so when both are collected the Chinese
page's blocks are checked against the runs of its twin's blocks rather than
run a second time (what a block prints does not depend on its comments);
twins therefore stay on one pytest-xdist worker. A page collected without its
twin, or whose code differs from it, runs itself.

This plugin is loaded for every pytest run (``-p tests.pagerun.plugin`` in
pyproject.toml), so it works for paths given on the command line as well as
for plain ``pytest``, whose testpaths include docs/. It collects the ``.md``
and ``.ipynb`` files under the folders the ini setting ``docs_sources`` names
(docs/en and docs/zh), and runs them from the rootdir.

It also wires the run: once collection is done, it starts the portability
pass's fresh-interpreter replays, if tests will run and a portability test is
selected, and when the run ends, however it ends, it stops them and removes
their folder (tests/pagerun/portability.py). Collecting alone (``pytest
--collect-only``, as IDEs do) starts nothing and writes nothing.
"""

from __future__ import annotations

import functools
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sitepages import DEFAULT_LANGUAGE, Block, PageFormatError, language_of, parse, silently_skipped, twin
from sitepages.markdown_page import prose_lines
from sitepages.rewrite import Produced, rewrite_outputs
from sitepages.twins import without_comments
from tests.pagerun import portability

if TYPE_CHECKING:
    from tests.pagerun.execute import BlockRun


def _engine():
    """The engine, which imports torch: only once a page is collected, so that a run of the suite's
    other tests alone (``pytest tests/test_glossary.py``) never pays for importing torch."""
    from tests.pagerun import execute

    return execute

UPDATE = "--update-outputs"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("docs_sources", "folders whose .md pages and .ipynb notebooks are collected", type="paths")
    parser.getgroup("docs").addoption(
        UPDATE, action="store_true",
        help="rewrite the expected outputs of the collected pages and notebooks from a real run "
             "(a page whose block raises or breaks a rule is left as it is and reported)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "codeblocks", False):
        raise pytest.UsageError(
            "--codeblocks runs every block of a page alone, but a page here is one Python session whose "
            "blocks build on each other. Run `pytest docs` (or `pytest docs/en/PAGE.md`) instead."
        )
    os.chdir(config.rootpath)  # pages run, and are named in messages and tracebacks, relative to it
    config.stash[_REWRITES] = {}
    config.stash[_COLLECTED] = {}


_REWRITES = pytest.StashKey[dict]()  # SourceFile -> what --update-outputs did to it
_COLLECTED = pytest.StashKey[dict]()  # page path (relative) -> its SourceFile


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # before xdist's own answer (a firstresult hook)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject.toml): both cores for the suite or a folder, one process for single files.

    Checking one page is faster without starting workers; --update-outputs
    rewrites pages in the process that reports what it rewrote.
    """
    if config.getoption(UPDATE):
        return 0
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        targets = [Path(config.invocation_params.dir, arg.split("::")[0]) for arg in config.args]
        if not any(target.is_dir() for target in targets):
            return 0
    return min(os.cpu_count() or 1, 4)


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    folders = parent.config.getini("docs_sources")
    if file_path.suffix in (".md", ".ipynb") and any(file_path.is_relative_to(folder) for folder in folders):
        if ".ipynb_checkpoints" not in file_path.parts:
            return SourceFile.from_parent(parent, path=file_path)
    return None


class SourceFile(pytest.File):
    """A page or notebook: collects its blocks, and runs them in one session as its items ask."""

    def collect(self):
        source = self.path.relative_to(self.config.rootpath)
        blocks = parse(source)
        unannounced = silently_skipped(blocks)
        if unannounced:
            raise PageFormatError(
                unannounced[0].where,
                f"the fence {unannounced[0].fence}{unannounced[0].info} would not be executed (only ```python "
                'runs); make it ```python, or put <!--pytest.mark.skip(reason="why it is not run")--> '
                "on the line above it",
            )
        self.source = source
        self.blocks = [block for block in blocks if block.executed]
        self.block_runs: list[BlockRun] = []  # what its blocks did, in order
        self.session_module = _engine().new_session()
        self.config.stash[_COLLECTED][source] = self
        # A page and its twins on one worker: a page is one session, and a twin reuses its runs.
        group = Path(*source.parts[2:]).as_posix() if source.parts[0] == "docs" else str(source)
        for index, block in enumerate(self.blocks):
            name = f"cell {block.cell}" if block.cell is not None else f"line {block.line}"
            item = BlockItem.from_parent(self, name=name, index=index)
            item.add_marker(pytest.mark.xdist_group(group))
            yield item

    @functools.cached_property
    def _twin_with_the_same_code(self) -> SourceFile | None:
        if language_of(self.source) == DEFAULT_LANGUAGE or self.source.parts[0] != "docs":
            return None
        other = self.config.stash[_COLLECTED].get(twin(self.source, DEFAULT_LANGUAGE))
        if other is None or [without_comments(b) for b in other.blocks] != [without_comments(b) for b in self.blocks]:
            return None
        return other

    def run_through(self, index: int) -> BlockRun | None:
        """Run the blocks up to ``index`` (those not run yet); None if an earlier block raised."""
        original = self._twin_with_the_same_code
        while len(self.block_runs) <= index:
            if self.block_runs and self.block_runs[-1].traceback:
                return None
            position = len(self.block_runs)
            if original is not None:
                ran = original.run_through(position)
                if ran is None:
                    return None
                self.block_runs.append(replace(ran, block=self.blocks[position]))
            else:
                self.block_runs += _engine().execute([self.blocks[position]], self.session_module)
        return self.block_runs[index]

    @functools.cached_property
    def says_build_noise_is_dropped(self) -> bool:
        """Whether the page's prose (outside its fences) names the suffix the engine drops from warnings."""
        return any(_engine().BUILD_NOISE in line for line in prose_lines(self.path))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, PageFormatError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)


class BlockFailed(Exception):
    """The block's own report: page, line, rule or diff, and the page's traceback."""


class BlockItem(pytest.Item):
    def __init__(self, *, index: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.index = index

    @property
    def block(self) -> Block:
        return self.parent.blocks[self.index]

    def runtest(self) -> None:
        run = self.parent.run_through(self.index)
        if run is None:
            raised = next(r for r in self.parent.block_runs if r.traceback)
            pytest.skip(f"not run: {raised.block.where} raised before it, and the page is one session")
        updating = self.config.getoption(UPDATE)
        messages = run.messages(include_output=not updating)
        if run.build_noise_dropped and not self.parent.says_build_noise_is_dropped:
            noise = _engine().BUILD_NOISE
            messages.append(
                f"{self.block.where}: torch ends this block's warning with {noise!r}, which the warnings "
                f"block leaves out; say so once in the page's prose (the phrase {noise!r} outside code), "
                "so that a reader comparing with their console knows why")
        if updating and not messages and not run.output_matches:
            self.config.stash[_REWRITES][self.parent] = "to rewrite"
        if messages:
            raise BlockFailed("\n\n".join(messages))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, BlockFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, (self.block.line or 1) - 1, f"{self.block.where}"


# ---------------------------------------------------------------- the run: the portability pass's servers


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """pytest-xdist's controller names the run's portability folder for its workers (and removes it at the end)."""
    node.workerinput[portability.WORKER_INPUT] = str(portability.run_folder(node.config))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the portability pass's replays now, so that they work while the rest of the suite does: only
    if tests will run (not under --collect-only) and a portability test is selected (tests/pagerun/portability.py)."""
    portability.start(session)


@pytest.hookimpl(trylast=True)  # under pytest-xdist, after its controller has stopped the workers
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """However the run ends: stop or await the replays this process started; remove the run's folder.
    With --update-outputs, first write the new outputs of every page whose blocks all ran cleanly."""
    try:
        _rewrite_outputs(session)
    finally:
        portability.finish(session, exitstatus)


def _rewrite_outputs(session: pytest.Session) -> None:
    if not session.config.getoption(UPDATE):
        return
    reports = session.config.stash[_REWRITES]
    for page in reports:
        if any(run.messages(include_output=False) for run in page.block_runs):
            reports[page] = "NOT rewritten: a block raised or broke a rule (see its failure)"
            continue
        changed = rewrite_outputs(page.path.relative_to(session.config.rootpath),
                                  [Produced(run.block, run.stdout, run.warnings) for run in page.block_runs])
        reports[page] = f"{changed} output block(s) rewritten"


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    reports = config.stash.get(_REWRITES, {})
    if config.getoption(UPDATE):
        terminalreporter.section("--update-outputs")
        for page, report in reports.items():
            terminalreporter.line(f"{page.path.relative_to(config.rootpath)}: {report}")
        if not reports:
            terminalreporter.line("every output already matched: nothing rewritten")
