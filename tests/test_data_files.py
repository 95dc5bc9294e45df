"""Every data file beside the pages has a JSON Schema, is read by the one loader, and a break names its line.

The loader is ``sitepages.data``; each reader of a file keeps only the rules
between its values (tests/test_question_bank.py, tests/test_interface_strings.py,
tests/test_chinese_pages.py and tests/test_torch_versions.py test those).
"""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from sitepages import DOCS, LANGUAGES, ROOT
from sitepages.data import DataError, load, parse

DATA_FILES = sorted(path for folder in ("data", "search") for path in (DOCS / folder).rglob("*.yml"))
SCHEMAS = sorted(path for path in DOCS.rglob("*.schema.json"))


def schema_of(path):
    return path.with_name(path.name.removesuffix(".yml") + ".schema.json")


@pytest.mark.parametrize("path", DATA_FILES, ids=lambda path: path.relative_to(DOCS).as_posix())
def test_every_data_file_names_its_schema_beside_it_and_has_its_shape(path):
    schema = schema_of(path)
    assert schema.is_file(), f"{path.relative_to(ROOT)} has no schema: write {schema.relative_to(ROOT)}"
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == f"# yaml-language-server: $schema={schema.name}", (
        f"{path.relative_to(ROOT)}:1 should name its schema for editors: "
        f"'# yaml-language-server: $schema={schema.name}', found {first!r}"
    )
    load(path, schema)


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda path: path.relative_to(DOCS).as_posix())
def test_every_schema_is_valid_names_the_site_languages_and_explains_its_alternatives(schema):
    document = json.loads(schema.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(document)
    problems = []

    def walk(node, where):
        if isinstance(node, dict):
            for names in (node.get("enum"), node.get("required"), list(node.get("properties", {}))):
                if isinstance(names, list) and set(names) & set(LANGUAGES) and not set(LANGUAGES) <= set(names):
                    problems.append(f"{where}: lists {names}, not every language of mkdocs.yml {list(LANGUAGES)}")
            if ("anyOf" in node or "oneOf" in node) and "description" not in node:
                problems.append(f"{where}: anyOf/oneOf without a description (the error would not say what "
                                "was expected)")
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}/{index}")

    walk(document, "#")
    assert not problems, f"{schema.relative_to(ROOT)}:\n" + "\n".join(problems)


# --- the loader --------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "items": {"type": "array", "items": {"title": "item", "type": "object", "required": ["id", "size"],
                                             "properties": {"id": {"type": "string"},
                                                            "size": {"type": "integer", "description": "a count"}}}},
    },
}
TEXT = "# a comment\nitems:\n  - id: first\n    size: 3\n  - id: second\n    size: 4\n"


@pytest.fixture
def schema(tmp_path):
    path = tmp_path / "example.schema.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    return path


def test_every_value_has_its_line():
    data = parse(TEXT, ROOT / "docs/data/example.yml")
    assert data.value == {"items": [{"id": "first", "size": 3}, {"id": "second", "size": 4}]}
    assert [data.line("items"), data.line("items", 1), data.line("items", 1, "size")] == [2, 5, 6]
    assert data.where("items", 1, "colour") == "docs/data/example.yml:5", "a missing key is placed at its parent"


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: t.replace("size: 4", "size: four"), r"^x.yml:6: item 'second': size: expected a count, got 'four'$"),
        (lambda t: t.replace("    size: 4\n", ""), r"^x.yml:5: item 'second': missing 'size'; expected a count$"),
        (lambda t: t + "colour: red\n", r"^x.yml:7: unknown key 'colour'; expected items$"),
        (lambda t: t.replace("    size: 4\n", "    size: 4\n    size: 5\n"),
         r"^x.yml:7: 'size' is given twice in this mapping \(first at line 6\)$"),
        (lambda t: t.replace("id: second", "id: [second"), r"^x.yml:6: not valid YAML: while parsing a flow sequence"),
        (lambda t: t.replace("size: 3", "size: x").replace("size: 4", "size: y"),
         r"^x.yml:4: .*'x'\nx.yml:6: .*'y'$"),
    ],
)
def test_a_break_names_the_file_the_line_what_was_expected_and_what_was_found(schema, change, message):
    with pytest.raises(DataError, match=message):
        parse(change(TEXT), "x.yml", schema)


def test_mkdocs_yml_reads_with_its_tags_as_nothing():
    config = load(ROOT / "mkdocs.yml").value
    assert config["site_url"] is None and config["docs_dir"] == "docs"
    assert re.search(r"!ENV \[SITE_URL", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
