"""The cost page's tables and summary, rendered from stored benchmark results (results/*.json).

Pure rendering: nothing here measures or imports torch, so the suite can check
that the pages show exactly the stored results (tests/test_cost_page.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from sitepages.strings import strings

RESULTS = Path(__file__).resolve().parent / "results"
KS = (1, 4, 16)
METHODS = ("separate", "tuple", "retain_grad", "hooks", "tensors_only")
CASES = (("mlp", 64), ("mlp", 256), ("cnn", 32), ("cnn", 64))
MODES = ("normal", "no_grad", "inference_mode")


def _words(lang: str) -> dict[str, str]:
    """The page's words in one language (docs/data/interface.yml, group cost_page)."""
    return strings("cost_page", lang)


def _x(ratio: float) -> str:
    return f"{ratio:.2f}×"


def _unit(lang: str, unit: str) -> str:
    """A unit after a header word: ' (ms)' in English, '（ms）' in Chinese, whose brackets are full-width."""
    return _words(lang)["unit"].format(unit=unit)


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def method_table(results: dict, model: str, what: str, lang: str) -> str:
    """One model's time (what='time') or peak memory (what='memory') ratios, per batch and k."""
    w = _words(lang)
    unit = "ms" if what == "time" else "MB"
    header = [w["batch"], "k", w["baseline_time"] + _unit(lang, unit)] + [w[f"method_{m}"] for m in METHODS]
    rows = []
    for case in results["cases"]:
        if case["model"] != model:
            continue
        base = case["baseline"]["ms"] if what == "time" else case["baseline"]["peak_mb"]
        for k in KS:
            ratios = {
                entry["method"]: entry["time_ratio" if what == "time" else "memory_ratio"]
                for entry in case["methods"] if entry["k"] == k
            }
            rows.append([str(case["batch"]), str(k), f"{base:.1f}"] + [_x(ratios[m]) for m in METHODS])
    return _table(header, rows)


def forward_table(results: dict, lang: str) -> str:
    w = _words(lang)
    header = [w["model"], w["batch"], w["mode"], w["time"] + _unit(lang, "ms"), w["peak"] + _unit(lang, "MB"),
              w["held"] + _unit(lang, "MB")]
    rows = []
    for case in results["cases"]:
        for entry in case["forward"]:
            normal = entry["mode"] == "normal"
            rows.append([
                w[f"model_{case['model']}"], str(case["batch"]), w[f"mode_{entry['mode']}"],
                f"{entry['ms']:.1f}" + ("" if normal else f" ({_x(entry['time_ratio'])})"),
                f"{entry['peak_mb']:.2f}" + ("" if normal else f" ({_x(entry['peak_ratio'])})"),
                f"{entry['held_mb']:.2f}" + ("" if normal else f" ({_x(entry['held_ratio'])})"),
            ])
    return _table(header, rows)


def machine_list(results: dict, lang: str) -> str:
    w, m = _words(lang), results["machine"]
    items = [
        (w["cpu"], f"{m['cpu']}{w['comma']}{m['cores']} {w['cores']}"),
        (w["threads"], str(m["threads"])),
    ]
    if m.get("gpu"):
        items.append((w["gpu"], f"{m['gpu']} (CUDA {m['cuda']})"))
    items += [
        (w["torch"], f"`{m['torch']}`"),
        (w["python"], m["python"]),
        (w["os"], m["os"]),
        (w["date"], results["date"]),
        (w["load"], " / ".join(f"{value:.2f}" for value in results["load"])),
        (w["command"], f"`{results['command']}`"),
    ]
    return "\n".join(f"- {key}{w['colon']}{value}" for key, value in items)


def _ratio(results: dict, model: str, method: str, k: int, what: str) -> list[float]:
    return [
        entry[what]
        for case in results["cases"] if case["model"] == model
        for entry in case["methods"] if entry["method"] == method and entry["k"] == k
    ]


def _span(values: list[float], unit: str = "×") -> str:
    """A range of ratios, '0.96–1.16×'; in Chinese prose unit=' 倍' gives '0.96–1.16 倍'."""
    low, high = min(values), max(values)
    return f"{low:.2f}{unit}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f}{unit}"


def summary(results: dict, lang: str) -> str:
    """The figures the advice cites, computed from the results (both models, both batch sizes)."""
    w = _words(lang)
    unit = w["prose_ratio"]  # the summary is prose: Chinese prose writes ratios with 倍

    def span(method, k, what):
        return _span(_ratio(results, "mlp", method, k, what) + _ratio(results, "cnn", method, k, what), unit)

    def forward(mode, what):
        return [e[what] for c in results["cases"] for e in c["forward"] if e["mode"] == mode]

    held = forward("no_grad", "held_ratio")
    return "\n".join([
        w["summary_hooks"].format(
            retain_time=span("retain_grad", 16, "time_ratio"), hooks_time=span("hooks", 16, "time_ratio"),
            retain_memory=span("retain_grad", 16, "memory_ratio"), hooks_memory=span("hooks", 16, "memory_ratio")),
        w["summary_tuple"].format(time=span("tuple", 16, "time_ratio"), memory=span("tuple", 16, "memory_ratio")),
        w["summary_separate"].format(time=span("separate", 16, "time_ratio"), one=span("separate", 1, "time_ratio")),
        w["summary_tensors_only"].format(one=span("tensors_only", 1, "time_ratio"),
                                         sixteen=span("tensors_only", 16, "time_ratio")),
        w["summary_no_grad_nothing_held" if max(held) < 0.005 else "summary_no_grad"].format(
            peak=_span(forward("no_grad", "peak_ratio"), unit),
            inference=_span(forward("inference_mode", "peak_ratio"), unit), held=_span(held, unit)),
    ])


def gpu_section(gpu: dict | None, lang: str) -> str:
    w = _words(lang)
    if gpu is None:
        return w["gpu_missing"]
    parts = [machine_list(gpu, lang)]
    for model in ("mlp", "cnn"):
        name = w[f"model_{model}"]
        parts.append(f"**{name}{w['heading_separator']}{w['heading_time']}**\n\n"
                     + method_table(gpu, model, "time", lang))
        parts.append(f"**{name}{w['heading_separator']}{w['heading_memory']}**\n\n"
                     + method_table(gpu, model, "memory", lang))
    parts.append(f"**{w['heading_forward']}**\n\n" + forward_table(gpu, lang))
    return "\n\n".join(parts)


def sections(cpu: dict, gpu: dict | None, lang: str) -> dict[str, str]:
    return {
        "machine": machine_list(cpu, lang),
        "summary": summary(cpu, lang),
        "mlp-time": method_table(cpu, "mlp", "time", lang),
        "mlp-memory": method_table(cpu, "mlp", "memory", lang),
        "cnn-time": method_table(cpu, "cnn", "time", lang),
        "cnn-memory": method_table(cpu, "cnn", "memory", lang),
        "forward": forward_table(cpu, lang),
        "gpu": gpu_section(gpu, lang),
    }


def load_results() -> tuple[dict, dict | None]:
    cpu = json.loads((RESULTS / "cpu.json").read_text(encoding="utf-8"))
    cuda_file = RESULTS / "cuda.json"
    gpu = json.loads(cuda_file.read_text(encoding="utf-8")) if cuda_file.is_file() else None
    return cpu, gpu
