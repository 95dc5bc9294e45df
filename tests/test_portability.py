"""Every page and notebook prints what it shows in a fresh interpreter, whatever the reader's CPU.

Each environment of ``tests.pagerun.environments.PORTABILITY`` switches this
machine's code paths (ATen's SIMD kernels, MKL's BLAS path, oneDNN's
instructions, the thread count, TensorFlow's oneDNN) the way another reader's
CPU would. Under each, every page is replayed as a reader pastes it: in a
fresh interpreter (``tests.pagerun.fresh``), nothing reset between blocks, Python's
default warning filters. A block fails when its output differs from the page,
when it writes anything to stderr (C++ log lines included), or when it raises;
the message names the page, the line and the environment.

Cost: one server process per environment imports torch once and forks one
child per page; the servers start as the run begins, so that they work while
the rest of the suite does (tests/pagerun/portability.py). A Chinese page
whose code equals its English twin's (comments aside, see sitepages/twins.py)
is not replayed again: it is compared with the run of that same code.

To check some pages only: ``pytest tests/test_portability.py -k leaf-nodes``.
"""

from __future__ import annotations

import pytest

from sitepages import page_id, parse, sources
from tests.pagerun import portability
from tests.pagerun.environments import PORTABILITY

SOURCES = sources()


@pytest.fixture(scope="session")
def replays(request) -> dict[tuple[str, str], list]:
    """(environment name, source) -> its BlockRuns, for the selected items, from the replays this run
    started as it began (tests/pagerun/portability.py)."""
    return portability.results(request.session)


@pytest.mark.parametrize("environment", PORTABILITY, ids=lambda environment: environment.name)
@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_page_prints_the_same_in_a_fresh_interpreter(replays, source, environment):
    runs = replays[(environment.name, str(source))]
    failures = [message for run in runs for message in run.messages()]
    ran = len(runs) - (1 if runs and runs[-1].traceback else 0)
    expected = sum(block.executed for block in parse(source))
    if not failures and ran != expected:
        failures.append(f"{source} [{environment.name}]: {ran} of its {expected} blocks ran")
    if failures:
        pytest.fail(f"in the environment {environment}\n\n" + "\n\n".join(failures), pytrace=False)
