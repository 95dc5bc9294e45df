"""Run blocks the way a reader does, and record what each prints: the one loop that executes blocks.

A page is one Python session: its blocks run in order in one namespace, the
``__dict__`` of a fresh module named ``__main__`` (installed as
``sys.modules["__main__"]`` while a block runs, so pickling and
multiprocessing see page-defined names as they would in a reader's session).

``isolated=True`` is how the suite checks a page in one long-lived process.
State is reset before each block, and every block is then checked to have
left that state as it found it, so the reset never hides a difference from
the reader's session:

* grad mode, inference mode, default dtype, print options and anomaly
  detection are reset before each block; a block that changes one must
  restore it (``with``);
* the random generator is reset to a sentinel seed before each block; a block
  that draws random numbers must call ``torch.manual_seed`` itself, since a
  fresh interpreter's seed differs from run to run.

``isolated=False`` is the reader's own session: nothing is reset or checked
between blocks. The fresh-interpreter replays (``tests.pagerun.fresh``) and the
figure renderers use it.

A warning torch gives once per process (``TORCH_WARN_ONCE``) would show on
whichever page of a worker happened to run first, so isolated blocks run with
``torch.set_warn_always(True)``: such a warning shows on every page that
raises it, as it does in the reader's fresh session. A page that raised it
twice would show it twice here and once to the reader; the fresh-interpreter
replays, which do not switch it on, catch that difference. A process a block
forks (``multiprocessing`` with ``fork``) starts with the setting the block found,
as a child of the reader's session does: its warnings go to its own stderr, which
the page may capture and print, so its once-per-process warnings must stay once.

In either mode the warnings a block raises are caught, under Python's own
default filters (what a reader's console shows: each warning once per place
in the session, a DeprecationWarning only from the reader's own code), and recorded as one
``Category: message`` line each, which the page shows in a block of its own
and the suite asserts like any output. A warning the page does not show fails
the block, as a wrong output does. Build noise is normalised: torch ends some
warnings with `` (Triggered internally at /path/to/File.cpp:LINE.)``, which
names a file of the machine that built the wheel; that suffix is dropped.

Every block, in either mode, must not print a memory address (it changes
every run), and a notebook cell must not end with an expression whose value
Jupyter would display, which the stored output does not show.
"""

from __future__ import annotations

import builtins
import contextlib
import difflib
import functools
import io
import os
import re
import sys
import traceback
import types
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import torch

from sitepages import Block
from sitepages.blocks import shown

SENTINEL_SEED = 20_261_122
_MEMORY_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]{6,}")
_ENGINE = str(Path(__file__).resolve().parent)
# torch's C++ warnings end with where they were raised in torch's own build tree.
BUILD_NOISE = "(Triggered internally at"
_BUILD_NOISE = re.compile(r"\s*" + re.escape(BUILD_NOISE) + r"[^()]*\.\)$")


def _console_filters() -> None:
    """Python's default warning filters (what a reader's `python` or Jupyter shows), replacing pytest's."""
    warnings.resetwarnings()
    warnings.simplefilter("default")
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.filterwarnings("ignore", category=category)
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")


def without_build_noise(message: str) -> str:
    return _BUILD_NOISE.sub("", message)


# Per session, the places (file, line, category, message) a warning was already shown from: Python's
# "default" action shows a warning once per place for the whole session, but catching each block's
# warnings (catch_warnings) resets that memory, so the engine keeps it across the blocks itself.
_SHOWN: weakref.WeakKeyDictionary[types.ModuleType, set] = weakref.WeakKeyDictionary()


def _first_time(session: types.ModuleType, caught: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    shown = _SHOWN.setdefault(session, set())
    fresh = []
    for w in caught:
        place = (w.filename, w.lineno, w.category, str(w.message))
        if place not in shown:
            shown.add(place)
            fresh.append(w)
    return fresh


def warning_lines(caught: list[warnings.WarningMessage]) -> str:
    """The warnings as the page shows them: ``Category: message``, build noise dropped, one per line."""
    lines = [f"{w.category.__name__}: {without_build_noise(str(w.message))}" for w in caught]
    return "".join(line + "\n" for line in lines)


@dataclass
class Captured:
    stdout: str = ""
    stderr: str = ""


@contextlib.contextmanager
def python_streams() -> Iterator[Captured]:
    """Capture one block's sys.stdout and sys.stderr (in-process runs under pytest)."""
    captured, out, err = Captured(), io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield captured
    captured.stdout, captured.stderr = out.getvalue(), err.getvalue()


@dataclass
class BlockRun:
    block: Block
    stdout: str = ""
    stderr: str = ""
    warnings: str = ""  # the warnings it raised, as ``warning_lines`` writes them
    build_noise_dropped: bool = False  # a warning lost torch's "(Triggered internally at ...)"
    traceback: str | None = None  # from the page's own frames on, pointing at the page's lines
    broken_rules: list[str] = field(default_factory=list)
    environment: str = ""  # where it ran, when not this process (see tests.pagerun.environments)

    @property
    def where(self) -> str:
        return f"{self.block.where} [{self.environment}]" if self.environment else self.block.where

    @property
    def shown(self) -> str:
        """Its output and warnings as one text (``sitepages.blocks.shown``), to compare with ``Block.shown``."""
        return shown(self.stdout, self.warnings)

    @property
    def output_matches(self) -> bool:
        return self.stdout == self.block.expected and self.warnings == self.block.expected_warnings

    def output_diff(self) -> str:
        notebook = self.block.cell is not None
        source, unit = ("stored in the notebook", "cell") if notebook else ("shown on the page", "block")
        found = []
        for what, verb, expected, actual, fence, kind in (
            ("printed output", "differs", self.block.expected, self.stdout, self.block.output, "output"),
            ("warnings", "differ", self.block.expected_warnings, self.warnings, self.block.warnings, "warnings"),
        ):
            if expected == actual:
                continue
            if notebook:
                shown_where = "the cell's stored " + ("output" if kind == "output" else "stderr (its warnings)")
            else:
                shown_where = f"the {kind} block at line {fence.line}" if fence else f"no {kind} block"
            diff = difflib.unified_diff(
                expected.splitlines(keepends=True), actual.splitlines(keepends=True),
                fromfile=f"expected ({source})", tofile=f"actual ({'printed' if kind == 'output' else 'warned'} "
                f"by the {unit})",
            )
            found.append(f"{self.where}: {what} {verb} from {shown_where}\n{''.join(diff)}")
        return "".join(found) + f"(to rewrite it from a real run: pytest --update-outputs {self.block.path})"

    def messages(self, include_output: bool = True) -> list[str]:
        """Everything wrong with the block, each naming its page and line; the output diff last."""
        found = [f"{self.where}: {rule}" for rule in self.broken_rules]
        if self.stderr:
            found.append(f"{self.where}: wrote to stderr, which the page does not show:\n{self.stderr}")
        if self.traceback:
            found.append(f"{self.where}: the block raised; the blocks after it were not run\n{self.traceback}")
        if include_output and not self.output_matches:
            found.append(self.output_diff())
        return found


# ------------------------------------------------------------------ state
def _state() -> dict[str, object]:
    from torch._tensor_str import PRINT_OPTS

    return {
        "grad mode (torch.is_grad_enabled())": torch.is_grad_enabled(),
        "inference mode (torch.is_inference_mode_enabled())": torch.is_inference_mode_enabled(),
        "default dtype (torch.get_default_dtype())": torch.get_default_dtype(),
        "print options (torch.set_printoptions)": dict(vars(PRINT_OPTS)),
        "anomaly detection (torch.is_anomaly_enabled())": torch.is_anomaly_enabled(),
    }


def _reset_state() -> None:
    torch.set_grad_enabled(True)
    torch.set_default_dtype(torch.float32)
    torch.set_printoptions(profile="default", sci_mode=None)
    torch.autograd.set_detect_anomaly(False)
    torch.manual_seed(SENTINEL_SEED)


@functools.cache
def _defaults() -> dict[str, object]:
    """The state every isolated block starts from (computed on first use: importing this
    module must leave a fresh interpreter's torch untouched, see tests.pagerun.fresh_server)."""
    _reset_state()
    return _state()


def _state_left_changed(rng_before: torch.Tensor) -> list[str]:
    defaults = _defaults()
    broken = [
        f"left {name} as {value!r} instead of {defaults[name]!r}; the reader's next "
        "block would run differently, so restore it inside the block (use `with`)"
        for name, value in _state().items()
        if value != defaults[name]
    ]
    if torch.initial_seed() == SENTINEL_SEED and not torch.equal(torch.get_rng_state(), rng_before):
        broken.append(
            "draws random numbers without calling torch.manual_seed(...) first; a fresh "
            "interpreter starts from a different seed every run, so the output would not repeat"
        )
    return broken


def _page_traceback(error: BaseException) -> str:
    """The traceback without this engine's own frames: it starts in the page's code."""
    formatted = traceback.TracebackException.from_exception(error)
    formatted.stack = traceback.StackSummary.from_list(
        [frame for frame in formatted.stack if not frame.filename.startswith(_ENGINE)]
    )
    return "".join(formatted.format())


def new_session() -> types.ModuleType:
    """A fresh reader's session: a new module named __main__, whose namespace the blocks share."""
    session = types.ModuleType("__main__")
    session.__dict__["__builtins__"] = builtins
    return session


# While an isolated block runs: the warn-always setting it found, which a process it forks gets back.
_warn_always_found: list[bool] = []


def _in_forked_child() -> None:
    if _warn_always_found:
        torch.set_warn_always(_warn_always_found[-1])
        _warn_always_found.clear()


@functools.cache
def _restore_warn_always_in_forked_children() -> None:
    os.register_at_fork(after_in_child=_in_forked_child)


@contextlib.contextmanager
def _warn_always() -> Iterator[None]:
    _restore_warn_always_in_forked_children()
    previous = torch.is_warn_always_enabled()
    _warn_always_found.append(previous)
    torch.set_warn_always(True)
    try:
        yield
    finally:
        torch.set_warn_always(previous)
        _warn_always_found.pop()


@contextlib.contextmanager
def _as_main(session: types.ModuleType) -> Iterator[None]:
    """While a block runs, the session is sys.modules["__main__"], as in a reader's interpreter."""
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = session
    try:
        yield
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


# ------------------------------------------------------------------ the loop
def execute(
    blocks: Iterable[Block],
    session: types.ModuleType | None = None,
    *,
    isolated: bool = True,
    until: Callable[[dict[str, object]], bool] | None = None,
    capture: Callable[[], contextlib.AbstractContextManager[Captured]] = python_streams,
) -> list[BlockRun]:
    """Run the blocks that run, in order, in one session; stop after one raises or ``until`` says so.

    ``session`` (from ``new_session()``) lets a caller continue a session or
    read its names afterwards (``vars(session)``); ``isolated`` is explained in the module docstring;
    ``capture`` is how one block's output is caught (Python's streams, or the file
    descriptors in a fresh interpreter, see ``tests.pagerun.fresh_server``).
    """
    session = new_session() if session is None else session
    namespace = vars(session)
    runs: list[BlockRun] = []
    for block in blocks:
        if not block.executed:
            continue
        run = BlockRun(block)
        runs.append(run)
        if isolated:
            _defaults()
            _reset_state()
        rng_before = torch.get_rng_state()
        with contextlib.ExitStack() as stack:
            caught = stack.enter_context(warnings.catch_warnings(record=True))
            _console_filters()
            if isolated:
                stack.enter_context(_warn_always())
            captured = stack.enter_context(capture())
            stack.enter_context(_as_main(session))
            try:
                if block.displays_last_value:
                    statements, last = block.compiled_with_last_value()
                    exec(statements, namespace)
                    shown = eval(last, namespace) if last is not None else None
                    if shown is not None:
                        run.broken_rules.append(
                            f"ends with an expression whose value Jupyter would display "
                            f"({type(shown).__name__}), which the stored output does not show; "
                            "print it or assign it"
                        )
                else:
                    exec(block.compiled(), namespace)
            except BaseException as error:  # noqa: BLE001 - report anything, even SystemExit
                run.traceback = _page_traceback(error)
        caught = _first_time(session, caught)
        run.stdout, run.stderr, run.warnings = captured.stdout, captured.stderr, warning_lines(caught)
        run.build_noise_dropped = any(_BUILD_NOISE.search(str(w.message)) for w in caught)
        if isolated:
            run.broken_rules += _state_left_changed(rng_before)
        if _MEMORY_ADDRESS.search(run.stdout):
            run.broken_rules.append(
                "prints a memory address, which changes every run (print grad_fn.name(), not grad_fn)"
            )
        if run.traceback or (until is not None and until(namespace)):
            break
    return runs
