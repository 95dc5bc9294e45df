"""Record the activations and output gradients of an nn.Module's layers.

Copy this file into your project; it needs only torch.

    >>> import torch
    >>> _ = torch.manual_seed(0)
    >>> model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    >>> with record_layers(model, ["0", "1"]) as rec:
    ...     model(torch.ones(1, 2)).sum().backward()
    >>> rec.activations["1"].shape, rec.gradients["1"]
    (torch.Size([1, 3]), tensor([[1., 1., 1.]]))

All hooks, on the modules and on their outputs, come off when the ``with``
block ends, also when it raises.

Activation checkpointing (``torch.utils.checkpoint``, reentrant or not, as
in Hugging Face's ``gradient_checkpointing_enable()``) runs a layer again
during ``backward()``; that rerun is not recorded twice. ``torch.compile``
runs a model as its code was first compiled, without hooks added later:
``record_layers`` refuses a layer inside a compiled module (a compiled
module's own hooks run, so it can be recorded itself), except under
``torch.compiler.set_stance("force_eager")``, where compiled modules run
eagerly, hooks and all; and it raises when the block ends if none of the
layers ran, as when the block ran ``torch.compile(model)`` instead of
``model``.

A plain ``backward()`` also writes every parameter's ``.grad``. In the
middle of a training step (between micro-batches of gradient accumulation,
or on one DDP process only), run ``backward(inputs=rec.outputs)`` instead:
the layers' gradients are recorded all the same, and the parameters'
``.grad`` stay as training left them. ``inputs=[t]`` means ``t`` as it is
when ``backward`` runs: after an in-place op on ``t`` (a
``ReLU(inplace=True)`` after the layer, ResNet's ``out += identity``), that
op's result, and the backward pass stops there, short of the layer's
output. So the model goes on with a copy of each recorded output that
requires grad, and in-place ops change the copy, at the cost of one more
copy of each such output. torch refuses ``inputs=`` through a reentrant
checkpoint; Hugging Face models do not checkpoint in ``eval()``. On one DDP
process only, record and run ``ddp.module``, not the DDP wrapper, in
``eval()`` (where BatchNorm updates no running statistics): a forward pass
through the wrapper broadcasts the model's buffers (BatchNorm's) from rank
0, and waits for the other processes, whenever the previous forward pass
through it ran with grad enabled outside ``no_sync()`` (and on the first
call), even when this one runs in ``eval()`` under ``torch.no_grad()``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import torch
from torch import nn

__all__ = ["LayerRecording", "record_layers"]


class _ByLayer(dict):
    """Layer name -> tensor. Reading a layer that recorded nothing says why."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def __missing__(self, name: str) -> torch.Tensor:
        raise KeyError(
            f"record_layers: no {self.what} recorded for layer {name!r}"
        )


class LayerRecording:
    """What one ``record_layers`` block saw.

    ``activations[name]``: the layer's output (a detached copy);
    ``gradients[name]``: the gradient of the backward pass's output with
    respect to that layer output (filled by ``backward()`` in the block;
    under ``torch.amp.GradScaler``, multiplied by the scale);
    ``outputs``: the layer outputs themselves, graph and all, for
    ``backward(inputs=rec.outputs)`` in the block; emptied when it ends.
    """

    def __init__(self, layers: list[str]) -> None:
        self.layers = layers
        self.activations = _ByLayer("activation (did the layer run?)")
        self.gradients = _ByLayer(
            "gradient (call backward() inside the with-block, on an output "
            "that depends on this layer, with grad enabled)"
        )
        self.outputs: list[torch.Tensor] = []


def _resolve(
    model: nn.Module, layers: Iterable[str] | None
) -> dict[str, nn.Module]:
    if not isinstance(model, nn.Module):
        raise TypeError(
            f"record_layers: model must be a torch.nn.Module, "
            f"got {type(model).__name__}"
        )
    modules = dict(model.named_modules())
    del modules[""]  # the model itself
    if layers is None:
        chosen = [name for name, m in modules.items() if not list(m.children())]
        if not chosen:
            raise ValueError("record_layers: model has no submodules; name one")
        return {name: modules[name] for name in chosen}
    if isinstance(layers, str):
        raise TypeError(
            f"record_layers: layers must be a list of names, got the str "
            f"{layers!r}; write [{layers!r}]"
        )
    found: dict[str, nn.Module] = {}
    for name in layers:
        if name in found:
            raise ValueError(f"record_layers: layer {name!r} given twice")
        if name not in modules:
            raise ValueError(
                f"record_layers: model has no submodule named {name!r}; "
                f"it has: {', '.join(modules) or 'none'}"
            )
        found[name] = modules[name]
    if not found:
        raise ValueError("record_layers: no layers given")
    return found


def _in_backward() -> bool:
    """Whether autograd's engine is running a backward pass right now (where
    checkpointing recomputes a segment's layers). torch has no public flag;
    the graph task id is -1 outside a backward pass."""
    return torch._C._current_graph_task_id() != -1


def _forced_eager() -> bool:
    """Whether ``torch.compiler.set_stance("force_eager")`` is in force:
    compiled modules then run eagerly, calling every hook. torch has no
    public getter; dynamo is imported once anything was compiled."""
    frames = getattr(getattr(torch, "_dynamo", None), "eval_frame", None)
    stance = getattr(getattr(frames, "_stance", None), "stance", None)
    return stance == "force_eager"


def _refuse_compiled(model: nn.Module, name: str) -> None:
    """torch.compile does not call hooks added after it compiled a module on
    the modules inside it: refuse the layer if a module it is strictly
    inside was compiled (its own hooks run), unless compiled modules run
    eagerly."""
    parts = name.split(".")
    for depth in range(len(parts)):
        owner = ".".join(parts[:depth])
        module = model.get_submodule(owner)
        where = repr(owner) if owner else "model"
        in_place = getattr(module, "_compiled_call_impl", None) is not None
        if not (in_place or hasattr(module, "_orig_mod")) or _forced_eager():
            continue
        how = "in place (.compile())" if in_place else "with torch.compile"
        if owner:
            fix = f"record {where} itself, whose own hooks run, or "
        elif in_place:
            fix = ""
        else:
            fix = ("record on model._orig_mod and run that, the uncompiled "
                   "module with the same parameters, or ")
        raise TypeError(
            f"record_layers: {where} was compiled {how}, which runs the "
            "modules inside it without hooks added after compiling; "
            f"{fix}enter and run the with-block under "
            "torch.compiler.set_stance('force_eager'), which runs compiled "
            "modules uncompiled"
        )


@contextmanager
def record_layers(
    model: nn.Module, layers: Iterable[str] | None = None
) -> Iterator[LayerRecording]:
    """Record each named layer's output and the gradient that reaches it.

    ``layers`` are names from ``model.named_modules()`` ("conv1",
    "features.0"); ``None`` records every layer with no children. Run one
    forward pass and its ``backward()`` inside the block. A layer that runs
    twice raises RuntimeError rather than silently keep only one of the
    two calls; the rerun of a checkpointed layer during ``backward()`` is
    no second call.

    >>> import torch
    >>> model = torch.nn.Sequential(torch.nn.Identity(), torch.nn.Tanh())
    >>> with record_layers(model) as rec:
    ...     model(torch.zeros(1, requires_grad=True)).sum().backward()
    >>> rec.activations["1"], rec.gradients["0"]
    (tensor([0.]), tensor([1.]))

    Raises TypeError or ValueError naming the culprit: a model that is not a
    Module, a layer the model does not have, a layer given twice, a layer
    inside a module compiled with ``torch.compile`` or ``.compile()``;
    RuntimeError for a layer that runs twice, or a block in which no layer
    ran.
    """
    if isinstance(model, nn.Module):
        _refuse_compiled(model, "")
    modules = _resolve(model, layers)
    for name in modules:
        _refuse_compiled(model, name)
    recording = LayerRecording(list(modules))
    handles = []
    hooked: set[str] = set()  # layers whose output got a gradient hook

    def keep_gradient(name: str, output: torch.Tensor) -> None:
        def hook(grad: torch.Tensor) -> None:
            recording.gradients[name] = grad.detach().clone()

        handles.append(output.register_hook(hook))
        hooked.add(name)

    def forward_hook(
        name: str,
    ) -> Callable[[nn.Module, tuple, object], torch.Tensor | None]:
        def hook(
            module: nn.Module, inputs: tuple, output: object
        ) -> torch.Tensor | None:
            if not isinstance(output, torch.Tensor):
                raise TypeError(
                    f"record_layers: layer {name!r} returned "
                    f"{type(output).__name__}, not a tensor; record one of "
                    "its submodules instead"
                )
            if name not in recording.activations:
                # A copy: a later in-place op (ReLU(inplace=True)) would
                # change it.
                recording.activations[name] = output.detach().clone()
                if output.requires_grad:
                    keep_gradient(name, output)
                    recording.outputs.append(output)
            elif not _in_backward():
                raise RuntimeError(
                    f"record_layers: layer {name!r} ran twice in one block, "
                    "and a recording keeps one output per layer; if the "
                    "model calls it twice in one forward pass, record "
                    "layers that run once; if the model ran twice, use one "
                    "block per forward pass"
                )
            elif name not in hooked and output.requires_grad:
                # Checkpointing recomputes the layer in backward(). A
                # reentrant checkpoint ran it without grad the first time:
                # the gradient reaches this recomputed output only.
                keep_gradient(name, output)
            # The model goes on with a copy, so that an in-place op after
            # the layer leaves the hooked output as the layer returned it.
            return output.clone() if output.requires_grad else None

        return hook

    try:
        for name, module in modules.items():
            handles.append(module.register_forward_hook(forward_hook(name)))
        yield recording
    finally:
        for handle in handles:
            handle.remove()
        recording.outputs.clear()
    if not recording.activations:
        raise RuntimeError(
            "record_layers: none of the layers ran in the with-block; run "
            "the model there. torch.compile(model) runs the model without "
            "hooks added after compiling: run model itself"
        )
