"""Find the word list that shows lunr's token-set bug in Material's search worker, for the search test.

    python -m tests.tools lunr_phantom_words            # print what it finds
    python -m tests.tools lunr_phantom_words --write    # and write tests/browser/lunr-phantom-words.json

lunr 2.3.9, inside Material's search worker, builds a set of the index's words
that can accept words no page holds (docs/assets/javascripts/workers/lunr-token-set-fix.js
says why and fixes it). tests/browser/test_search.py proves the fix on a list
of words that shows the bug in Material's worker as it ships. Which list shows
it depends on the worker's code, so when Material's worker changes and that
test says its list "no longer shows lunr's bug", this finds a new one: a
seeded search run by Node.js (tests/tools/lunr_phantom_words.js) on the
installed Material's worker. If none shows the bug, lunr was fixed: the fix and
its test can go.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import material

from tests.pagerun.import_roots import ROOT

FINDER = Path(__file__).with_suffix(".js")
WORDS = ROOT / "tests/browser/lunr-phantom-words.json"


def search_worker() -> Path:
    workers = sorted((Path(material.__file__).parent / "templates/assets/javascripts/workers").glob("search.*.min.js"))
    if len(workers) != 1:
        raise SystemExit(f"lunr_phantom_words: expected one search.*.min.js in Material's templates, found {workers}")
    return workers[0]


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.tools lunr_phantom_words",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {WORDS.relative_to(ROOT)}")
    options = parser.parse_args()
    node = shutil.which("node")
    if not node:
        raise SystemExit("lunr_phantom_words: Node.js (node) is not on PATH; install it (the browser tests' "
                         "`npm ci` needs it too)")
    worker = search_worker()
    run = subprocess.run([node, str(FINDER), str(worker)], capture_output=True, text=True, check=False)
    if run.returncode:
        print(run.stderr, file=sys.stderr, end="")
        return run.returncode
    found = {"worker": worker.name, **json.loads(run.stdout)}
    words = found["setup"]["docs"][0]["text"].split()
    print(f"{worker.name}: {len(words)} words; the token set also accepts {found['phantoms']}")
    if options.write:
        WORDS.write_text(json.dumps(found) + "\n", encoding="utf-8")
        print(f"wrote {WORDS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
