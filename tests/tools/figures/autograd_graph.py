"""The toy graph of intermediate/index.md, drawn from the autograd graph its code builds.

Nothing here is typed by hand: the page's own blocks run, and the figure is
read off the graph they leave behind. Tensors and their values come from the
page's names; the operations from ``grad_fn.name()``; the edges from
``next_functions`` (``AccumulateGrad.variable`` is the leaf at the end of an
edge); each edge's local partial derivative from calling its node with a
cotangent of ones; the gradients in the backward figure by the chain rule
over those partials, checked against ``torch.autograd.grad``.

Two figures (forward values; backward partials and gradients), each in both
languages and in a light and a dark variant, written as self-contained SVG:
no script, no external font, a <title> and an aria-label.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

import torch

from sitepages import LANGUAGES
from sitepages.strings import strings
from tests.tools.figures import THEME_COLOURS, page_namespace

PAGE = Path("docs/en/intermediate/index.md")
OUTPUT = "a"  # the page's name for the graph's output
LEAVES = ("x", "w", "b")  # the page's leaves, in the order they are drawn

PALETTES = {
    "light": {
        **THEME_COLOURS["light"],
        "edge": "#6e7781",
        "label": "#9a3412",
        "op": ("#f6f8fa", "#6e7781"),
        "leaf": ("#dbeafe", "#1d4ed8"),
        "intermediate": ("#fef3c7", "#b45309"),
        "output": ("#dcfce7", "#15803d"),
    },
    "dark": {
        **THEME_COLOURS["dark"],
        "edge": "#9198a1",
        "label": "#fdba74",
        "op": ("#2d333b", "#9198a1"),
        "leaf": ("#1e3a5f", "#60a5fa"),
        "intermediate": ("#4a3410", "#fbbf24"),
        "output": ("#14432a", "#4ade80"),
    },
}

TENSOR_W, TENSOR_H = 132, 46
OP_W, OP_H = 128, 26
ROW_PITCH = 84
SLOT_PITCH = 190
MARGIN = 24
HEADER = 62


@dataclass
class Op:
    name: str  # grad_fn.name()
    output: str  # the tensor it produced
    inputs: list[str] = field(default_factory=list)
    partials: list[float] = field(default_factory=list)  # d output / d input, per input


@dataclass
class Graph:
    values: dict[str, float]  # tensor name -> forward value
    kinds: dict[str, str]  # tensor name -> leaf / intermediate / output
    ops: dict[str, Op]  # output tensor name -> the op that made it
    grads: dict[str, float]  # tensor name -> d output / d tensor


def _number(value: float) -> str:
    return f"{value:g}"


def read_graph(namespace: dict[str, object]) -> Graph:
    """Walk OUTPUT.grad_fn and next_functions; name tensors by the page's variables."""
    tensors = {name: t for name, t in namespace.items() if isinstance(t, torch.Tensor)}
    by_grad_fn = {id(t.grad_fn): name for name, t in tensors.items() if t.grad_fn is not None}
    by_leaf = {id(t): name for name, t in tensors.items() if t.grad_fn is None}
    output = tensors[OUTPUT]
    values: dict[str, float] = {}
    kinds: dict[str, str] = {}
    ops: dict[str, Op] = {}

    def visit(name: str) -> None:
        tensor = tensors[name]
        values[name] = tensor.item()
        if tensor.grad_fn is None:
            kinds[name] = "leaf"
            return
        kinds[name] = "output" if name == OUTPUT else "intermediate"
        node = tensor.grad_fn
        op = ops[name] = Op(node.name(), name)
        with torch.no_grad():
            local = node(torch.ones_like(tensor))
        local = (local,) if isinstance(local, torch.Tensor) else local
        for (child, _), partial in zip(node.next_functions, local, strict=True):
            if child is None:  # an input that does not require grad: no edge
                continue
            if child.name() == "torch::autograd::AccumulateGrad":
                child_name = by_leaf[id(child.variable)]
            else:
                child_name = by_grad_fn[id(child)]
            op.inputs.append(child_name)
            op.partials.append(partial.item())
            if child_name not in values:
                visit(child_name)

    visit(OUTPUT)
    # The chain rule over the edges, from the output back: in reverse topological order.
    order: list[str] = []

    def topo(name: str) -> None:
        if name in order:
            return
        for child in ops[name].inputs if name in ops else []:
            topo(child)
        order.append(name)

    topo(OUTPUT)
    grads = dict.fromkeys(values, 0.0)
    grads[OUTPUT] = 1.0
    for name in reversed(order):
        if name in ops:
            for child, partial in zip(ops[name].inputs, ops[name].partials, strict=True):
                grads[child] += grads[name] * partial
    names = list(values)
    checked = torch.autograd.grad(output, [tensors[n] for n in names], retain_graph=True, allow_unused=True)
    for name, grad in zip(names, checked, strict=True):
        expected = 1.0 if name == OUTPUT else grad.item()
        if grads[name] != expected:
            raise AssertionError(f"chain rule gives d{OUTPUT}/d{name} = {grads[name]}, autograd {expected}")
    return Graph(values, kinds, ops, grads)


def _layout(graph: Graph) -> dict[str, tuple[float, float]]:
    """Leaves on top, output at the bottom; a row per graph depth, a slot per leaf path."""
    depth: dict[str, int] = {}  # longest path to the output, tensors and ops alternating

    def deepen(name: str, d: int) -> None:
        if depth.get(name, -1) >= d:
            return
        depth[name] = d
        if name in graph.ops:
            depth["op:" + name] = max(depth.get("op:" + name, -1), d + 1)
            for child in graph.ops[name].inputs:
                deepen(child, d + 2)

    deepen(OUTPUT, 0)
    rows = max(depth.values())
    slot: dict[str, float] = {}
    next_slot = [0]

    def place(name: str) -> float:
        if name not in slot:
            children = graph.ops[name].inputs if name in graph.ops else []
            if not children:
                slot[name] = next_slot[0]
                next_slot[0] += 1
            else:
                slot[name] = sum(place(child) for child in children) / len(children)
        return slot[name]

    place(OUTPUT)
    left = MARGIN + TENSOR_W / 2
    positions = {}
    for name, s in slot.items():
        x = left + s * SLOT_PITCH
        positions[name] = (x, HEADER + TENSOR_H / 2 + (rows - depth[name]) * ROW_PITCH)
        if name in graph.ops:
            positions["op:" + name] = (x, HEADER + TENSOR_H / 2 + (rows - depth["op:" + name]) * ROW_PITCH)
    return positions


def _f(value: float) -> str:
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _clip(start: tuple[float, float], end: tuple[float, float], half: tuple[float, float]) -> tuple[float, float]:
    """The point where the segment start->end enters the box of size 2*half centred at end."""
    dx, dy = end[0] - start[0], end[1] - start[1]
    scale = min(half[0] / abs(dx) if dx else float("inf"), half[1] / abs(dy) if dy else float("inf"))
    return end[0] - dx * scale, end[1] - dy * scale


def _text_width(text: str, size: float) -> float:
    return sum(size * (1.0 if ord(c) > 0x2E80 else 0.6) for c in text)


def _svg(graph: Graph, language: str, theme: str, direction: str) -> str:
    words, colors = strings("figure_autograd_graph", language), PALETTES[theme]
    positions = _layout(graph)
    width = max(x for x, _ in positions.values()) + TENSOR_W / 2 + MARGIN
    height = max(y for _, y in positions.values()) + TENSOR_H / 2 + MARGIN
    title = words[direction]
    subtitle = words[direction + "_sub"].format(out=OUTPUT)
    width = max(width, MARGIN * 2 + _text_width(subtitle, 13))
    label = f"{title}: {subtitle}" if language == "en" else f"{title}：{subtitle}"
    out: list[str] = []
    add = out.append
    add(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_f(width)} {_f(height)}" '
        f'width="{_f(width)}" height="{_f(height)}" role="img" aria-label="{escape(label)}">'
    )
    add(f"<title>{escape(label)}</title>")
    add(f"<desc>{escape(_description(graph, words, direction))}</desc>")
    add(
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        f'fill="{colors["edge"]}"/></marker></defs>'
    )
    add(
        f'<rect x="0.5" y="0.5" width="{_f(width - 1)}" height="{_f(height - 1)}" rx="8" '
        f'fill="{colors["background"]}" stroke="{colors["border"]}"/>'
    )
    add(f'<g font-family="sans-serif" fill="{colors["text"]}">')
    add(f'<text x="{MARGIN}" y="26" font-size="17" font-weight="bold">{escape(title)}</text>')
    add(f'<text x="{MARGIN}" y="46" font-size="13" fill="{colors["muted"]}">{escape(subtitle)}</text>')

    tensor_half, op_half = (TENSOR_W / 2, TENSOR_H / 2), (OP_W / 2, OP_H / 2)
    labels: list[str] = []
    for name, op in graph.ops.items():
        op_at, out_at = positions["op:" + name], positions[name]
        edges = [(positions[child], tensor_half, op_at, op_half) for child in op.inputs]
        edges.append((op_at, op_half, out_at, tensor_half))
        for index, (a, a_half, b, b_half) in enumerate(edges):
            a_edge, b_edge = _clip(b, a, a_half), _clip(a, b, b_half)
            if direction == "backward":
                a_edge, b_edge = b_edge, a_edge
            add(
                f'<line x1="{_f(a_edge[0])}" y1="{_f(a_edge[1])}" x2="{_f(b_edge[0])}" '
                f'y2="{_f(b_edge[1])}" stroke="{colors["edge"]}" stroke-width="1.6" '
                'marker-end="url(#arrow)"/>'
            )
            if direction == "backward" and index < len(op.inputs):
                child = op.inputs[index]
                text = f"∂{name}/∂{child} = {_number(op.partials[index])}"
                mid_x, mid_y = (a_edge[0] + b_edge[0]) / 2, (a_edge[1] + b_edge[1]) / 2
                w = _text_width(text, 12) + 8
                labels.append(
                    f'<rect x="{_f(mid_x - w / 2)}" y="{_f(mid_y - 9)}" width="{_f(w)}" height="18" '
                    f'rx="4" fill="{colors["background"]}"/>'
                    f'<text x="{_f(mid_x)}" y="{_f(mid_y + 4)}" font-size="12" text-anchor="middle" '
                    f'fill="{colors["label"]}">{escape(text)}</text>'
                )
    out.extend(labels)

    for name, op in graph.ops.items():
        x, y = positions["op:" + name]
        fill, stroke = colors["op"]
        add(
            f'<rect x="{_f(x - OP_W / 2)}" y="{_f(y - OP_H / 2)}" width="{OP_W}" height="{OP_H}" '
            f'rx="{OP_H // 2}" fill="{fill}" stroke="{stroke}"/>'
        )
        add(
            f'<text x="{_f(x)}" y="{_f(y + 4.5)}" font-size="12.5" font-family="monospace" '
            f'text-anchor="middle">{escape(op.name)}</text>'
        )
    for name, kind in graph.kinds.items():
        x, y = positions[name]
        fill, stroke = colors[kind]
        main = (
            f"{name} = {_number(graph.values[name])}"
            if direction == "forward"
            else f"∂{OUTPUT}/∂{name} = {_number(graph.grads[name])}"
        )
        add(
            f'<rect x="{_f(x - TENSOR_W / 2)}" y="{_f(y - TENSOR_H / 2)}" width="{TENSOR_W}" '
            f'height="{TENSOR_H}" rx="6" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
        )
        add(
            f'<text x="{_f(x)}" y="{_f(y - 2)}" font-size="15" font-weight="bold" '
            f'text-anchor="middle">{escape(main)}</text>'
        )
        add(
            f'<text x="{_f(x)}" y="{_f(y + 15)}" font-size="11.5" text-anchor="middle" '
            f'fill="{colors["muted"]}">{escape(words[kind])}</text>'
        )
    add("</g>")
    add("</svg>")
    return "\n".join(out) + "\n"


def _description(graph: Graph, words: dict[str, str], direction: str) -> str:
    def value(name: str) -> str:
        return f"{name} = {_number(graph.values[name])}"

    sentences = []
    for name, op in reversed(graph.ops.items()):
        if direction == "forward":
            sentences.append(
                words["gives"].format(
                    inputs=words["and"].join(map(value, op.inputs)), op=op.name, out=value(name)
                )
            )
        else:
            partials = words["list"].join(
                f"∂{name}/∂{child} = {_number(p)}" for child, p in zip(op.inputs, op.partials, strict=True)
            )
            sentences.append(words["passes"].format(op=op.name, partials=partials))
    if direction == "backward":
        grads = words["list"].join(f"∂{OUTPUT}/∂{n} = {_number(g)}" for n, g in graph.grads.items())
        sentences.append(words["grads"].format(grads=grads))
    return words["sentence_separator"].join(sentences)


def render() -> dict[str, str]:
    """Repository-relative path -> SVG text, for every figure of this module."""
    # Stop once the output exists: the page's later backward() frees the saved
    # tensors the edge labels are computed from.
    graph = read_graph(page_namespace(PAGE, until=OUTPUT))
    if tuple(n for n, kind in graph.kinds.items() if kind == "leaf") != LEAVES:
        raise AssertionError(f"{PAGE}: expected the leaves {LEAVES}, the graph has {graph.kinds}")
    figures = {}
    for language in LANGUAGES:
        for direction in ("forward", "backward"):
            for theme in PALETTES:
                path = f"docs/{language}/figures/toy-graph-{direction}-{theme}.svg"
                figures[path] = _svg(graph, language, theme, direction)
    return figures
