"""The cost page's tables and summary, rendered from stored benchmark results (results/*.json).

Pure rendering: nothing here measures or imports torch, so the suite can check
that the pages show exactly the stored results (tests/test_cost_page.py).
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
KS = (1, 4, 16)
METHODS = ("separate", "tuple", "retain_grad", "hooks", "tensors_only")
CASES = (("mlp", 64), ("mlp", 256), ("cnn", 32), ("cnn", 64))
MODES = ("normal", "no_grad", "inference_mode")


METHOD_NAMES = {
    "en": {
        "separate": "k × `autograd.grad`",
        "tuple": "one `autograd.grad` (tuple)",
        "retain_grad": "`retain_grad()`",
        "hooks": "`register_hook`",
        "tensors_only": "`autograd.grad`, tensors only",
    },
    "zh": {
        "separate": "k 次 `autograd.grad`",
        "tuple": "一次 `autograd.grad`（元组）",
        "retain_grad": "`retain_grad()`",
        "hooks": "`register_hook`",
        "tensors_only": "`autograd.grad`，仅中间变量",
    },
}
MODE_NAMES = {
    "en": {"normal": "normal (recording)", "no_grad": "`torch.no_grad()`",
           "inference_mode": "`torch.inference_mode()`"},
    "zh": {"normal": "正常模式（记录计算图）", "no_grad": "`torch.no_grad()`",
           "inference_mode": "`torch.inference_mode()`"},
}
MODEL_NAMES = {"en": {"mlp": "MLP", "cnn": "CNN"}, "zh": {"mlp": "MLP", "cnn": "CNN"}}
WORDS = {
    "en": {
        "batch": "Batch", "baseline_time": "plain `backward()`", "baseline_mem": "plain `backward()`",
        "model": "Model", "mode": "Mode", "time": "Time", "peak": "Peak", "held": "Held after forward",
        "cpu": "CPU", "cores": "cores", "threads": "threads (`torch.set_num_threads`)", "torch": "torch",
        "python": "Python", "os": "OS", "date": "Measured", "command": "Command",
        "gpu": "GPU", "load": "Load average (1 min) at start / end",
    },
    "zh": {
        "batch": "批量大小", "baseline_time": "普通 `backward()`", "baseline_mem": "普通 `backward()`",
        "model": "模型", "mode": "模式", "time": "时间", "peak": "峰值", "held": "前向传播后仍占用",
        "cpu": "CPU", "cores": "核", "threads": "线程数（`torch.set_num_threads`）", "torch": "torch",
        "python": "Python", "os": "操作系统", "date": "测量时间", "command": "命令",
        "gpu": "GPU", "load": "1 分钟平均负载（开始 / 结束）",
    },
}


def _x(ratio: float) -> str:
    return f"{ratio:.2f}×"


def _unit(lang: str, unit: str) -> str:
    """A unit after a header word: ' (ms)' in English, '（ms）' in Chinese, whose brackets are full-width."""
    return f" ({unit})" if lang == "en" else f"（{unit}）"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def method_table(results: dict, model: str, what: str, lang: str) -> str:
    """One model's time (what='time') or peak memory (what='memory') ratios, per batch and k."""
    w, names = WORDS[lang], METHOD_NAMES[lang]
    unit = "ms" if what == "time" else "MB"
    header = [w["batch"], "k", w["baseline_time"] + _unit(lang, unit)] + [names[m] for m in METHODS]
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
    w, names = WORDS[lang], MODE_NAMES[lang]
    header = [w["model"], w["batch"], w["mode"], w["time"] + _unit(lang, "ms"), w["peak"] + _unit(lang, "MB"),
              w["held"] + _unit(lang, "MB")]
    rows = []
    for case in results["cases"]:
        for entry in case["forward"]:
            normal = entry["mode"] == "normal"
            rows.append([
                MODEL_NAMES[lang][case["model"]], str(case["batch"]), names[entry["mode"]],
                f"{entry['ms']:.1f}" + ("" if normal else f" ({_x(entry['time_ratio'])})"),
                f"{entry['peak_mb']:.2f}" + ("" if normal else f" ({_x(entry['peak_ratio'])})"),
                f"{entry['held_mb']:.2f}" + ("" if normal else f" ({_x(entry['held_ratio'])})"),
            ])
    return _table(header, rows)


def machine_list(results: dict, lang: str) -> str:
    w, m = WORDS[lang], results["machine"]
    items = [
        (w["cpu"], f"{m['cpu']}{', ' if lang == 'en' else '，'}{m['cores']} {w['cores']}"),
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
    colon = ": " if lang == "en" else "："
    return "\n".join(f"- {key}{colon}{value}" for key, value in items)


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
    unit = "×" if lang == "en" else " 倍"  # the summary is prose: Chinese prose writes ratios with 倍

    def span(method, k, what):
        return _span(_ratio(results, "mlp", method, k, what) + _ratio(results, "cnn", method, k, what), unit)

    peaks = [e["peak_ratio"] for c in results["cases"] for e in c["forward"] if e["mode"] == "no_grad"]
    inference = [e["peak_ratio"] for c in results["cases"] for e in c["forward"] if e["mode"] == "inference_mode"]
    held = [e["held_ratio"] for c in results["cases"] for e in c["forward"] if e["mode"] == "no_grad"]
    if lang == "en":
        lines = [
            f"- `retain_grad()` and `register_hook` on 16 tensors: {span('retain_grad', 16, 'time_ratio')} "
            f"and {span('hooks', 16, 'time_ratio')} the time of a plain `backward()`; "
            f"peak memory {span('retain_grad', 16, 'memory_ratio')} and {span('hooks', 16, 'memory_ratio')}.",
            f"- One `autograd.grad` call with a tuple of 16 tensors and the parameters: "
            f"{span('tuple', 16, 'time_ratio')} the time, {span('tuple', 16, 'memory_ratio')} the peak memory.",
            f"- 16 separate `autograd.grad` calls with `retain_graph=True`, then `backward()`: "
            f"{span('separate', 16, 'time_ratio')} the time (one call: {span('separate', 1, 'time_ratio')}).",
            f"- `autograd.grad` for the tensors only, no parameter gradients: "
            f"{span('tensors_only', 1, 'time_ratio')} the time of a plain `backward()` for k = 1, "
            f"{span('tensors_only', 16, 'time_ratio')} for k = 16.",
            f"- Forward pass under `torch.no_grad()`: peak memory {_span(peaks)} that of normal mode "
            f"(`inference_mode`: {_span(inference)}); memory still held after it, with the output kept: "
            f"{_span(held)}.",
        ]
    else:
        lines = [
            f"- 对 16 个张量使用 `retain_grad()` 和 `register_hook`：耗时分别是普通 `backward()` 的 "
            f"{span('retain_grad', 16, 'time_ratio')}和 {span('hooks', 16, 'time_ratio')}；"
            f"峰值内存分别是 {span('retain_grad', 16, 'memory_ratio')}和 {span('hooks', 16, 'memory_ratio')}。",
            f"- 一次 `autograd.grad` 调用，输入为 16 个张量加上全部参数组成的元组："
            f"耗时为 {span('tuple', 16, 'time_ratio')}，峰值内存为 {span('tuple', 16, 'memory_ratio')}。",
            f"- 16 次单独的 `autograd.grad` 调用（`retain_graph=True`），再调用 `backward()`："
            f"耗时为 {span('separate', 16, 'time_ratio')}（只调用一次时为 {span('separate', 1, 'time_ratio')}）。",
            f"- 只对中间变量调用 `autograd.grad`、不求参数梯度：k = 1 时耗时是普通 `backward()` 的 "
            f"{span('tensors_only', 1, 'time_ratio')}，k = 16 时为 {span('tensors_only', 16, 'time_ratio')}。",
            f"- 在 `torch.no_grad()` 下做前向传播：峰值内存是正常模式的 {_span(peaks, unit)}"
            f"（`inference_mode`：{_span(inference, unit)}）；前向传播结束、输出仍保留时，仍占用的内存"
            + (f"几乎为零（正常模式的 {_span(held, unit)}）。" if max(held) < 0.005
               else f"是正常模式的 {_span(held, unit)}。"),
        ]
    return "\n".join(lines)


def gpu_section(gpu: dict | None, lang: str) -> str:
    if gpu is None:
        if lang == "en":
            return (
                "Not measured: the machines these figures come from have no GPU. On a machine with "
                "CUDA, `python -m tests.tools cost_page --device cuda` measures the same "
                "tables and adds them here, labelled with the GPU."
            )
        return (
            "未测量：产生这些数据的机器没有 GPU。在有 CUDA 的机器上运行 "
            "`python -m tests.tools cost_page --device cuda`，即可测出同样的几张表，"
            "并连同 GPU 型号一起写到这里。"
        )
    heading = {"en": ("Time", "Peak memory", "Forward pass"), "zh": ("时间", "峰值内存", "前向传播")}[lang]
    parts = [machine_list(gpu, lang)]
    for model in ("mlp", "cnn"):
        sep = ", " if lang == "en" else "："
        parts.append(f"**{MODEL_NAMES[lang][model]}{sep}{heading[0]}**\n\n" + method_table(gpu, model, "time", lang))
        parts.append(f"**{MODEL_NAMES[lang][model]}{sep}{heading[1]}**\n\n" + method_table(gpu, model, "memory", lang))
    parts.append(f"**{heading[2]}**\n\n" + forward_table(gpu, lang))
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
