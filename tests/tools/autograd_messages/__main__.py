"""Derive autograd's messages from a torch build and cross-check docs/data/autograd-messages.yml (see __init__)."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from sitepages.data import DataError

from . import __doc__ as OVERVIEW
from .binary import is_sentence
from .derive import DATA, INTERNAL_TYPES, counts, derive, load_messages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.tools autograd_messages", description=OVERVIEW,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("derive", help="scan a torch's sources and libraries and compare with the data file")
    run.add_argument("--torch", default=sys.executable, metavar="PYTHON",
                     help="the interpreter whose torch to read (default: this one)")
    run.add_argument("--candidates", type=int, default=30, metavar="N",
                     help="how many of the library literals that no listed message covers to print (default 30)")
    commands.add_parser("counts", help="the counts table of the data file")
    arguments = parser.parse_args(argv)
    try:
        data = load_messages(DATA)
    except DataError as problem:
        print(problem, file=sys.stderr)
        return 2
    messages = data.value["messages"]
    if arguments.command == "counts":
        print(f"{DATA.name}: torch {data.value['torch']}, {len(messages)} messages")
        print(counts(messages))
        return 0
    report = derive(data, arguments.torch)
    listed = {source for m in messages for source in ([m["source"]] if isinstance(m["source"], str) else m["source"])}
    internal = Counter(item.family for item in report.found if item.type in INTERNAL_TYPES
                       and item.source not in listed)
    print(f"torch {report.torch} at {report.where} against {DATA.name} (derived from torch {data.value['torch']})")
    print(f"in its Python sources: {len(report.found) - sum(internal.values())} messages "
          f"(and {sum(internal.values())} internal AssertionErrors, not listed)\n")
    print(counts(messages, internal))
    for module in report.missing_modules:
        print(f"\nmodule not in this torch: {module}")
    sections = [
        ("new: in the sources, not in the data",
         [f"  {i.family}  {i.source}  {i.type}: {i.text[:160]}" for i in report.new]),
        ("gone or reworded: in the data, not in this build",
         [f"  {m['id']} ({m['family']}): {why}" for m, why in report.gone]),
        ("moved: same text, another line", [f"  {m['id']}: {old} -> {new}" for m, old, new in report.moved]),
    ]
    for title, lines in sections:
        print(f"\n{title}: {len(lines)}")
        print("\n".join(lines)) if lines else None
    sentences = sum(map(is_sentence, report.candidates))
    print(f"\ncandidates in the wheel not in the list (for review; not a disagreement): {len(report.candidates)} "
          f"of {report.literals} literals in its libraries read like an autograd message and no listed text "
          f"covers them ({sentences} whole sentences, {len(report.candidates) - sentences} fragments)"
          + (f"; the first {arguments.candidates}:" if report.candidates and arguments.candidates else ""))
    for literal in report.candidates[:arguments.candidates]:
        print(f"  {literal[:160]}")
    if report.disagrees:
        other = data.value["torch"] != report.torch.split("+")[0]
        print(f"\nthe data and torch {report.torch} disagree" + (f" (the data is for {data.value['torch']})"
                                                                  if other else ""))
        return 1
    print(f"\nthe data agrees with torch {report.torch}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
