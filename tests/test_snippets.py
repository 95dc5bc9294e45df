"""The copy-ready helpers in snippets/ do what their pages promise, edge cases included.

Each file is loaded on its own, as a reader who copied just that file would
import it, and must depend on nothing but torch and the standard library.
"""

from __future__ import annotations

import ast
import datetime
import doctest
import importlib.util
import re
import socket
import sys
import time
from collections import OrderedDict
from functools import partial

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from sitepages import LANGUAGES, ROOT

SNIPPETS = ROOT / "snippets"
HELPER_FILES = sorted(SNIPPETS.glob("*.py"))
ALLOWED_IMPORTS = {"__future__", "collections", "contextlib", "typing", "torch"}


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"snippet_{name}", SNIPPETS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


capture_grads = _load("capture_grads").capture_grads
record_layers = _load("layer_recorder").record_layers
named_grad = _load("named_grad").named_grad


def _toy():
    x = torch.tensor([3.0], requires_grad=True)
    w = torch.tensor([2.0], requires_grad=True)
    b = torch.tensor([1.0], requires_grad=True)
    u = x * w
    v = u + b
    a = F.relu(v)
    return x, w, b, u, v, a


def _hook_count(tensor: torch.Tensor) -> int:
    return len(tensor._backward_hooks or {})


# --- every file -------------------------------------------------------------


def test_there_are_helpers():
    assert {path.stem for path in HELPER_FILES} >= {"capture_grads", "layer_recorder", "named_grad"}


@pytest.mark.parametrize("path", HELPER_FILES, ids=lambda p: p.name)
def test_helper_is_standalone_typed_and_short_lined(path):
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    imported = {
        (alias.name if isinstance(node, ast.Import) else node.module).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert imported <= ALLOWED_IMPORTS, f"{path.name} imports {imported - ALLOWED_IMPORTS}"
    assert "from __future__ import annotations" in source
    assert ast.get_docstring(tree) and ">>>" in ast.get_docstring(tree), "module docstring needs an example"
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            assert node.returns is not None, f"{path.name}: {node.name} has no return type"
            assert all(arg.annotation for arg in node.args.args if arg.arg != "self"), node.name
    public = [node for node in tree.body if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")]
    assert public, f"{path.name} defines no public function"
    for node in public:
        assert ">>>" in (ast.get_docstring(node) or ""), f"{path.name}: {node.name} needs an example"
    long = [n for n, line in enumerate(source.splitlines(), 1) if len(line) > 80]
    assert not long, f"{path.name}: lines over 80 characters (shown on a page): {long}"


@pytest.mark.parametrize("path", HELPER_FILES, ids=lambda p: p.name)
def test_docstring_examples_run(path):
    module = _load(path.stem)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_helpers_page_includes_every_file(language):
    page = (ROOT / "docs" / language / "copy-ready-helpers.md").read_text(encoding="utf-8")
    included = re.findall(r'^--8<-- "(snippets/[^"]+)"$', page, flags=re.M)
    assert sorted(included) == [f"snippets/{path.name}" for path in HELPER_FILES]


def test_the_site_includes_snippets_and_fails_on_a_missing_file():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    entry = re.search(r"- pymdownx\.snippets:\n((?:      .*\n)+)", config)
    assert entry, "mkdocs.yml lacks the pymdownx.snippets extension"
    assert "base_path: [!relative $config_dir]" in entry.group(1)
    assert "check_paths: true" in entry.group(1)


# --- capture_grads ----------------------------------------------------------


def test_capture_grads_toy_graph_leaves_and_intermediates_in_one_pass():
    x, w, b, u, v, a = _toy()
    with capture_grads(x=x, w=w, b=b, u=u, v=v) as grads:
        a.backward()
    assert {name: g.item() for name, g in grads.items()} == {"x": 2, "w": 3, "b": 1, "u": 1, "v": 1}
    assert x.grad.item() == 2, "backward still fills .grad of the leaves"
    assert not u.retains_grad


def test_capture_grads_accepts_a_mapping_pairs_and_keywords():
    x, w, b, u, v, a = _toy()
    with capture_grads({"u": u}, v=v) as by_mapping, capture_grads([("x", x)]) as by_pairs:
        a.backward()
    assert set(by_mapping) == {"u", "v"} and by_pairs["x"].item() == 2


def test_capture_grads_removes_its_hooks_when_the_block_ends():
    x, w, b, u, v, a = _toy()
    with capture_grads(u=u, x=x) as grads:
        assert _hook_count(u) == 1
        a.backward(retain_graph=True)
    assert _hook_count(u) == 0 and _hook_count(x) == 0
    (a * 5).backward()
    assert grads["u"].item() == 1 and grads["x"].item() == 2


def test_capture_grads_removes_its_hooks_when_the_block_raises():
    x, w, b, u, v, a = _toy()
    failure = RuntimeError("boom")
    with pytest.raises(RuntimeError) as raised:
        with capture_grads(u=u, v=v) as grads:
            raise failure
    assert raised.value is failure, "the exception passes through unchanged"
    assert _hook_count(u) == 0 and _hook_count(v) == 0
    a.backward()
    assert dict(grads) == {}


def test_capture_grads_removes_its_hooks_when_backward_raises():
    x, w, b, u, v, a = _toy()
    a.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        with capture_grads(u=u):
            a.backward()
    assert _hook_count(u) == 0


def test_capture_grads_tensor_used_twice_gets_its_total_gradient():
    x = torch.tensor([3.0], requires_grad=True)
    u = x * 2
    y = u * u + u  # dy/du = 2u + 1 = 13
    with capture_grads(u=u, x=x) as grads:
        y.backward()
    assert grads["u"].item() == 13 and grads["x"].item() == 26


def test_capture_grads_one_tensor_under_two_names():
    x, w, b, u, v, a = _toy()
    with capture_grads(first=u, second=u) as grads:
        a.backward()
    assert grads["first"].item() == grads["second"].item() == 1


def test_capture_grads_adds_up_over_two_backward_passes_like_grad():
    x, w, b, u, v, a = _toy()
    with capture_grads(u=u, x=x) as grads:
        a.backward(retain_graph=True)
        a.backward()
    assert grads["u"].item() == 2 and grads["x"].item() == 4 == x.grad.item()


def test_capture_grads_keeps_copies_that_later_passes_do_not_change():
    x, w, b, u, v, a = _toy()
    with capture_grads(x=x) as grads:
        a.backward(retain_graph=True)
    a.backward()  # accumulates into x.grad in place
    assert x.grad.item() == 4 and grads["x"].item() == 2


def test_capture_grads_works_with_autograd_grad():
    x, w, b, u, v, a = _toy()
    with capture_grads(u=u) as grads:
        (d_a_x,) = torch.autograd.grad(a, x)
    assert d_a_x.item() == 2 and grads["u"].item() == 1


def test_capture_grads_under_gradscaler_sees_the_scaled_gradient():
    # What the docstring and the helpers page say: divide by scaler.get_scale().
    scaler = torch.amp.GradScaler("cpu")
    x = torch.tensor([3.0], requires_grad=True)
    u = x * 2
    with capture_grads(u=u) as grads:
        scaler.scale((u * u).sum()).backward()
    assert grads["u"].item() == 12 * scaler.get_scale()
    assert (grads["u"] / scaler.get_scale()).item() == 12


def test_capture_grads_rejects_a_tensor_that_does_not_require_grad():
    x, w, b, u, v, a = _toy()
    with pytest.raises(ValueError) as raised:
        with capture_grads(v=v, u=u.detach()):
            pass
    assert str(raised.value) == (
        "capture_grads: tensor 'u' does not require grad (requires_grad=False); "
        "call .requires_grad_() on a leaf, or compute it with grad enabled from one that does "
        "(not under torch.no_grad(), nor in a reentrant checkpoint's first pass)"
    )
    assert _hook_count(v) == 0, "nothing is registered when the input is bad"


def test_capture_grads_rejects_a_tensor_made_under_no_grad():
    x = torch.tensor([3.0], requires_grad=True)
    with torch.no_grad():
        u = x * 2
    with pytest.raises(ValueError, match="tensor 'u' does not require grad"):
        with capture_grads(u=u):
            pass


@pytest.mark.parametrize(
    "arguments",
    [([("u", "U"), ("u", "U")], {}), ([("u", "U")], {"u": "U"}), ({"u": "U"}, {"u": "U"})],
)
def test_capture_grads_rejects_a_name_given_twice(arguments):
    x, w, b, u, v, a = _toy()
    positional, keywords = arguments
    swap = {"U": u}
    if isinstance(positional, dict):
        positional = {name: swap[t] for name, t in positional.items()}
    else:
        positional = [(name, swap[t]) for name, t in positional]
    with pytest.raises(ValueError, match=r"^capture_grads: name 'u' given twice$"):
        with capture_grads(positional, **{name: swap[t] for name, t in keywords.items()}):
            pass


@pytest.mark.parametrize(
    "arguments, error, message",
    [
        (([],), ValueError, "no tensors given"),
        (([("", None)],), TypeError, "a name must be a non-empty str, got ''"),
        (([(1, None)],), TypeError, "a name must be a non-empty str, got 1"),
        (([("u",)],), TypeError, r"expected \(name, tensor\) pairs, got \('u',\)"),
        (([("u", 3.0)],), TypeError, "'u' must be a torch.Tensor, got float"),
    ],
)
def test_capture_grads_rejects_bad_arguments(arguments, error, message):
    with pytest.raises(error, match=message):
        with capture_grads(*arguments):
            pass


def test_capture_grads_says_why_a_name_has_no_gradient():
    x, w, b, u, v, a = _toy()
    other = torch.tensor([1.0], requires_grad=True) * 2
    with capture_grads(u=u, other=other) as grads:
        a.backward()
    with pytest.raises(KeyError, match="no gradient reached 'other'"):
        grads["other"]
    assert "other" not in grads


# --- record_layers ----------------------------------------------------------


def _seeded_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(OrderedDict(fc1=nn.Linear(4, 3), relu=nn.ReLU(), fc2=nn.Linear(3, 1)))


INPUTS = torch.tensor([[1.0, -2.0, 0.5, 3.0]])


def _all_module_hooks(model: nn.Module) -> int:
    return sum(len(m._forward_hooks) for m in model.modules())


def test_record_layers_on_a_seeded_model():
    model = _seeded_model()
    with record_layers(model, ["fc1", "relu", "fc2"]) as rec:
        model(INPUTS).sum().backward()
    hidden = model.fc1(INPUTS)
    assert torch.equal(rec.activations["fc1"], hidden.detach())
    assert torch.equal(rec.activations["relu"], hidden.relu().detach())
    assert torch.equal(rec.gradients["relu"], model.fc2.weight.detach())
    assert torch.equal(rec.gradients["fc1"], model.fc2.weight.detach() * (hidden > 0))
    assert torch.equal(rec.gradients["fc2"], torch.ones(1, 1))
    assert rec.layers == ["fc1", "relu", "fc2"]
    assert not rec.activations["fc1"].requires_grad


def test_record_layers_defaults_to_every_layer_without_children():
    model = nn.Sequential(OrderedDict(block=nn.Sequential(nn.Linear(2, 2), nn.Tanh()), out=nn.Linear(2, 1)))
    with record_layers(model) as rec:
        model(torch.ones(1, 2)).sum().backward()
    assert rec.layers == ["block.0", "block.1", "out"]
    assert set(rec.gradients) == {"block.0", "block.1", "out"}


def test_record_layers_records_a_container_by_its_dotted_name():
    torch.manual_seed(0)
    model = nn.Sequential(OrderedDict(block=nn.Sequential(nn.Linear(2, 2), nn.Tanh()), out=nn.Linear(2, 1)))
    with record_layers(model, ["block", "block.1"]) as rec:
        model(torch.ones(1, 2)).sum().backward()
    assert torch.equal(rec.activations["block"], rec.activations["block.1"])
    assert torch.equal(rec.gradients["block"], model.out.weight.detach())


def test_record_layers_names_the_missing_layer_and_the_ones_there_are():
    model = _seeded_model()
    with pytest.raises(ValueError) as raised:
        with record_layers(model, ["fc1", "fc9"]):
            pass
    assert str(raised.value) == "record_layers: model has no submodule named 'fc9'; it has: fc1, relu, fc2"
    assert _all_module_hooks(model) == 0


@pytest.mark.parametrize(
    "model, layers, error, message",
    [
        (_seeded_model(), ["fc1", "fc1"], ValueError, "^record_layers: layer 'fc1' given twice$"),
        (_seeded_model(), "fc1", TypeError, r"got the str 'fc1'; write \['fc1'\]"),
        (_seeded_model(), [], ValueError, "no layers given"),
        (lambda t: t, ["fc1"], TypeError, "model must be a torch.nn.Module, got function"),
        (nn.Linear(2, 2), None, ValueError, "model has no submodules"),
        (nn.Linear(2, 2), ["weight"], ValueError, "no submodule named 'weight'; it has: none"),
    ],
)
def test_record_layers_rejects_bad_arguments(model, layers, error, message):
    with pytest.raises(error, match=message):
        with record_layers(model, layers):
            pass


def test_record_layers_removes_every_hook_when_the_block_ends():
    model = _seeded_model()
    with record_layers(model, ["fc1"]) as rec:
        assert _all_module_hooks(model) == 1
        loss = model(INPUTS).sum()
        loss.backward(retain_graph=True)
    assert _all_module_hooks(model) == 0
    first = rec.gradients["fc1"].clone()
    (loss * 2).backward()  # the tensor hook on fc1's output must be gone too
    assert torch.equal(rec.gradients["fc1"], first)
    model(INPUTS)
    assert list(rec.activations) == ["fc1"]


def test_record_layers_removes_every_hook_when_the_block_raises():
    model = _seeded_model()
    with pytest.raises(ZeroDivisionError):
        with record_layers(model, ["fc1", "relu"]) as rec:
            loss = model(INPUTS).sum()
            raise ZeroDivisionError  # an error inside the block
    assert _all_module_hooks(model) == 0
    loss.backward()
    assert dict(rec.gradients) == {}


def test_record_layers_refuses_a_layer_that_runs_twice():
    model = _seeded_model()
    with pytest.raises(RuntimeError, match="layer 'fc1' ran twice in one block"):
        with record_layers(model, ["fc1"]):
            model(INPUTS)
            model(INPUTS)
    assert _all_module_hooks(model) == 0


class _CheckpointedBlocks(nn.Module):
    """Two blocks, each recomputed in backward() as gradient checkpointing does (Hugging Face's included)."""

    def __init__(self, use_reentrant: bool) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(2))
        self.use_reentrant, self.checkpointing = use_reentrant, True

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=self.use_reentrant) if self.checkpointing else block(x)
        return x


def _records_as_without_checkpointing(model: _CheckpointedBlocks, layers: list[str]) -> None:
    """record_layers gives the same activations and gradients with the model's checkpointing on and off."""
    x = INPUTS.clone().requires_grad_()
    model.checkpointing = False
    with record_layers(model, layers) as plain:
        model(x).sum().backward()
    model.checkpointing = True
    with record_layers(model, layers) as rec:
        model(x).sum().backward()
    for name in layers:
        assert torch.equal(rec.activations[name], plain.activations[name]), name
        assert torch.equal(rec.gradients[name], plain.gradients[name]), name


def test_record_layers_under_non_reentrant_checkpointing_records_the_forward_pass_once():
    _records_as_without_checkpointing(_CheckpointedBlocks(use_reentrant=False),
                                      ["blocks.0.0", "blocks.0.1", "blocks.1.1"])


def test_record_layers_under_reentrant_checkpointing_records_what_plain_backward_does():
    # The first pass of a reentrant segment runs without grad; the gradient reaches
    # the output recomputed in backward(), which record_layers hooks instead.
    model = _CheckpointedBlocks(use_reentrant=True)
    _records_as_without_checkpointing(model, ["blocks.0", "blocks.0.0", "blocks.1.1"])
    assert _all_module_hooks(model) == 0


def test_record_layers_under_non_reentrant_checkpointing_a_layer_whose_output_needs_no_grad():
    # A segment that starts with a layer on data that needs no grad (a frozen stem,
    # frozen embeddings): its recomputation in backward() is no second call.
    torch.manual_seed(0)
    body = nn.Sequential(nn.ReLU(), nn.Linear(4, 3))
    with record_layers(body, ["0", "1"]) as rec:
        checkpoint(body, INPUTS, use_reentrant=False).sum().backward()
    assert torch.equal(rec.activations["0"], INPUTS.relu())
    assert torch.equal(rec.gradients["1"], torch.ones(1, 3))
    assert "0" not in rec.gradients, "no gradient reaches data that needs none"


def test_record_layers_refuses_a_compiled_model_and_names_the_module_to_record():
    model = _seeded_model()
    compiled = torch.compile(model, backend="aot_eager")
    compiled(INPUTS)
    with pytest.raises(TypeError, match=r"compiled with torch\.compile.*model\._orig_mod and run that"):
        with record_layers(compiled, ["fc1"]):
            pass
    in_place = _seeded_model()
    in_place.compile(backend="aot_eager")
    with pytest.raises(TypeError, match=r"^record_layers: model was compiled in place \(\.compile\(\)\)"):
        with record_layers(in_place, ["fc1"]):
            pass
    with record_layers(compiled._orig_mod, ["fc1"]) as rec:
        compiled._orig_mod(INPUTS).sum().backward()
    assert rec.gradients["fc1"].shape == (1, 3)


def test_record_layers_keeps_the_activation_before_an_inplace_relu():
    torch.manual_seed(0)
    model = nn.Sequential(OrderedDict(fc1=nn.Linear(4, 3), relu=nn.ReLU(inplace=True), fc2=nn.Linear(3, 1)))
    with record_layers(model, ["fc1"]) as rec:
        model(INPUTS).sum().backward()
    hidden = model.fc1(INPUTS).detach()
    assert (hidden < 0).any(), "the check needs a negative value for the ReLU to overwrite"
    assert torch.equal(rec.activations["fc1"], hidden)
    assert torch.equal(rec.gradients["fc1"], model.fc2.weight.detach() * (hidden > 0))


class _ResidualBlock(nn.Module):
    """torchvision's BasicBlock in small: BatchNorm, then in-place ops on its output."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc, self.bn, self.relu = nn.Linear(4, 4), nn.BatchNorm1d(4), nn.ReLU(inplace=True)
        self.head = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.bn(self.fc(x))
        out += x  # out += identity
        return self.head(self.relu(out))


def test_record_layers_inputs_through_in_place_ops_after_the_layer():
    # inputs=[t] means t as backward() finds it: after out += x and the in-place ReLU,
    # the in-place op's result, whose backward pass would stop before bn.
    model = _ResidualBlock().eval()
    x = torch.tensor([[1.0, -2.0, 0.5, 3.0], [0.0, 1.0, -1.0, 2.0]])
    with torch.no_grad():
        expected_output = model(x)
        bn_output = model.bn(model.fc(x))
    head = model.head.weight.detach().expand(2, 4)
    expected = head * (bn_output + x > 0)  # d(sum)/d(bn's output), through out += x and the ReLU
    assert (expected == 0).any() and (expected != 0).any(), "the check needs the ReLU to zero some"
    with record_layers(model, ["bn", "relu"]) as plain:
        output = model(x)
        output.sum().backward()
    assert torch.equal(output, expected_output), "the model computes what it did without recording"
    model.zero_grad(set_to_none=True)
    with record_layers(model, ["bn", "relu"]) as rec:
        model(x).sum().backward(inputs=rec.outputs)
    assert all(p.grad is None for p in model.parameters())
    for recording in (plain, rec):
        assert torch.equal(recording.gradients["bn"], expected)
        assert torch.equal(recording.gradients["relu"], head)
        assert torch.equal(recording.activations["bn"], bn_output)


def test_record_layers_says_why_a_layer_has_no_gradient():
    model = _seeded_model()
    with record_layers(model, ["fc1"]) as rec:
        with torch.no_grad():
            model(INPUTS)
    assert "fc1" in rec.activations
    with pytest.raises(KeyError, match="no gradient .* recorded for layer 'fc1'"):
        rec.gradients["fc1"]
    with pytest.raises(KeyError, match="no activation .* recorded for layer 'relu'"):
        rec.activations["relu"]


def test_record_layers_refuses_a_layer_that_returns_a_tuple():
    torch.manual_seed(0)
    model = nn.Sequential(OrderedDict(rnn=nn.GRU(2, 2)))
    with pytest.raises(TypeError, match="layer 'rnn' returned tuple, not a tensor"):
        with record_layers(model, ["rnn"]):
            model(torch.ones(1, 1, 2))
    assert _all_module_hooks(model) == 0


# --- named_grad -------------------------------------------------------------


def test_named_grad_toy_graph_by_name_in_order():
    x, w, b, u, v, a = _toy()
    grads = named_grad(a, {"v": v, "u": u, "x": x, "w": w, "b": b})
    assert list(grads) == ["v", "u", "x", "w", "b"]
    assert {name: g.item() for name, g in grads.items()} == {"x": 2, "w": 3, "b": 1, "u": 1, "v": 1}
    assert x.grad is None, "like torch.autograd.grad, nothing is written to .grad"


def test_named_grad_leaves_leaves_alone_but_fills_a_retained_grad():
    # The docstring's promise, exactly as torch.autograd.grad behaves on torch 2.13.
    x, w, b, u, v, a = _toy()
    u.retain_grad()
    named_grad(a, {"x": x}, retain_graph=True)
    assert x.grad is None and u.grad.item() == 1


def test_named_grad_with_retain_graph_leaves_the_graph_for_a_later_backward():
    x, w, b, u, v, a = _toy()
    assert named_grad(a, {"u": u}, retain_graph=True)["u"].item() == 1
    a.backward()
    assert x.grad.item() == 2


def test_named_grad_accepts_pairs_and_one_tensor_under_two_names():
    x, w, b, u, v, a = _toy()
    grads = named_grad(a, [("u", u), ("again", u)])
    assert grads["u"].item() == grads["again"].item() == 1


def test_named_grad_allow_unused_gives_none_and_without_it_names_the_tensor():
    x, w, b, u, v, a = _toy()
    c = torch.tensor([5.0], requires_grad=True)
    d = torch.tensor([6.0], requires_grad=True)
    with pytest.raises(ValueError) as raised:
        named_grad(a, {"c": c, "u": u, "d": d}, retain_graph=True)
    assert str(raised.value) == (
        "named_grad: the output does not depend on 'c', 'd' (no path in the graph); "
        "pass allow_unused=True to get None for it"
    )
    grads = named_grad(a, {"c": c, "u": u}, allow_unused=True)
    assert grads["c"] is None and grads["u"].item() == 1


def test_named_grad_frees_the_graph_unless_retain_graph():
    x, w, b, u, v, a = _toy()
    assert named_grad(a, {"x": x}, retain_graph=True)["x"].item() == 2
    assert named_grad(a, {"x": x})["x"].item() == 2
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        named_grad(a, {"x": x})


def test_named_grad_create_graph_allows_a_second_derivative():
    x = torch.tensor([2.0], requires_grad=True)
    first = named_grad(x**3, {"x": x}, create_graph=True)["x"]  # 3x^2 = 12
    second = named_grad(first, {"x": x})["x"]  # 6x = 12
    assert first.item() == 12 and second.item() == 12


def test_named_grad_non_scalar_output_needs_grad_output():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * 2).reshape(3, 1)
    with pytest.raises(ValueError, match=r"the output has shape \(3, 1\), not one number"):
        named_grad(y, {"x": x})
    with pytest.raises(ValueError, match=r"grad_output has shape \(3,\), the output \(3, 1\)"):
        named_grad(y, {"x": x}, grad_output=torch.ones(3))
    grads = named_grad(y, {"x": x}, grad_output=torch.tensor([[1.0], [0.0], [2.0]]))
    assert grads["x"].tolist() == [2.0, 0.0, 4.0]


@pytest.mark.parametrize(
    "inputs, error, message",
    [
        ({"u": "DETACHED"}, ValueError, "^named_grad: tensor 'u' does not require grad"),
        ([("u", "U"), ("u", "U")], ValueError, "^named_grad: name 'u' given twice$"),
        ("BARE", TypeError, "inputs must name the tensors"),
        ({}, ValueError, "no inputs given"),
        ({"u": 1.0}, TypeError, "'u' must be a torch.Tensor, got float"),
        ([("u",)], TypeError, r"expected \(name, tensor\) pairs"),
    ],
)
def test_named_grad_rejects_bad_inputs(inputs, error, message):
    x, w, b, u, v, a = _toy()
    swap = {"U": u, "DETACHED": u.detach()}
    if inputs == "BARE":
        inputs = u
    elif isinstance(inputs, dict):
        inputs = {name: swap.get(t, t) if isinstance(t, str) else t for name, t in inputs.items()}
    else:
        inputs = [(pair[0], swap[pair[1]]) if len(pair) == 2 else pair for pair in inputs]
    with pytest.raises(error, match=message):
        named_grad(a, inputs)


def test_named_grad_rejects_an_output_that_does_not_require_grad():
    x, w, b, u, v, a = _toy()
    with torch.no_grad():
        out = x * w
    with pytest.raises(ValueError, match="the output does not require grad"):
        named_grad(out, {"x": x})
    with pytest.raises(TypeError, match="output must be a torch.Tensor, got float"):
        named_grad(1.0, {"x": x})


# --- the settings a pasted helper meets in real training ---------------------
#
# Each helper either works in each setting below or refuses with an error that
# names the cause and the fix: DDP on 2 gloo processes with a model that has
# buffers, reentrant and non-reentrant checkpointing (Hugging Face's kind
# included), torch.compile, and a module called twice in one forward pass.


def _one_tensor_each(explain_helper, hidden: torch.Tensor, score: torch.Tensor, inputs: bool):
    """The gradient of score with respect to hidden, through capture_grads or named_grad."""
    if explain_helper is named_grad:
        return named_grad(score, {"hidden": hidden})["hidden"]
    with capture_grads(hidden=hidden) as grads:
        score.backward(inputs=[hidden] if inputs else None)
    return grads["hidden"]


# DDP: the explainer runs on rank 0 only, between backward() and step()


def _bn_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2))


def _explain_on_rank_0(helper: str, module: nn.Module, sample: torch.Tensor) -> torch.Tensor:
    """What the docstrings advise on one DDP process: ddp.module, in eval(), inputs=."""
    module.eval()
    try:
        if helper == "record_layers":
            with record_layers(module, ["2"]) as rec:
                module(sample)[0, 0].backward(inputs=rec.outputs)
            return rec.gradients["2"]
        hidden = module[:3](sample)
        score = module[3](hidden)[0, 0]
        return _one_tensor_each(capture_grads if helper == "capture_grads" else named_grad,
                                hidden, score, inputs=True)
    finally:
        module.train()


def _train_two_steps(rank: int, helper: str) -> dict[str, bool]:
    from torch.nn.parallel import DistributedDataParallel as DDP

    model = _bn_model()
    ddp = DDP(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
    torch.manual_seed(rank)  # each rank has its own data
    checks: dict[str, bool] = {}
    for _ in range(2):
        optimizer.zero_grad()
        batch = torch.randn(4, 8)
        # During the training step, on both ranks, through the wrapper.
        if helper == "record_layers":
            with record_layers(ddp, ["module.2"]) as during:
                ddp(batch).pow(2).mean().backward()
            checks["recorded during training"] = during.gradients["module.2"].shape == (4, 16)
        else:
            out = ddp(batch)
            loss = out.pow(2).mean()
            if helper == "capture_grads":
                with capture_grads(out=out) as grads:
                    loss.backward()
                expected = grads["out"]
            else:
                expected = named_grad(loss, {"out": out}, retain_graph=True)["out"]
                loss.backward()
            checks["recorded during training"] = torch.allclose(expected, out.detach() / 4)
        if rank == 0:  # only rank 0 explains, as a logging callback would
            training_grads = [p.grad.clone() for p in model.parameters()]
            statistics = [b.clone() for b in model.buffers()]
            explanation = _explain_on_rank_0(helper, model, torch.randn(1, 8))
            checks["explanation right"] = torch.allclose(explanation, model[3].weight[:1].detach())
            checks[".grad untouched"] = all(
                torch.equal(p.grad, g) for p, g in zip(model.parameters(), training_grads, strict=True)
            )
            checks["running statistics untouched"] = all(
                torch.equal(b, s) for b, s in zip(model.buffers(), statistics, strict=True)
            )
            checks["training mode restored"] = model.training
        optimizer.step()
    weights = torch.cat([p.detach().flatten() for p in model.parameters()])
    both = [torch.empty_like(weights) for _ in range(2)]
    dist.all_gather(both, weights)
    checks["same weights on both ranks"] = torch.allclose(both[0], both[1])
    return checks


def _gloo_worker(rank: int, port: int, helper: str, results) -> None:
    torch.set_num_threads(1)  # a forked process can hang in its parent's parallel CPU kernels
    try:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                world_size=2, timeout=datetime.timedelta(seconds=30))
        results.put((rank, _train_two_steps(rank, helper)))
        dist.destroy_process_group()
    except Exception as error:  # reported to the parent, which fails the test
        results.put((rank, f"{type(error).__name__}: {error}"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("helper", ["capture_grads", "record_layers", "named_grad"])
def test_helper_under_ddp_with_batchnorm_buffers_explaining_on_one_rank(helper):
    results = mp.get_context("fork").SimpleQueue()
    context = mp.start_processes(_gloo_worker, args=(_free_port(), helper, results),
                                 nprocs=2, start_method="fork", join=False)
    deadline = time.monotonic() + 120
    while not context.join(timeout=1):
        if time.monotonic() > deadline:
            for process in context.processes:
                process.kill()
            pytest.fail("the 2 gloo processes still run after 120 s: a collective on one rank only")
    reports = dict(results.get() for _ in range(2))
    for rank in (0, 1):
        assert isinstance(reports[rank], dict), f"rank {rank}: {reports[rank]}"
        assert all(reports[rank].values()), f"rank {rank}: {reports[rank]}"
    assert len(reports[0]) == 6 and len(reports[1]) == 2, reports


# Checkpointing, torch's own and Hugging Face's


def _checkpointed_linear_output(use_reentrant: bool, checkpointing: bool = True):
    """The output of blocks[0]'s Linear, inside the segment, as a forward hook keeps it,
    the input, and the model's sum."""
    model = _CheckpointedBlocks(use_reentrant)
    model.checkpointing = checkpointing
    kept = []
    model.blocks[0][0].register_forward_hook(lambda module, args, output: kept.append(output))
    x = INPUTS.clone().requires_grad_()
    return kept, x, model(x).sum()


@pytest.mark.parametrize("explain_helper", [capture_grads, named_grad], ids=lambda f: f.__name__)
def test_capture_grads_and_named_grad_under_non_reentrant_checkpointing(explain_helper):
    kept, x, total = _checkpointed_linear_output(use_reentrant=False, checkpointing=False)
    plain = torch.autograd.grad(total, kept[0])[0]
    kept, x, total = _checkpointed_linear_output(use_reentrant=False)
    assert torch.equal(_one_tensor_each(explain_helper, kept[0], total, inputs=True), plain)


@pytest.mark.parametrize("explain_helper", [capture_grads, named_grad], ids=lambda f: f.__name__)
def test_capture_grads_and_named_grad_under_reentrant_checkpointing(explain_helper):
    name = explain_helper.__name__
    kept, x, total = _checkpointed_linear_output(use_reentrant=True)
    # a tensor made in the segment's first pass, which runs without grad
    with pytest.raises(ValueError, match=rf"^{name}: tensor 'hidden' does not require grad.*reentrant checkpoint"):
        _one_tensor_each(explain_helper, kept[0], total, inputs=True)
    # the input, outside the segment: torch refuses inputs= and grad() there, naming the fix
    with pytest.raises(RuntimeError, match=r"^When use_reentrant=True, .*set use_reentrant=False"):
        _one_tensor_each(explain_helper, x, total, inputs=True)
    if explain_helper is capture_grads:  # a plain backward() works
        kept, x, total = _checkpointed_linear_output(use_reentrant=True)
        assert _one_tensor_each(explain_helper, x, total, inputs=False).shape == (1, 4)


@pytest.mark.parametrize("explain_helper", [capture_grads, named_grad], ids=lambda f: f.__name__)
def test_capture_grads_and_named_grad_refuse_tensors_a_reentrant_checkpoint_returns_together(explain_helper):
    x = INPUTS.clone().requires_grad_()
    hidden, out = checkpoint(lambda t: (t.tanh(), t.tanh() * 2), x, use_reentrant=True)
    with pytest.raises(ValueError, match=r"'hidden' was returned with others by .*reentrant checkpoint"):
        _one_tensor_each(explain_helper, hidden, (out + hidden).sum(), inputs=False)


class _HFStyleLayer(nn.Module):
    """What transformers' GradientCheckpointingLayer.__call__ does (modeling_layers.py,
    4.57 and 5.0): in training mode only, it checkpoints the whole call, hooks
    included; gradient_checkpointing_enable() defaults to use_reentrant=True from
    transformers 4.38 to 4.57 (torch's reentrant default before), False from 5.0."""

    def __init__(self) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
        self.gradient_checkpointing = False

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return hidden + self.mlp(hidden)

    def __call__(self, *args, **kwargs):
        if self.gradient_checkpointing and self.training:
            return checkpoint(partial(super().__call__, **kwargs), *args, use_reentrant=True)
        return super().__call__(*args, **kwargs)


class _HFStyleModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.embed = nn.Embedding(10, 4)
        self.layers = nn.ModuleList(_HFStyleLayer() for _ in range(2))
        self.head = nn.Linear(4, 3)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        hidden = self.embed(ids)
        for layer in self.layers:
            hidden = layer(hidden)
        return self.head(hidden[:, -1])

    def gradient_checkpointing_enable(self) -> None:
        for layer in self.layers:
            layer.gradient_checkpointing = True


IDS = torch.tensor([[1, 4, 2, 7]])  # token ids: no gradient of their own
HF_LAYERS = ["embed", "layers.0", "layers.0.mlp.1", "layers.1"]


def test_record_layers_under_hugging_face_style_reentrant_checkpointing():
    model = _HFStyleModel()
    with record_layers(model, HF_LAYERS) as plain:
        model(IDS)[0, 1].backward()
    model.zero_grad()
    model.gradient_checkpointing_enable()
    with record_layers(model, HF_LAYERS) as rec:
        model(IDS)[0, 1].backward()
    for name in HF_LAYERS:
        assert torch.equal(rec.activations[name], plain.activations[name]), name
        assert torch.equal(rec.gradients[name], plain.gradients[name]), name


def test_record_layers_mid_training_explainer_under_hugging_face_style_checkpointing():
    model = _HFStyleModel()
    with record_layers(model, HF_LAYERS) as plain:
        model(IDS)[0, 1].backward()
    model.zero_grad()
    model.gradient_checkpointing_enable()
    # training mode: torch refuses inputs= through the reentrant checkpoint, naming the fix
    with pytest.raises(RuntimeError, match=r"^When use_reentrant=True, .*set use_reentrant=False"):
        with record_layers(model, HF_LAYERS) as rec:
            model(IDS)[0, 1].backward(inputs=rec.outputs)
    # eval(): the layers do not checkpoint; token ids in, no parameter's .grad written
    model.eval()
    with record_layers(model, HF_LAYERS) as rec:
        model(IDS)[0, 1].backward(inputs=rec.outputs)
    assert all(p.grad is None for p in model.parameters())
    assert rec.outputs == [], "the graph is let go when the block ends"
    for name in HF_LAYERS:
        assert torch.equal(rec.gradients[name], plain.gradients[name]), name


@pytest.mark.parametrize("explain_helper", [capture_grads, named_grad], ids=lambda f: f.__name__)
def test_capture_grads_and_named_grad_under_hugging_face_style_checkpointing(explain_helper):
    model = _HFStyleModel()

    def hidden_and_score():
        hidden = model.layers[0](model.embed(IDS))  # a checkpoint's single output in training
        return hidden, model.head(model.layers[1](hidden)[:, -1])[0, 1]

    reference = torch.autograd.grad(*reversed(hidden_and_score()))[0]
    model.gradient_checkpointing_enable()
    with pytest.raises(RuntimeError, match=r"^When use_reentrant=True, .*set use_reentrant=False"):
        _one_tensor_each(explain_helper, *hidden_and_score(), inputs=True)
    if explain_helper is capture_grads:  # a plain backward() works in training mode
        assert torch.equal(_one_tensor_each(explain_helper, *hidden_and_score(), inputs=False), reference)
        model.zero_grad()
    model.eval()
    assert torch.equal(_one_tensor_each(explain_helper, *hidden_and_score(), inputs=True), reference)
    assert all(p.grad is None for p in model.parameters())


# torch.compile


def test_record_layers_refuses_a_block_in_which_the_compiled_wrapper_ran_instead():
    model = _seeded_model()
    compiled = torch.compile(model, backend="aot_eager")
    compiled(INPUTS)  # compiled before the hooks exist: it will not call them
    with pytest.raises(RuntimeError, match=r"none of the layers ran .*torch\.compile\(model\).*run model itself"):
        with record_layers(model, ["fc1", "relu"]):
            compiled(INPUTS).sum().backward()
    assert _all_module_hooks(model) == 0
    with record_layers(model, ["fc1", "relu"]) as rec:  # the fix
        model(INPUTS).sum().backward()
    assert rec.gradients["relu"].shape == (1, 3)


def test_record_layers_refuses_a_layer_inside_a_compiled_submodule():
    torch.manual_seed(0)
    model = nn.Sequential(OrderedDict(block=nn.Sequential(nn.Linear(4, 3), nn.ReLU()), out=nn.Linear(3, 1)))
    model.block = torch.compile(model.block, backend="aot_eager")
    model(INPUTS)
    with pytest.raises(TypeError, match=r"^record_layers: 'block' was compiled .*record 'block' itself"):
        with record_layers(model, ["out", "block._orig_mod.1"]):
            pass
    with record_layers(model, ["block", "out"]) as rec:  # the compiled module's own hooks run
        model(INPUTS).sum().backward()
    assert torch.equal(rec.gradients["block"], model.out.weight.detach())


class _Block(nn.Module):
    """A block with code of its own: torch.compile does not skip it, as it may skip torch.nn's containers."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.fc(x)) * 2


def _blocks() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(OrderedDict(block=_Block(), out=nn.Linear(3, 1)))


def test_record_layers_records_a_block_compiled_in_place_and_refuses_a_layer_inside_it():
    plain = _blocks()
    with record_layers(plain, ["block", "block.fc"]) as reference:
        plain(INPUTS).sum().backward()
    model = _blocks()
    model.block.compile(backend="aot_eager")
    assert model.block(INPUTS).grad_fn.name() == "CompiledFunctionBackward", "the check needs a compiled block"
    with pytest.raises(TypeError, match=r"^record_layers: 'block' was compiled in place .*record 'block' itself"):
        with record_layers(model, ["block.fc"]):
            pass
    for _ in range(2):  # its own hooks run, in every block
        with record_layers(model, ["block"]) as rec:
            model(INPUTS).sum().backward(inputs=rec.outputs)
        assert torch.equal(rec.gradients["block"], reference.gradients["block"])
    assert model.block(INPUTS).grad_fn.name() == "CompiledFunctionBackward", "still compiled afterwards"


def test_record_layers_inside_compiled_modules_under_the_force_eager_stance():
    plain = _blocks()
    with record_layers(plain, ["block.fc"]) as reference:
        plain(INPUTS).sum().backward()
    in_place = _blocks()
    in_place.block.compile(backend="aot_eager")
    wrapped = torch.compile(_blocks(), backend="aot_eager")
    for model, layer in ((in_place, "block.fc"), (wrapped, "_orig_mod.block.fc")):
        model(INPUTS)
        with torch.compiler.set_stance("force_eager"):
            with record_layers(model, [layer]) as rec:
                model(INPUTS).sum().backward()
        assert torch.equal(rec.gradients[layer], reference.gradients["block.fc"]), layer
        with pytest.raises(TypeError, match=r"set_stance\('force_eager'\)"):  # outside the stance
            with record_layers(model, [layer]):
                pass


class _TwoOutputs(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.a, self.b = nn.Linear(4, 3), nn.Linear(3, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = torch.tanh(self.a(x))
        return hidden, self.b(hidden)


@pytest.mark.parametrize("explain_helper", [capture_grads, named_grad], ids=lambda f: f.__name__)
def test_capture_grads_and_named_grad_on_a_compiled_model(explain_helper):
    model = _TwoOutputs()
    compiled = torch.compile(model, backend="aot_eager")
    x = INPUTS.clone().requires_grad_()
    hidden, out = model(x)
    reference = torch.autograd.grad(out.sum() + hidden.sum(), [x, out])
    hidden, out = compiled(x)
    assert hidden.grad_fn.name() == "CompiledFunctionBackward", "the check needs a compiled region"
    # its input and an output used after it: right
    assert torch.allclose(_one_tensor_each(explain_helper, x, out.sum() + hidden.sum(), inputs=True), reference[0])
    hidden, out = compiled(x)
    # an output the region also used inside: refused, not a part of its gradient
    with pytest.raises(ValueError, match=r"'hidden' was returned with others by a torch\.compile'd region"):
        _one_tensor_each(explain_helper, hidden, out.sum() + hidden.sum(), inputs=False)


# A module called twice in one forward pass


class _SharedTwice(nn.Module):
    """One module used in two places, as torchvision's ResNet blocks reuse self.relu."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.shared, self.out = nn.Linear(4, 4), nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.shared(torch.tanh(self.shared(x))))


def test_record_layers_refuses_a_module_called_twice_in_one_forward_pass():
    model = _SharedTwice()
    for layers in (["shared"], None):
        with pytest.raises(RuntimeError, match=r"'shared' ran twice in one block.*calls it twice in one forward pass"):
            with record_layers(model, layers):
                model(INPUTS)
    with record_layers(model, ["out"]) as rec:  # a layer that runs once
        model(INPUTS).sum().backward()
    assert torch.equal(rec.gradients["out"], torch.ones(1, 1))


@pytest.mark.parametrize("explain_helper", [capture_grads, named_grad], ids=lambda f: f.__name__)
def test_capture_grads_and_named_grad_on_a_module_called_twice(explain_helper):
    model = _SharedTwice()
    calls = []
    model.shared.register_forward_hook(lambda module, args, output: calls.append(output))
    total = model(INPUTS).sum()
    first, second = calls
    expected_second = model.out.weight.detach()
    expected_first = (expected_second @ model.shared.weight.detach()) * (1 - torch.tanh(first.detach()) ** 2)
    assert torch.allclose(_one_tensor_each(explain_helper, second, total, inputs=True), expected_second)
    total = model(INPUTS).sum()
    assert torch.allclose(_one_tensor_each(explain_helper, calls[2], total, inputs=True), expected_first)


def test_capture_grads_an_output_of_a_multi_output_op_that_gets_no_gradient():
    # backward() calls the hook with None there; no gradient reached it.
    x = torch.ones(4, requires_grad=True)
    first, second = (x * 2).split(2)
    with capture_grads(first=first, second=second) as grads:
        second.sum().backward()
    assert torch.equal(grads["second"], torch.ones(2))
    with pytest.raises(KeyError, match="no gradient reached 'first'"):
        grads["first"]


def test_record_layers_outputs_serve_backward_inputs_and_leave_parameters_alone():
    model = _seeded_model()
    with record_layers(model, ["fc1", "relu"]) as plain:
        model(INPUTS).sum().backward()
    model.zero_grad(set_to_none=True)
    with record_layers(model, ["fc1", "relu"]) as rec:
        model(INPUTS).sum().backward(inputs=rec.outputs)
        assert len(rec.outputs) == 2
    assert rec.outputs == [] and all(p.grad is None for p in model.parameters())
    for name in ("fc1", "relu"):
        assert torch.equal(rec.gradients[name], plain.gradients[name]), name
