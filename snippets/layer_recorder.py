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

Activation checkpointing (``torch.utils.checkpoint`` with
``use_reentrant=False``, as Hugging Face's ``gradient_checkpointing_enable``
uses) runs a layer again during ``backward()``; that rerun is not recorded
twice. Reentrant checkpointing and a model already compiled with
``torch.compile`` cannot be recorded; both raise an error that says so.

A plain ``backward()`` also writes every parameter's ``.grad``. In the
middle of a training step (between micro-batches of gradient accumulation,
or on one DDP process only), give the input ``requires_grad`` and run
``backward(inputs=[input])`` instead: the layers' gradients are recorded
all the same, and the parameters' ``.grad`` stay as training left them.
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
    under ``torch.amp.GradScaler``, multiplied by the scale).
    """

    def __init__(self, layers: list[str]) -> None:
        self.layers = layers
        self.activations = _ByLayer("activation (did the layer run?)")
        self.gradients = _ByLayer(
            "gradient (call backward() inside the with-block, on an output "
            "that depends on this layer, with grad enabled)"
        )


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


def _refuse_compiled(model: nn.Module) -> None:
    """A compiled model does not call hooks added after its first call."""
    if hasattr(model, "_orig_mod"):
        raise TypeError(
            "record_layers: model was compiled with torch.compile, which "
            "does not call hooks added after its first call; record on "
            "model._orig_mod, the uncompiled module that shares its "
            "parameters"
        )
    if getattr(model, "_compiled_call_impl", None) is not None:
        raise TypeError(
            "record_layers: model was compiled in place (model.compile()), "
            "which does not call hooks added after its first call; record "
            "on an uncompiled copy (copy.deepcopy before compiling)"
        )


@contextmanager
def record_layers(
    model: nn.Module, layers: Iterable[str] | None = None
) -> Iterator[LayerRecording]:
    """Record each named layer's output and the gradient that reaches it.

    ``layers`` are names from ``model.named_modules()`` ("conv1",
    "features.0"); ``None`` records every layer with no children. Run one
    forward pass and its ``backward()`` inside the block. A layer that runs
    twice in one forward pass raises RuntimeError rather than silently keep
    only one of the two calls; the rerun of a layer that non-reentrant
    checkpointing makes during ``backward()`` is no second call.

    >>> import torch
    >>> model = torch.nn.Sequential(torch.nn.Identity(), torch.nn.Tanh())
    >>> with record_layers(model) as rec:
    ...     model(torch.zeros(1, requires_grad=True)).sum().backward()
    >>> rec.activations["1"], rec.gradients["0"]
    (tensor([0.]), tensor([1.]))

    Raises TypeError or ValueError naming the culprit: a model that is not a
    Module, a layer the model does not have, a layer given twice, a model
    compiled with ``torch.compile``; RuntimeError for a layer inside a
    reentrant checkpoint.
    """
    _refuse_compiled(model)
    modules = _resolve(model, layers)
    recording = LayerRecording(list(modules))
    handles = []
    hooked: set[str] = set()  # layers whose output got a gradient hook

    def gradient_saver(name: str) -> Callable[[torch.Tensor], None]:
        def hook(grad: torch.Tensor) -> None:
            recording.gradients[name] = grad.detach().clone()

        return hook

    def forward_hook(name: str) -> Callable[[nn.Module, tuple, object], None]:
        def hook(module: nn.Module, inputs: tuple, output: object) -> None:
            if not isinstance(output, torch.Tensor):
                raise TypeError(
                    f"record_layers: layer {name!r} returned "
                    f"{type(output).__name__}, not a tensor; record one of "
                    "its submodules instead"
                )
            if name in recording.activations:
                if _in_backward() and name in hooked:
                    return  # checkpointing recomputes the layer: seen already
                if _in_backward():
                    raise RuntimeError(
                        f"record_layers: layer {name!r} is inside a "
                        "reentrant checkpoint (use_reentrant=True), whose "
                        "first forward pass records no graph, so no "
                        "gradient reaches it; checkpoint with "
                        "use_reentrant=False, or record outside the segment"
                    )
                raise RuntimeError(
                    f"record_layers: layer {name!r} ran twice in one block; "
                    "use one block per forward pass"
                )
            # A copy: a later in-place op (ReLU(inplace=True)) would change it.
            recording.activations[name] = output.detach().clone()
            if output.requires_grad:
                handles.append(output.register_hook(gradient_saver(name)))
                hooked.add(name)

        return hook

    try:
        for name, module in modules.items():
            handles.append(module.register_forward_hook(forward_hook(name)))
        yield recording
    finally:
        for handle in handles:
            handle.remove()
