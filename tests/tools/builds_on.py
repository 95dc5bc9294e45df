"""Say which earlier block a section builds on, where its first block does not run alone.

    python -m tests.tools builds_on docs/en/PAGE.md docs/zh/PAGE.md          # list what it would add
    python -m tests.tools builds_on --write docs/en/PAGE.md docs/zh/PAGE.md  # add the lines

A reader who lands on a section copies its first block (tests/test_entry_points.py).
For each ``##`` section whose first block does not print, alone in a fresh
interpreter, what the page shows, this tool finds the earlier block that
defines the names it uses (the last one, reading up the page; with no such
name, the previous section's code, whose state it continues) and writes,
before the block:

    This section builds on [Section title](#section-id) above.
    { .builds-on }

(Chinese: ``本节接着使用[标题](#id)一节的代码。``). Making the block self-contained is
often better for the reader when it costs a few lines: the tool only writes
the line a writer would otherwise type; read what it wrote.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import sys
from pathlib import Path

from sitepages import language_of, parse_page
from sitepages.sections import sections as sitepages_sections
from tests.pagerun.entry_points import Section, sections
from tests.pagerun.fresh import Replay

# Per language: a section builds on another section's code / on the code at the top of the page.
SENTENCES = {
    "en": ("This section builds on [{title}](#{anchor}) above.",
           "This section builds on [the code at the top of the page](#{anchor})."),
    "zh": ("本节接着使用[{title}](#{anchor})一节的代码。", "本节接着使用[本页开头](#{anchor})的代码。"),
}
def heading_ids(path: Path, found: list[Section]) -> tuple[str, list[str]]:
    """The page's title id and the ids of its ``##`` sections ``found``, as the built site gives them
    (sitepages.sections, the anchors the versions page and the question bank link to)."""
    built = sitepages_sections(path)
    by_line = {section.line: section.anchor for section in built if section.level == 2}
    first = found[0].line if found else float("inf")
    titles = [section.anchor for section in built if section.level == 1 and section.line < first]
    return (titles[-1] if titles else ""), [by_line.get(section.line, "") for section in found]


def defined_names(code: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def free_names(code: str) -> set[str]:
    """Names the code reads but neither defines nor gets from builtins."""
    used = {node.id for node in ast.walk(ast.parse(code)) if isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)}
    return used - defined_names(code) - set(dir(builtins))


def cause(section: Section, earlier: list[tuple[int, object]], all_sections: list[Section]) -> int:
    """Index of the section (-1: the top of the page) whose code the section's first block needs."""
    wanted = free_names(section.first.code)
    for index, block in reversed(earlier):
        if wanted & defined_names(block.code):
            return index
    previous = [index for index, other in enumerate(all_sections)
                if other.line < section.line and other.first is not None]
    return previous[-1] if previous else -1


def plan(paths: list[Path]) -> dict[Path, list[tuple[Section, int]]]:
    """Per page, the sections whose first block does not run alone, with the section it builds on."""
    jobs, info = {}, {}
    for path in paths:
        found = sections(path)
        for section in found:
            if section.first is not None and section.builds_on_line is None:
                jobs[f"{path}:{section.line}"] = [section.first]
                info[f"{path}:{section.line}"] = (path, section, found)
    runs = Replay(jobs).results(timeout=1200) if jobs else {}
    result: dict[Path, list[tuple[Section, int]]] = {path: [] for path in paths}
    for name, (path, section, found) in info.items():
        if not any(run.messages() for run in runs[name]) and runs[name]:
            continue
        blocks = [block for block in parse_page(path) if block.executed and block.line < section.first.line]
        earlier = []
        for block in blocks:
            owner = [index for index, other in enumerate(found) if other.line < block.line]
            earlier.append((owner[-1] if owner else -1, block))
        result[path].append((section, cause(section, earlier, found)))
    return result


def lines_to_add(path: Path, section: Section, target: int, found: list[Section]) -> list[str]:
    title_id, ids = heading_ids(path, found)
    if not all(ids):
        sys.exit(f"{path}: a `##` section has no anchor in sitepages.sections: add the builds-on lines by hand")
    other_section, top = SENTENCES[language_of(path)]
    line = (top.format(anchor=title_id) if target < 0
            else other_section.format(title=found[target].title, anchor=ids[target]))
    indent = " " * section.first.indent
    return [indent + line, indent + "{ .builds-on }", ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument("--write", action="store_true", help="add the lines to the pages")
    options = parser.parse_args(argv)
    for path in options.pages:
        if path.suffix != ".md" or not path.is_file():
            parser.error(f"{path}: expected a Markdown page under docs/")
    for path, todo in plan(options.pages).items():
        found = sections(path)
        lines = path.read_text(encoding="utf-8").splitlines()
        # Bottom-up, so that earlier insertions do not move the lines of later ones.
        for section, target in sorted(todo, key=lambda pair: -pair[0].first.line):
            added = lines_to_add(path, section, target, found)
            at = section.first.line - 1
            while at > 0 and lines[at - 1].strip().startswith("<!--"):
                at -= 1  # before the block's markers, if any
            print(f"{path}:{section.line} {section.title!r}: {added[0].strip()}")
            lines[at:at] = added
        if options.write and todo:
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
