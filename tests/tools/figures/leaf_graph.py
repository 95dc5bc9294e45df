"""The tensors of leaf-nodes.md's first example as a graph: which are leaves, which keep `.grad`.

Drawn from the page's own first block (x, w, b; y = w * x; z = y + b): the
tensors are the page's names; whether each is a leaf and requires grad comes
from ``is_leaf`` and ``requires_grad``; the operations from ``grad_fn.name()``
and the edges from ``next_functions`` (``AccumulateGrad.variable`` is the leaf
at the end of an edge). An input that does not require grad has no edge in the
graph; it is found among the tensors the operation saved (``_saved_*``) and
drawn with a dashed line. Which tensors hold a ``.grad`` is read after calling
``z.backward()`` on the page's own tensors (the page prints this later).

One figure, in both languages and in a light and a dark variant, written as
self-contained SVG: no script, no external font, a <title> and an aria-label.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from xml.sax.saxutils import escape

import torch

from sitepages import LANGUAGES
from sitepages.strings import strings
from tests.tools.figures import page_namespace
from tests.tools.figures.autograd_graph import PALETTES, _clip, _f, _text_width

PAGE = Path("docs/en/leaf-nodes.md")
OUTPUT = "z"  # the page's name for the result of its first block
NAMES = ("x", "w", "b", "y", "z")  # the tensors the first block prints, in its order

BOX_W, BOX_H = 204, 58
OP_W, OP_H = 128, 26
ROW_PITCH = 92
SLOT_PITCH = 220
MARGIN = 24
HEADER = 62


def read(namespace: dict[str, object]) -> tuple[dict[str, dict], dict[str, tuple[str, list[tuple[str, bool]]]]]:
    """(tensor name -> {leaf, requires_grad, grad}, output name -> (grad_fn name, [(input, in the graph)]))."""
    tensors = {name: namespace[name] for name in NAMES}
    if not all(isinstance(t, torch.Tensor) for t in tensors.values()):
        raise AssertionError(f"{PAGE}: expected tensors named {NAMES} after its first block")
    by_node = {id(t.grad_fn): name for name, t in tensors.items() if t.grad_fn is not None}
    by_tensor = {id(t): name for name, t in tensors.items()}
    ops = {}
    for name, tensor in tensors.items():
        node = tensor.grad_fn
        if node is None:
            continue
        saved = [getattr(node, a) for a in dir(node) if a.startswith("_saved_")]
        inputs = []
        for child, _ in node.next_functions:
            if child is None:  # no edge: an input that does not require grad, kept by the node to compute others
                outside = [by_tensor[id(s)] for s in saved
                           if isinstance(s, torch.Tensor) and id(s) in by_tensor and not s.requires_grad]
                if len(outside) != 1:
                    raise AssertionError(f"{PAGE}: cannot tell which tensor {node.name()} took without an edge")
                inputs.append((outside[0], False))
            elif child.name() == "torch::autograd::AccumulateGrad":
                inputs.append((by_tensor[id(child.variable)], True))
            else:
                inputs.append((by_node[id(child)], True))
        ops[name] = (node.name(), inputs)
    facts = {name: {"leaf": t.is_leaf, "requires_grad": t.requires_grad} for name, t in tensors.items()}
    tensors[OUTPUT].backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # reading .grad of a non-leaf warns; None is the point
        for name, tensor in tensors.items():
            facts[name]["grad"] = tensor.grad is not None
    return facts, ops


def _layout(facts: dict[str, dict], ops: dict) -> dict[str, tuple[float, float]]:
    """Leaves on the top row in the page's order; each result under its op, under the mean of its inputs."""
    leaves = [name for name in NAMES if facts[name]["leaf"]]
    slot = {name: float(i) for i, name in enumerate(leaves)}
    row = dict.fromkeys(leaves, 0)
    pending = [name for name in NAMES if name in ops]
    while pending:
        name = next(n for n in pending if all(child in slot for child, _ in ops[n][1]))
        inputs = [child for child, _ in ops[name][1]]
        slot[name] = sum(slot[child] for child in inputs) / len(inputs)
        row[name] = max(row[child] for child in inputs) + 1
        pending.remove(name)
    left = MARGIN + BOX_W / 2
    positions = {}
    for name in slot:
        y = HEADER + BOX_H / 2 + row[name] * 2 * ROW_PITCH
        positions[name] = (left + slot[name] * SLOT_PITCH, y)
        if name in ops:
            positions["op:" + name] = (positions[name][0], y - ROW_PITCH)
    return positions


def _kind(fact: dict, words: dict[str, str]) -> tuple[str, str, str]:
    """(palette entry, first caption line, second caption line) for a tensor."""
    if fact["leaf"] and fact["requires_grad"]:
        return "leaf", words["leaf_grad"], words["keeps_grad"]
    if fact["leaf"]:
        return "outside", words["leaf_no_grad"], words["no_grad_needed"]
    return "intermediate", words["non_leaf"], words["grad_none"]


def _svg(facts: dict, ops: dict, language: str, theme: str) -> str:
    words, colors = strings("figure_leaf_graph", language), PALETTES[theme]
    positions = _layout(facts, ops)
    width = max(x for x, _ in positions.values()) + BOX_W / 2 + MARGIN
    height = max(y for _, y in positions.values()) + BOX_H / 2 + MARGIN
    subtitle = words["subtitle"].format(out=OUTPUT)
    width = max(width, MARGIN * 2 + _text_width(subtitle, 13))
    label = f"{words['title']}: {subtitle}" if language == "en" else f"{words['title']}：{subtitle}"
    out: list[str] = []
    add = out.append
    add(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_f(width)} {_f(height)}" '
        f'width="{_f(width)}" height="{_f(height)}" role="img" aria-label="{escape(label)}">')
    add(f"<title>{escape(label)}</title>")
    add(f"<desc>{escape(_description(facts, ops, words))}</desc>")
    add('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        f'fill="{colors["edge"]}"/></marker></defs>')
    add(f'<rect x="0.5" y="0.5" width="{_f(width - 1)}" height="{_f(height - 1)}" rx="8" '
        f'fill="{colors["background"]}" stroke="{colors["border"]}"/>')
    add(f'<g font-family="sans-serif" fill="{colors["text"]}">')
    add(f'<text x="{MARGIN}" y="26" font-size="17" font-weight="bold">{escape(words["title"])}</text>')
    add(f'<text x="{MARGIN}" y="46" font-size="13" fill="{colors["muted"]}">{escape(subtitle)}</text>')
    box_half, op_half = (BOX_W / 2, BOX_H / 2), (OP_W / 2, OP_H / 2)
    for name, (_, inputs) in ops.items():
        op_at, out_at = positions["op:" + name], positions[name]
        edges = [(positions[child], box_half, op_at, op_half, in_graph) for child, in_graph in inputs]
        edges.append((op_at, op_half, out_at, box_half, True))
        for a, a_half, b, b_half, in_graph in edges:
            (x1, y1), (x2, y2) = _clip(b, a, a_half), _clip(a, b, b_half)
            dash = "" if in_graph else ' stroke-dasharray="5 4"'
            add(f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" stroke="{colors["edge"]}" '
                f'stroke-width="1.6"{dash} marker-end="url(#arrow)"/>')
    for name, (op_name, _) in ops.items():
        x, y = positions["op:" + name]
        fill, stroke = colors["op"]
        add(f'<rect x="{_f(x - OP_W / 2)}" y="{_f(y - OP_H / 2)}" width="{OP_W}" height="{OP_H}" '
            f'rx="{OP_H // 2}" fill="{fill}" stroke="{stroke}"/>')
        add(f'<text x="{_f(x)}" y="{_f(y + 4.5)}" font-size="12.5" font-family="monospace" '
            f'text-anchor="middle">{escape(op_name)}</text>')
    for name in NAMES:
        x, y = positions[name]
        palette, first, second = _kind(facts[name], words)
        fill, stroke = colors["op"] if palette == "outside" else colors[palette]
        dash = ' stroke-dasharray="5 4"' if palette == "outside" else ""
        add(f'<rect x="{_f(x - BOX_W / 2)}" y="{_f(y - BOX_H / 2)}" width="{BOX_W}" height="{BOX_H}" rx="6" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"{dash}/>')
        add(f'<text x="{_f(x)}" y="{_f(y - 8)}" font-size="15" font-weight="bold" '
            f'text-anchor="middle">{escape(name)}</text>')
        add(f'<text x="{_f(x)}" y="{_f(y + 8)}" font-size="11.5" text-anchor="middle" '
            f'fill="{colors["muted"]}">{escape(first)}</text>')
        add(f'<text x="{_f(x)}" y="{_f(y + 22)}" font-size="11.5" text-anchor="middle" '
            f'fill="{colors["muted"]}">{escape(second)}</text>')
    add("</g>")
    add("</svg>")
    return "\n".join(out) + "\n"


def _description(facts: dict, ops: dict, words: dict[str, str]) -> str:
    sentences = [words["gives"].format(inputs=words["and"].join(child for child, _ in inputs), op=op, out=name)
                 for name, (op, inputs) in ops.items()]
    groups = {"leaf": [], "outside": [], "intermediate": []}
    for name in NAMES:
        groups[_kind(facts[name], words)[0]].append(name)
    sentences.append(words["leaves_grad"].format(names=words["and"].join(groups["leaf"]), out=OUTPUT))
    sentences.append(words["leaves_no_grad"].format(names=words["and"].join(groups["outside"])))
    sentences.append(words["non_leaves"].format(names=words["and"].join(groups["intermediate"])))
    return words["sentence_separator"].join(sentences)


def render() -> dict[str, str]:
    """Repository-relative path -> SVG text, for every figure of this module."""
    facts, ops = read(page_namespace(PAGE, until=OUTPUT))
    expected = {"x": (True, False), "w": (True, True), "b": (True, True), "y": (False, False), "z": (False, False)}
    if {n: (f["leaf"], f["grad"]) for n, f in facts.items()} != expected:
        raise AssertionError(f"{PAGE}: the first example's leaves or .grad changed: {facts}")
    return {f"docs/{language}/figures/leaf-graph-{theme}.svg": _svg(facts, ops, language, theme)
            for language in LANGUAGES for theme in PALETTES}
