"""Runs code copied from the pages, each in its own fresh namespace, and prints what each printed.

Reads a JSON list of {"name", "code"} from stdin; writes a JSON list of
{"name", "stdout", "error"} to stdout. torch is imported before stdin is read,
so the import overlaps with the browser copying the blocks, and is paid once
for many blocks instead of once per block. Each block is the first of its
page, which the suite already requires to be self-contained (it imports what
it needs, seeds what it draws); tests/test_fresh_session.py separately runs
every page in a brand-new interpreter.
"""

import contextlib
import io
import json
import sys
import traceback
import warnings

import torch  # noqa: F401  (imported early on purpose, see above)


def run(name: str, code: str) -> dict:
    stdout = io.StringIO()
    error = ""
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(stdout):
        warnings.simplefilter("always")
        try:
            exec(compile(code, f"<copied from {name}>", "exec"), {"__name__": "__main__"})
        except BaseException:  # noqa: BLE001  (report it, whatever it is)
            error = traceback.format_exc(limit=-3)
    if caught and not error:
        error = "a warning escaped the block: " + "; ".join(
            f"{w.category.__name__}: {w.message}" for w in caught
        )
    return {"name": name, "stdout": stdout.getvalue(), "error": error}


def main() -> None:
    snippets = json.load(sys.stdin)
    real_stdout = sys.stdout
    results = [run(s["name"], s["code"]) for s in snippets]
    json.dump(results, real_stdout)


if __name__ == "__main__":
    main()
