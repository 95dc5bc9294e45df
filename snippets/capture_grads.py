"""Capture gradients of named tensors in one backward; hooks always removed.

Copy this file into your project; it needs only torch.

    >>> import torch
    >>> x = torch.tensor([3.0], requires_grad=True)
    >>> u = x * 2
    >>> v = u + 1
    >>> with capture_grads(u=u, v=v) as grads:
    ...     (v * v).sum().backward()
    >>> grads["u"], grads["v"]
    (tensor([14.]), tensor([14.]))

The hooks come off when the ``with`` block ends, also when it raises.

A plain ``backward()`` also writes every parameter's ``.grad``. In the
middle of a training step (between micro-batches of gradient accumulation,
or on one DDP process only), run ``backward(inputs=[...])`` with the
captured tensors, or ``torch.autograd.grad``, instead: the gradients are
captured all the same, and the parameters' ``.grad`` stay as they were.
torch refuses both through a reentrant checkpoint; Hugging Face models do
not checkpoint in ``eval()``. On one DDP process only, run ``ddp.module``,
not the DDP wrapper, in ``eval()`` (where BatchNorm updates no running
statistics): a forward pass through the wrapper broadcasts the model's
buffers (BatchNorm's) from rank 0, and waits for the other processes,
whenever the previous forward pass through it ran with grad enabled outside
``no_sync()`` (and on the first call), even when this one runs in
``eval()`` under ``torch.no_grad()``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager

import torch

__all__ = ["CapturedGrads", "capture_grads"]


class CapturedGrads(dict):
    """Name -> gradient. Reading a name no gradient reached says why."""

    def __missing__(self, name: str) -> torch.Tensor:
        raise KeyError(
            f"capture_grads: no gradient reached {name!r}; call backward() "
            "inside the with-block, on an output that depends on that tensor"
        )


def _one_of_a_region(tensor: torch.Tensor) -> bool:
    """Whether torch.compile or a reentrant checkpoint returned the tensor
    with others, as one autograd node: its uses inside the region are then
    not in the graph. (torch has no public count of a node's outputs.)"""
    node = tensor.grad_fn
    regions = ("CompiledFunctionBackward", "CheckpointFunctionBackward")
    return (
        node is not None
        and node.name() in regions
        and len(getattr(node, "_input_metadata", ())) > 1
    )


def _named(
    tensors: Mapping[str, torch.Tensor] | Iterable[tuple[str, torch.Tensor]],
    named: Mapping[str, torch.Tensor],
) -> list[tuple[str, torch.Tensor]]:
    pairs = list(tensors.items() if isinstance(tensors, Mapping) else tensors)
    pairs += named.items()
    seen: set[str] = set()
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise TypeError(
                f"capture_grads: expected (name, tensor) pairs, got {pair!r}"
            )
        name, tensor = pair
        if not isinstance(name, str) or not name:
            raise TypeError(
                f"capture_grads: a name must be a non-empty str, got {name!r}"
            )
        if name in seen:
            raise ValueError(f"capture_grads: name {name!r} given twice")
        seen.add(name)
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(
                f"capture_grads: {name!r} must be a torch.Tensor, "
                f"got {type(tensor).__name__}"
            )
        if not tensor.requires_grad:
            raise ValueError(
                f"capture_grads: tensor {name!r} does not require grad "
                "(requires_grad=False); call .requires_grad_() on a leaf, or "
                "compute it with grad enabled from one that does (not under "
                "torch.no_grad(), nor in a reentrant checkpoint's first pass)"
            )
        if _one_of_a_region(tensor):
            raise ValueError(
                f"capture_grads: tensor {name!r} was returned with others by "
                "a torch.compile'd region or a reentrant checkpoint, one "
                "node for autograd, so its gradient leaves out any use it "
                "has inside the region; capture it in the uncompiled model, or "
                "checkpoint with use_reentrant=False"
            )
    if not pairs:
        raise ValueError(
            "capture_grads: no tensors given, e.g. capture_grads(u=u)"
        )
    return pairs


@contextmanager
def capture_grads(
    tensors: Mapping[str, torch.Tensor]
    | Iterable[tuple[str, torch.Tensor]] = (),
    /,
    **named: torch.Tensor,
) -> Iterator[CapturedGrads]:
    """Record d(output)/d(tensor) for each named tensor, leaf or not.

    Give the tensors as keywords (``u=u``), a mapping or (name, tensor)
    pairs. Inside the block, run ``backward()`` (or ``torch.autograd.grad``);
    the returned dict then maps each name to its gradient. Gradients are
    detached copies; if backward runs twice in the block they add up, as
    ``.grad`` does. ``.grad`` of the tensors is untouched by the hooks.
    Under ``torch.amp.GradScaler`` the hooks see the scaled gradients:
    divide by ``scaler.get_scale()``.

    >>> import torch
    >>> w = torch.tensor([2.0], requires_grad=True)
    >>> h = w * 5
    >>> with capture_grads({"w": w, "h": h}) as grads:
    ...     (h * 3).sum().backward()
    >>> print(grads["w"], grads["h"])
    tensor([15.]) tensor([3.])

    Raises TypeError or ValueError naming the culprit: a tensor that does not
    require grad, a name given twice, a value that is not a tensor, a tensor
    returned with others by a compiled region or a reentrant checkpoint.
    """
    pairs = _named(tensors, named)
    grads = CapturedGrads()
    handles = []

    def saver(name: str) -> Callable[[torch.Tensor], None]:
        def hook(grad: torch.Tensor | None) -> None:
            if grad is None:  # an output of a multi-output op that got none
                return
            grad = grad.detach().clone()
            grads[name] = grads[name] + grad if name in grads else grad

        return hook

    try:
        for name, tensor in pairs:
            handles.append(tensor.register_hook(saver(name)))
        yield grads
    finally:
        for handle in handles:
            handle.remove()
