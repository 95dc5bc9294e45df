"""The data files beside the pages, read one way: YAML, the file:line of every value, and a JSON Schema.

    questions = load(DOCS / "data" / "questions.yml", schema=DOCS / "data" / "questions.schema.json")
    questions.value["questions"][3]["id"]          # the data, as yaml.safe_load gives it
    questions.where("questions", 3, "threads")     # "docs/data/questions.yml:57"
    raise questions.error(("questions", 3, "theme"), "theme 'x' is not one of [...]")

Each data file ``X.yml`` is described by ``X.schema.json`` beside it (JSON Schema
2020-12, checked with ``jsonschema``; an editor with a YAML language server
validates against it too). The schema holds the shape of the data: fields,
types, patterns, what is required. What relates one value to another (ids
unique, a theme that exists, a page that exists) stays in the code that reads
the file. Either way the error names the file and the line of the value at
fault, says what was expected and what was found, and is raised as ``error``
(a ``DataError`` subclass of the caller's choosing).

mkdocs.yml is read here too, without a schema: its tags (``!ENV``,
``!!python/name:``) read as nothing, as the page model needs none of them. A
``.json`` file (the version matrix's runs) is read with ``json``, which gives
no lines: its messages name the file and the value's path in it.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import yaml

Key = str | int
# libyaml's parser where PyYAML was built with it (its wheels are), the same constructors either way.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE = "tag:yaml.org,2002:merge"
_TYPES = {"object": "a mapping (key: value)", "array": "a list", "string": "a string", "integer": "an integer",
          "number": "a number", "boolean": "true or false", "null": "nothing"}


class DataError(ValueError):
    """A data file breaks its schema or one of its rules; the message starts with file:line."""


@dataclass(frozen=True)
class Data:
    """A data file's content (``value``) and the line of every value in it, by its path of keys and indexes."""

    value: Any
    path: Path
    lines: dict[tuple[Key, ...], int] | None  # None: the format gives no lines (JSON)
    error_type: type[DataError] = DataError

    def line(self, *keys: Key) -> int:
        """The line of the value at ``keys`` (of a mapping's key, for a value under one); a missing value
        is placed at the nearest value above it that exists."""
        keys = tuple(keys)
        while self.lines and keys not in self.lines:
            keys = keys[:-1]
        return self.lines.get(keys, 1) if self.lines else 1

    def where(self, *keys: Key) -> str:
        """``file:line`` of the value at ``keys``, the file relative to the repository."""
        return f"{_shown(self.path)}:{self.line(*keys)}" if self.lines is not None else str(_shown(self.path))

    def error(self, keys: tuple[Key, ...], message: str) -> DataError:
        return self.error_type(f"{self.where(*keys)}: {message}")


def _shown(path: Path) -> Path:
    from .layout import ROOT  # layout reads mkdocs.yml with this module while it is being imported

    path = Path(path)
    return path.relative_to(ROOT) if path.is_absolute() and path.is_relative_to(ROOT) else path


def load(path: Path, schema: Path | None = None, error: type[DataError] = DataError) -> Data:
    """``path`` read and, given a schema, validated; a break of the schema raises ``error`` at its line."""
    return parse(Path(path).read_text(encoding="utf-8"), path, schema, error)


def parse(text: str, path: Path, schema: Path | None = None, error: type[DataError] = DataError) -> Data:
    """As ``load``, for text said to come from ``path`` (error messages name it)."""
    data = _read_json(text, path, error) if Path(path).suffix == ".json" else _read_yaml(text, path, error)
    if schema is not None:
        validate(data, schema)
    return data


def _read_json(text: str, path: Path, error: type[DataError]) -> Data:
    try:
        return Data(json.loads(text), Path(path), None, error)
    except json.JSONDecodeError as problem:
        raise error(f"{_shown(path)}:{problem.lineno}: not valid JSON: {problem.msg}") from None


def _read_yaml(text: str, path: Path, error: type[DataError]) -> Data:
    loader = _Loader(text)
    lines: dict[tuple[Key, ...], int] = {}

    def build(node: yaml.Node, keys: tuple[Key, ...]) -> Any:
        lines.setdefault(keys, node.start_mark.line + 1)
        if node.tag not in loader.yaml_constructors:  # mkdocs.yml's !ENV, !relative, !!python/name:...
            return None
        if isinstance(node, yaml.MappingNode):
            first: dict = {}
            for key_node, _ in node.value:
                key = loader.construct_object(key_node) if key_node.tag != _MERGE else _MERGE
                if key in first and key != _MERGE:
                    raise error(f"{_shown(path)}:{key_node.start_mark.line + 1}: {key!r} is given twice in "
                                f"this mapping (first at line {first[key]})")
                first[key] = key_node.start_mark.line + 1
            loader.flatten_mapping(node)  # merge keys (<<: *anchor) resolved as PyYAML does
            mapping: dict = {}
            for key_node, value_node in node.value:
                key = loader.construct_object(key_node)
                lines[(*keys, key)] = key_node.start_mark.line + 1
                mapping[key] = build(value_node, (*keys, key))
            return mapping
        if isinstance(node, yaml.SequenceNode):
            return [build(item, (*keys, index)) for index, item in enumerate(node.value)]
        return loader.construct_object(node)

    try:
        root = loader.get_single_node()
        value = build(root, ()) if root is not None else None
    except yaml.YAMLError as problem:
        raise error(f"{_shown(path)}:{_yaml_problem(problem)}") from None
    finally:
        loader.dispose()
    return Data(value, Path(path), lines, error)


def _yaml_problem(problem: yaml.YAMLError) -> str:
    """``LINE: not valid YAML: what`` for a parser's error (libyaml's and PyYAML's alike)."""
    if not isinstance(problem, yaml.MarkedYAMLError):
        return f"1: not valid YAML: {problem}"
    mark = problem.problem_mark or problem.context_mark
    context = f"{problem.context} (line {problem.context_mark.line + 1}): " if problem.context_mark else ""
    return f"{mark.line + 1 if mark else 1}: not valid YAML: {context}{problem.problem}"


@functools.cache
def _validator(schema: Path) -> jsonschema.Draft202012Validator:
    document = json.loads(Path(schema).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document)


def validate(data: Data, schema: Path) -> None:
    """Raise ``data.error_type`` for every break of the schema, first in the file first, one a line."""
    validator = _validator(Path(schema))
    found = []
    for problem in validator.iter_errors(data.value):
        keys, message = _explain(problem, validator.schema)
        label = _label(data.value, tuple(problem.absolute_path), validator.schema)
        found.append((data.line(*keys), data.where(*keys), label + message))
    if found:
        raise data.error_type("\n".join(f"{where}: {message}" for _, where, message in sorted(found)))


def _explain(problem: jsonschema.ValidationError, root: dict) -> tuple[tuple[Key, ...], str]:
    """Where the problem is (keys) and what was expected there versus what is there."""
    keys, found, kind = tuple(problem.absolute_path), problem.instance, problem.validator
    schema = problem.schema if isinstance(problem.schema, dict) else {}
    expected = schema.get("description")
    if kind == "required":
        missing = ast.literal_eval(problem.message.removesuffix(" is a required property"))
        own = _resolved(schema, root).get("properties", {}).get(missing, {})  # its description, not its $ref's
        about = own.get("description") or expected or _child(schema, missing, root).get("description")
        return keys, f"missing {missing!r}" + (f"; expected {about}" if about else "")
    if kind in ("additionalProperties", "unevaluatedProperties"):
        declared = _declared(schema, root)
        unknown = next((key for key in found if key not in declared), None)
        if unknown is None:
            return keys, problem.message
        return (*keys, unknown), f"unknown key {unknown!r}" + (f"; expected {', '.join(declared)}" if declared else "")
    if "propertyNames" in problem.schema_path:  # the error is about a key, not a value
        return (*keys, found), f"key {found!r}: expected {expected or problem.message}"
    if kind == "uniqueItems":
        index = next(i for i, item in enumerate(found) if item in found[:i])
        return (*keys, index), f"{_short(found[index])} is listed twice (first as item {found.index(found[index]) + 1})"
    if not expected and kind == "type":
        expected = " or ".join(_TYPES.get(name, name) for name in ([schema["type"]] if isinstance(
            schema["type"], str) else schema["type"]))
    elif not expected and kind == "enum":
        expected = "one of " + ", ".join(map(repr, schema["enum"]))
    elif not expected and kind == "pattern":
        expected = f"a string matching {schema['pattern']}"
    return keys, f"expected {expected}, got {_short(found)}" if expected else problem.message


def _resolved(schema: dict, root: dict) -> dict:
    """A schema with its local $ref ("#/$defs/...") followed, the referring schema's own keys kept."""
    reference = schema.get("$ref", "")
    if not reference.startswith("#/"):
        return schema
    target = root
    for part in reference[2:].split("/"):
        target = target[part]
    return {**_resolved(target, root), **{key: value for key, value in schema.items() if key != "$ref"},
            "properties": {**_resolved(target, root).get("properties", {}), **schema.get("properties", {})}}


def _child(schema: dict, key: Key, root: dict) -> dict:
    """The schema of the value at ``key`` in a value described by ``schema`` ({} where none is named)."""
    schema = _resolved(schema, root) if isinstance(schema, dict) else {}
    if isinstance(key, int):
        found = schema.get("items")
    else:
        found = schema.get("properties", {}).get(key, schema.get("additionalProperties"))
    return _resolved(found, root) if isinstance(found, dict) else {}


def _declared(schema: dict, root: dict) -> list[str]:
    """The keys a mapping's schema names, its $ref's included."""
    return list(_resolved(schema, root).get("properties", {}))


def _label(value: Any, keys: tuple[Key, ...], root: dict) -> str:
    """How a message names the value at ``keys``: ``question 'some-id': threads.en[0]: `` (an item of a
    list whose items have a ``title`` in the schema and an ``id`` in the data is named by both),
    ``page_chrome.copied: ``, or nothing for the whole file."""
    name, path, node, schema = "", "", value, root
    for key in keys:
        node, schema = node[key], _child(schema, key, root)
        if isinstance(key, int) and schema.get("title") and isinstance(node, dict) and isinstance(
                node.get("id"), str):
            name, path = f"{schema['title']} {node['id']!r}", ""
        else:
            if isinstance(key, int) or not re.fullmatch(r"[\w-]+", key):  # pages['a/b.md'], [0]
                path += f"[{key!r}]"
            else:
                path += f".{key}" if path else key
    label = ": ".join(part for part in (name, path) if part)
    return f"{label}: " if label else ""


def _short(value: Any, width: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."
