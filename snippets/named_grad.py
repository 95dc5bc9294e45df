"""torch.autograd.grad with names: a dict in, a dict out, errors that say which.

Copy this file into your project; it needs only torch.

    >>> import torch
    >>> x = torch.tensor([3.0], requires_grad=True)
    >>> u = x * 2
    >>> named_grad((u * u).sum(), {"x": x, "u": u})
    {'x': tensor([24.]), 'u': tensor([12.])}

Like ``torch.autograd.grad``, it writes no parameter's ``.grad``, so it can
run in the middle of a training step. torch refuses it through a reentrant
checkpoint; Hugging Face models do not checkpoint in ``eval()``. On one DDP
process only, run ``ddp.module``, not the DDP wrapper, in ``eval()`` (where
BatchNorm updates no running statistics): a forward pass through the
wrapper broadcasts the model's buffers (BatchNorm's) from rank 0, and waits
for the other processes, whenever the previous forward pass through it ran
with grad enabled outside ``no_sync()`` (and on the first call), even when
this one runs in ``eval()`` under ``torch.no_grad()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import torch

__all__ = ["named_grad"]


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
    inputs: Mapping[str, torch.Tensor] | Iterable[tuple[str, torch.Tensor]],
) -> list[tuple[str, torch.Tensor]]:
    if isinstance(inputs, torch.Tensor):
        raise TypeError(
            "named_grad: inputs must name the tensors, e.g. {'x': x}, "
            "not be a bare tensor"
        )
    pairs = list(inputs.items() if isinstance(inputs, Mapping) else inputs)
    seen: set[str] = set()
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise TypeError(
                f"named_grad: expected (name, tensor) pairs, got {pair!r}"
            )
        name, tensor = pair
        if not isinstance(name, str) or not name:
            raise TypeError(
                f"named_grad: a name must be a non-empty str, got {name!r}"
            )
        if name in seen:
            raise ValueError(f"named_grad: name {name!r} given twice")
        seen.add(name)
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(
                f"named_grad: {name!r} must be a torch.Tensor, "
                f"got {type(tensor).__name__}"
            )
        if not tensor.requires_grad:
            raise ValueError(
                f"named_grad: tensor {name!r} does not require grad "
                "(requires_grad=False); call .requires_grad_() on a leaf, or "
                "compute it with grad enabled from one that does (not under "
                "torch.no_grad(), nor in a reentrant checkpoint's first pass)"
            )
        if _one_of_a_region(tensor):
            raise ValueError(
                f"named_grad: tensor {name!r} was returned with others by "
                "a torch.compile'd region or a reentrant checkpoint, one "
                "node for autograd, so its gradient leaves out any use it "
                "has inside the region; take it in the uncompiled model, or "
                "checkpoint with use_reentrant=False"
            )
    if not pairs:
        raise ValueError("named_grad: no inputs given, e.g. {'x': x}")
    return pairs


def named_grad(
    output: torch.Tensor,
    inputs: Mapping[str, torch.Tensor] | Iterable[tuple[str, torch.Tensor]],
    *,
    grad_output: torch.Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> dict[str, torch.Tensor | None]:
    """Return {name: d(output)/d(tensor)} for named tensors, leaf or not.

    ``inputs`` is a mapping or (name, tensor) pairs. A non-scalar output
    needs ``grad_output`` (the vector of a vector-Jacobian product). As with
    ``torch.autograd.grad``, no leaf's ``.grad`` is written (a tensor that
    called ``retain_grad()`` still gets its ``.grad`` filled), the graph is
    freed unless ``retain_graph=True`` (pass it when a ``backward()`` of the
    same graph comes later), and ``create_graph=True`` returns gradients you
    can differentiate again. With ``allow_unused=True`` a
    tensor the output does not depend on gets ``None``; without it, the
    error names that tensor.

    >>> import torch
    >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> c = torch.tensor([5.0], requires_grad=True)
    >>> named_grad(x * 3, [("x", x), ("c", c)],
    ...            grad_output=torch.ones(2), allow_unused=True)
    {'x': tensor([3., 3.]), 'c': None}
    """
    if not isinstance(output, torch.Tensor):
        raise TypeError(
            "named_grad: output must be a torch.Tensor, "
            f"got {type(output).__name__}"
        )
    pairs = _named(inputs)
    if not output.requires_grad:
        raise ValueError(
            "named_grad: the output does not require grad "
            "(requires_grad=False); was it computed under torch.no_grad(), "
            "or only from tensors that do not require grad?"
        )
    if grad_output is None and output.numel() != 1:
        raise ValueError(
            f"named_grad: the output has shape {tuple(output.shape)}, not one "
            "number; pass grad_output= a tensor of that shape (e.g. "
            "torch.ones_like(output)) or reduce the output first (output.sum())"
        )
    if grad_output is not None and grad_output.shape != output.shape:
        raise ValueError(
            f"named_grad: grad_output has shape {tuple(grad_output.shape)}, "
            f"the output {tuple(output.shape)}; they must match"
        )
    grads = torch.autograd.grad(
        output,
        [tensor for _, tensor in pairs],
        grad_outputs=grad_output,
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )
    names = [name for name, _ in pairs]
    found = dict(zip(names, grads, strict=True))
    unused = [name for name, grad in found.items() if grad is None]
    if unused and not allow_unused:
        raise ValueError(
            "named_grad: the output does not depend on "
            f"{', '.join(map(repr, unused))} (no path in the graph); "
            "pass allow_unused=True to get None for it"
        )
    return found
