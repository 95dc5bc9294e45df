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
child per page. A Chinese page whose code equals its English twin's
(comments aside, see sitepages/twins.py) is not replayed again: it is compared with the
run of that same code.

To check some pages only: ``pytest tests/test_portability.py -k leaf-nodes``.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from sitepages import page_id, parse, sources
from sitepages.twins import code_key
from tests.pagerun.environments import PORTABILITY
from tests.pagerun.fresh import Replay

SOURCES = sources()


@pytest.fixture(scope="session")
def replays(request) -> dict[tuple[str, str], list]:
    """(environment name, source) -> its BlockRuns, for the selected items, all environments at once."""
    selected: dict[str, set] = {}
    for item in request.session.items:
        if getattr(item, "originalname", None) == "test_page_prints_the_same_in_a_fresh_interpreter":
            params = item.callspec.params
            selected.setdefault(params["environment"].name, set()).add(params["source"])
    blocks = {source: parse(source) for chosen in selected.values() for source in chosen}
    by_code: dict[tuple, list] = {}
    for source in sorted(blocks):
        by_code.setdefault(code_key(blocks[source]), []).append(source)
    servers = {}
    for environment in PORTABILITY:
        wanted = selected.get(environment.name, set())
        distinct = {same[0]: same for same in by_code.values() if wanted & set(same)}
        jobs = {str(first): blocks[first] for first in distinct}
        servers[environment.name] = (Replay(jobs, environment), distinct)
    results = {}
    for name, (server, distinct) in servers.items():
        runs = server.results()
        for first, same in distinct.items():
            for source in same:
                own = [block for block in blocks[source] if block.executed]
                results[(name, source)] = [replace(run, block=block)
                                           for run, block in zip(runs[str(first)], own, strict=False)]
    return results


@pytest.mark.parametrize("environment", PORTABILITY, ids=lambda environment: environment.name)
@pytest.mark.parametrize("source", SOURCES, ids=page_id)
def test_page_prints_the_same_in_a_fresh_interpreter(replays, source, environment):
    runs = replays[(environment.name, source)]
    failures = [message for run in runs for message in run.messages()]
    ran = len(runs) - (1 if runs and runs[-1].traceback else 0)
    expected = sum(block.executed for block in parse(source))
    if not failures and ran != expected:
        failures.append(f"{source} [{environment.name}]: {ran} of its {expected} blocks ran")
    if failures:
        pytest.fail(f"in the environment {environment}\n\n" + "\n\n".join(failures), pytrace=False)
