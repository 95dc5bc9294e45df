"""The error and warning messages a torch's Python sources raise, read with ``ast`` (nothing is imported).

``scan(package)`` walks the modules that ``SCOPE`` assigns to each family and
returns every message it finds: ``raise X("...")`` (f-strings, ``%`` and
``.format`` too, a message built in a variable of the same function),
``warnings.warn(...)``, ``@deprecated("...")``, ``torch._check*(...)`` and
dynamo's ``unimplemented(...)`` graph breaks. A part of a message that varies
(a formatted value, a name) is written ``<...>``.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass
from pathlib import Path

HOLE = "<...>"
# Family -> the package's modules (relative to site-packages), each with an optional filter: the names of the
# functions whose messages count (a class name takes its methods), or a regex the message must match.
Scope = dict[str, dict[str, dict]]
_AUTOGRADISH = r"(?i)grad|backward|autograd|hook|leaf|requires_grad|saved tensor|checkpoint"
SCOPE: Scope = {
    "engine": {
        "torch/autograd/__init__.py": {},
        "torch/autograd/graph.py": {"exclude_functions": ["saved_tensors_hooks", "register_multi_grad_hook",
                                                           "_MultiHandle", "allow_mutation_on_saved_tensors",
                                                           "_swap_with_cloned", "_CloneArgBeforeMutateMode",
                                                           "_AllowMutationOnSavedContext",
                                                           "disable_saved_tensors_hooks"]},
        "torch/autograd/variable.py": {},
        "torch/autograd/forward_ad.py": {},
        "torch/autograd/functional.py": {},
    },
    "custom-function": {
        "torch/autograd/function.py": {},
        "torch/autograd/gradcheck.py": {},  # gradcheck/gradgradcheck: checks a custom backward against numbers
    },
    "hooks": {
        "torch/utils/hooks.py": {},
        "torch/autograd/graph.py": {"functions": ["saved_tensors_hooks", "register_multi_grad_hook",
                                                  "_MultiHandle", "disable_saved_tensors_hooks"]},
        "torch/nn/modules/module.py": {"match": r"(?i)hook"},
        "torch/_tensor.py": {"match": r"(?i)hook"},
    },
    "inplace-views": {
        "torch/autograd/graph.py": {"functions": ["allow_mutation_on_saved_tensors", "_swap_with_cloned",
                                                  "_CloneArgBeforeMutateMode", "_AllowMutationOnSavedContext"]},
    },
    "grad-modes": {
        "torch/autograd/grad_mode.py": {},
    },
    "anomaly": {
        "torch/autograd/anomaly_mode.py": {},
    },
    "functorch": {
        "torch/_functorch/eager_transforms.py": {},
        "torch/_functorch/apis.py": {},
        "torch/_functorch/vmap.py": {},
        "torch/_functorch/functional_call.py": {},
        "torch/_functorch/autograd_function.py": {},
        "torch/nn/utils/stateless.py": {},
    },
    "checkpoint": {
        "torch/utils/checkpoint.py": {},
    },
    "amp": {
        "torch/amp/grad_scaler.py": {},
        "torch/cuda/amp/grad_scaler.py": {},
    },
    "optim": {
        "torch/optim/optimizer.py": {},
        "torch/optim/sgd.py": {"match": r"(?i)grad|sparse|param"},
        "torch/optim/adam.py": {"match": r"(?i)grad|sparse|param"},
        "torch/optim/adamw.py": {"match": r"(?i)grad|sparse|param"},
        "torch/optim/rmsprop.py": {"match": r"(?i)grad|sparse|param"},
        "torch/optim/adagrad.py": {"match": r"(?i)grad|sparse|param"},
        "torch/optim/lbfgs.py": {"match": r"(?i)grad|sparse|param"},
        "torch/nn/utils/clip_grad.py": {},
    },
    "module-tensor": {
        "torch/_tensor.py": {"match": r"(?i)grad|leaf|leaves", "exclude_match": r"(?i)hook"},
        "torch/nn/parameter.py": {},
        "torch/nn/modules/module.py": {"functions": ["register_parameter", "__setattr__", "register_buffer",
                                                     "_apply", "requires_grad_", "zero_grad", "to_empty",
                                                     "get_parameter", "share_memory"],
                                       "exclude_match": r"(?i)hook"},
    },
    "ddp": {
        "torch/nn/parallel/distributed.py": {"match": _AUTOGRADISH + r"|unused|parameter|static_graph"},
    },
    "compile": {
        "torch/_dynamo/compiled_autograd.py": {},
        "torch/_dynamo/variables/tensor.py": {"match": _AUTOGRADISH},
        "torch/_dynamo/variables/torch.py": {"match": _AUTOGRADISH},
        "torch/_dynamo/variables/misc.py": {"match": _AUTOGRADISH},
        "torch/_dynamo/variables/higher_order_ops.py": {"match": _AUTOGRADISH},
        "torch/_dynamo/variables/functions.py": {"match": _AUTOGRADISH},
        "torch/_functorch/_aot_autograd/runtime_wrappers.py": {"match": _AUTOGRADISH + r"|mutat"},
        "torch/_functorch/_aot_autograd/collect_metadata_analysis.py": {"match": _AUTOGRADISH + r"|mutat"},
        "torch/_functorch/_aot_autograd/graph_capture_wrappers.py": {"match": _AUTOGRADISH + r"|mutat"},
        "torch/_functorch/aot_autograd.py": {"match": _AUTOGRADISH + r"|mutat"},
        # "HOP: Unsafe side effect": a hook or checkpointed function that writes outside it, under fullgraph=True
        "torch/_dynamo/side_effects.py": {"functions": ["check_allowed_side_effect"], "match": r"^HOP: "},
        # the partitioner's checks of region_activation_memory_budget (one budget covering a compiled graph's forward)
        "torch/_functorch/partitioners.py": {"functions": ["min_cut_rematerialization_partition"],
                                             "match": r"^torch\.autograd\.graph\.region_activation_memory_budget"},
    },
}
CHECKS = {"_check": "RuntimeError", "_check_value": "ValueError", "_check_type": "TypeError",
          "_check_index": "IndexError", "_check_not_implemented": "NotImplementedError"}
# Calls whose first argument is the message of the RuntimeError that registering saved-tensor hooks then raises.
SAVED_HOOKS_DISABLED = ("disable_saved_tensors_hooks", "_saved_tensors_hooks_disable")
_TYPE_NAME = re.compile(r"^[A-Z]\w*(Error|Exception|Warning|Unsupported)$|^Unsupported$")
# Exceptions that keep BaseException's str(): given several arguments, they print the tuple of them,
# ('first', 0, ...). Python's own that do, and torch's GradcheckError (a plain subclass of RuntimeError); other torch
# exceptions are left out, as one that defines its own __init__ or __str__ prints otherwise.
_ARGS_TUPLE_PRINTED = {name for name, value in vars(builtins).items()
                       if isinstance(value, type) and issubclass(value, BaseException)
                       and value.__str__ is BaseException.__str__} | {"GradcheckError"}
_SPACES = re.compile(r"\s+")
_HOLES = re.compile(r"(?:<\.\.\.>\s*)+(?=<\.\.\.>)|(<\.\.\.>)(?:\s*<\.\.\.>)+")


@dataclass(frozen=True)
class Found:
    """One message in the sources: its type as printed, its text (varying parts ``<...>``), where it is."""

    family: str
    type: str
    text: str
    file: str  # relative to site-packages: torch/autograd/graph.py
    line: int

    @property
    def source(self) -> str:
        return f"{self.file}:{self.line}"


def normal(text: str) -> str:
    """Whitespace collapsed to one space, runs of holes to one hole, ends stripped."""
    text = _SPACES.sub(" ", text).strip()
    while True:
        shorter = re.sub(r"<\.\.\.>\s*<\.\.\.>", HOLE, text)
        if shorter == text:
            return text
        text = shorter


def literal_pieces(text: str) -> list[str]:
    """The fixed parts of a message, between its holes."""
    return [piece.strip() for piece in re.split(r"<[^<>]*>", text) if piece.strip()]


class _Text:
    """The text of a message expression, holes for what varies; ``None`` when it is not text at all."""

    def __init__(self, assignments: dict[str, list[ast.expr]], helpers: dict[str, str] | None = None):
        self.assignments = assignments
        self.helpers = helpers or {}  # name -> the text a function of the module returns (a message builder)

    def __call__(self, node: ast.expr | None, depth: int = 0) -> str | None:
        if node is None or depth > 8:
            return None
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bytes):  # DelayedError(b"...") takes its message as bytes
                return node.value.decode("utf-8", "replace")
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr):
            return "".join(self(part, depth + 1) or HOLE if isinstance(part, ast.Constant) else HOLE
                           for part in node.values)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self(node.left, depth + 1), self(node.right, depth + 1)
            if left is None and right is None:
                return None
            return (left if left is not None else HOLE) + (right if right is not None else HOLE)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            left = self(node.left, depth + 1)
            return re.sub(r"%(\([^)]*\))?[-#0 +]*\d*(\.\d+)?[sdrfgiex]", HOLE, left) if left is not None else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = self(node.func.value, depth + 1)
            if owner is not None and node.func.attr == "format":
                return re.sub(r"\{[^{}]*\}", HOLE, owner)
            if owner is not None and node.func.attr in ("strip", "rstrip", "lstrip"):
                return owner
            if isinstance(node.func.value, ast.Constant) and node.func.attr == "join":
                return HOLE
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in self.helpers:
            return self.helpers[node.func.id]
        if isinstance(node, ast.Lambda):
            return self(node.body, depth + 1)
        if isinstance(node, ast.Name) and node.id in self.assignments:
            parts = [self(value, depth + 1) for value in self.assignments[node.id]]
            texts = [part for part in parts if part is not None]
            return "".join(texts) if texts else None
        return None


def _assignments(function: ast.AST) -> dict[str, list[ast.expr]]:
    """name -> the string pieces assigned to it in this function (``x = "..."`` then ``x += "..."``)."""
    found: dict[str, list[ast.expr]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = [node.value]
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            found.setdefault(node.target.id, []).append(node.value)
    return found


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        return _name(node.func)
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((keyword.value for keyword in call.keywords if keyword.arg == name), None)


def _messages(call: ast.Call, text: _Text) -> list[tuple[str, str]]:
    """(type, text) of the messages a call raises or warns, if it is one that does."""
    name = _name(call.func)
    arguments = call.args
    if name == "DelayedError" and arguments:  # raised as a RuntimeError when the backward that it stands for runs
        return [("RuntimeError", text(arguments[0]))]
    if name in SAVED_HOOKS_DISABLED and arguments:  # raised as a RuntimeError when a saved-tensor hook is registered
        return [("RuntimeError", text(arguments[0]))]
    if name == "_log_and_throw" and len(arguments) > 1:  # DDP logs, then raises the given type
        return [(_name(arguments[0]), text(arguments[1]))]
    if _TYPE_NAME.match(name) and len(arguments) > 1 and name in _ARGS_TUPLE_PRINTED:
        first = text(arguments[0])
        if first is None:
            return [(name, None)]
        quote = '"' if "'" in first and '"' not in first else "'"
        return [(name, f"({quote}{first}{quote}, {HOLE}")]  # str(GradcheckError("a", 0)) is "('a', 0)"
    if _TYPE_NAME.match(name) and arguments:
        return [(name, text(arguments[0]))]
    if name == "warn" and (arguments or _keyword(call, "message")):
        category = arguments[1] if len(arguments) > 1 else _keyword(call, "category")
        return [(_name(category) if category is not None else "UserWarning",
                 text(arguments[0] if arguments else _keyword(call, "message")))]
    if name == "deprecated" and arguments:
        category = _keyword(call, "category")
        return [(_name(category) if category is not None else "DeprecationWarning", text(arguments[0]))]
    if name in CHECKS and len(arguments) > 1:
        return [(CHECKS[name], text(arguments[1]))]
    if name == "_check_with" and len(arguments) > 2:
        return [(_name(arguments[0]), text(arguments[2]))]
    if name in ("unimplemented", "unimplemented_v2"):
        parts = [text(_keyword(call, key)) for key in ("gb_type", "context", "explanation")]
        if parts[0] is not None:  # printed as "<gb_type>\n  Explanation: <explanation>\n ..."
            return [("Unsupported", f"{parts[0]} Explanation: {parts[2]}" if parts[2] else parts[0])]
        if arguments:
            return [("Unsupported", text(arguments[0]))]
    return []


def _in_scope(function_names: list[str], rules: dict, message: str) -> bool:
    if "functions" in rules and not set(rules["functions"]) & set(function_names):
        return False
    if set(rules.get("exclude_functions", ())) & set(function_names):
        return False
    if "match" in rules and not re.search(rules["match"], message):
        return False
    return not ("exclude_match" in rules and re.search(rules["exclude_match"], message))


def scan_file(path: Path, relative: str, family: str, rules: dict) -> list[Found]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[Found] = []
    seen: set[int] = set()

    def visit(node: ast.AST, enclosing: list[str], text: _Text) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            enclosing = [*enclosing, node.name]
            if not isinstance(node, ast.ClassDef):
                text = _Text({**text.assignments, **_assignments(node)}, text.helpers)
        if isinstance(node, ast.Call) and id(node) not in seen:
            for kind, message in _messages(node, text):
                seen.add(id(node))
                if message is None:
                    continue
                message = normal(message)
                if len("".join(literal_pieces(message))) < 8 or not _in_scope(enclosing, rules, message):
                    continue
                found.append(Found(family, kind, message, relative, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, enclosing, text)

    visit(tree, [], _Text({}, _helpers(tree)))
    return found


def _helpers(tree: ast.Module) -> dict[str, str]:
    """The module's functions that build a message: one ``return`` of text with a fixed part of 8 characters or
    more (gradcheck's ``_get_notallclose_msg`` returns "Jacobian mismatch for output ...")."""
    found = {}
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef):
            continue
        returns = [node.value for node in ast.walk(function) if isinstance(node, ast.Return) and node.value]
        if len(returns) == 1:
            message = _Text(_assignments(function))(returns[0])
            if message is not None and len("".join(literal_pieces(normal(message)))) >= 8:
                found[function.name] = message
    return found


def scan(site_packages: Path, scope: Scope = SCOPE) -> tuple[list[Found], list[str]]:
    """Every message of the scope's modules under ``site_packages``, and the modules that are missing there."""
    found, missing = [], []
    for family, modules in scope.items():
        for relative, rules in modules.items():
            path = site_packages / relative
            if not path.is_file():
                missing.append(relative)
                continue
            found.extend(scan_file(path, relative, family, rules))
    unique = {(item.type, item.text, item.file, item.line): item for item in found}
    return sorted(unique.values(), key=lambda item: (item.file, item.line)), missing
