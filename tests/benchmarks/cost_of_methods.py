"""The real cost of each way to get intermediate gradients: time and peak memory.

One command, from the repository root:

    python tests/benchmarks/cost_of_methods.py

It measures on the CPU, writes tests/benchmarks/results/cpu.json and rewrites
the result tables of docs/en/cost-of-methods.md and docs/zh/cost-of-methods.md
(between their `<!-- cost-of-methods:NAME -->` marker comments). Options:

    --device cuda   measure on a CUDA GPU instead (results/cuda.json); the
                    pages then show a GPU section labelled with the GPU
    --threads N     torch.set_num_threads(N) (default 1: the figures on the page
                    come from a shared 2-core machine, where a second thread
                    waiting for a busy core makes timings erratic)
    --repeats N     timed rounds per configuration (default 15)
    --pages-only    rewrite the pages from the committed JSON files, measure nothing
    --quick         3 rounds, writes nothing: to try the script out

What is measured (the page explains it for readers):

* Two models a reader would train: an MLP (784 -> 8 x [Linear(512) + ReLU]
  -> 10, batch 64 and 256) and a small CNN (8 x [Conv2d 3x3 + ReLU], 16 to 64
  channels, three max-pools, on 3x32x32 images, batch 32 and 64). Each has
  exactly 16 intermediate tensors (the output of every hidden Linear/Conv2d
  and of every ReLU); k = 1, 4, 16 of them are asked for, every (16 // k)-th
  from the input side, so k = 1 is the first layer's output.
* A step is forward + cross-entropy loss + the method, and every method also
  produces the parameter gradients, as a training step must; the baseline is
  the same step with a plain `loss.backward()` and no intermediate gradient.
  "autograd.grad, tensors only" is the one exception, labelled as such: it
  asks for the k tensors alone, for code that does not train.
* Time: median of --repeats rounds (3x as many for the forward-only
  timings) after 3 warm-up rounds; every round runs
  every configuration once (round-robin), so drift and other processes hit
  all of them alike. Ratios are to the baseline's median.
* Peak memory on the CPU: torch.profiler with profile_memory=True records
  every allocation and free of the step; the peak of their running sum is the
  most memory the step held at once, on top of the model and the batch that
  already existed. On CUDA: torch.cuda.max_memory_allocated() minus the
  memory allocated before the step.
* Forward only, under normal mode, torch.no_grad() and torch.inference_mode():
  the time, the peak, and the memory still held after the forward pass while
  the output is kept (under normal mode, the graph's saved tensors).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import functools
import itertools
import json
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parent / "results"
PAGES = {"en": ROOT / "docs" / "en" / "cost-of-methods.md", "zh": ROOT / "docs" / "zh" / "cost-of-methods.md"}
COMMAND = "python tests/benchmarks/cost_of_methods.py"
KS = (1, 4, 16)
WARMUP = 3
METHODS = ("separate", "tuple", "retain_grad", "hooks", "tensors_only")
CASES = (("mlp", 64), ("mlp", 256), ("cnn", 32), ("cnn", 64))
MODES = ("normal", "no_grad", "inference_mode")
# One thread by default: on a shared machine a second thread that waits for a busy
# core makes every timing erratic. --threads N measures with N.
DEFAULT_THREADS = 1


# ---------------------------------------------------------------- models


def make_model(name: str) -> nn.Sequential:
    torch.manual_seed(0)
    layers: list[nn.Module] = []
    if name == "mlp":
        width = 784
        for _ in range(8):
            layers += [nn.Linear(width, 512), nn.ReLU()]
            width = 512
        layers.append(nn.Linear(512, 10))
    else:
        channels = [3, 16, 16, 32, 32, 64, 64, 64, 64]
        for i in range(8):
            layers += [nn.Conv2d(channels[i], channels[i + 1], 3, padding=1), nn.ReLU()]
            if i in (1, 3, 5):
                layers.append(nn.MaxPool2d(2))
        layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)]
    return nn.Sequential(*layers)


def make_batch(name: str, batch: int, device: str) -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(1)
    shape = (batch, 784) if name == "mlp" else (batch, 3, 32, 32)
    return torch.randn(shape, device=device), torch.randint(0, 10, (batch,), device=device)


def forward(model: nn.Sequential, x: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The logits and the 16 intermediate tensors (hidden Linear/Conv2d and ReLU outputs)."""
    intermediates = []
    last = len(model) - 1
    for index, layer in enumerate(model):
        x = layer(x)
        if index < last and isinstance(layer, (nn.Linear, nn.Conv2d, nn.ReLU)):
            intermediates.append(x)
    return x, intermediates


def chosen(intermediates: list[torch.Tensor], k: int) -> list[torch.Tensor]:
    return intermediates[:: len(intermediates) // k][:k]


# ---------------------------------------------------------------- one step per method


def step(method: str, k: int, model: nn.Sequential, x: torch.Tensor, y: torch.Tensor) -> None:
    """Forward, loss, and the method: k intermediate gradients plus the parameter gradients."""
    logits, intermediates = forward(model, x)
    loss = nn.functional.cross_entropy(logits, y)
    if method == "backward":
        loss.backward()
        return
    tensors = chosen(intermediates, k)
    params = list(model.parameters())
    if method == "separate":
        grads = [torch.autograd.grad(loss, t, retain_graph=True)[0] for t in tensors]
        loss.backward()
    elif method == "tuple":
        *grads, = torch.autograd.grad(loss, (*tensors, *params))
        for param, grad in zip(params, grads[k:]):
            param.grad = grad
        grads = grads[:k]
    elif method == "retain_grad":
        for t in tensors:
            t.retain_grad()
        loss.backward()
        grads = [t.grad for t in tensors]
    elif method == "hooks":
        grads = [None] * k

        def store(i, grad):
            grads[i] = grad

        for i, t in enumerate(tensors):
            t.register_hook(functools.partial(store, i))
        loss.backward()
    elif method == "tensors_only":
        grads = torch.autograd.grad(loss, tensors)
    else:
        raise ValueError(method)
    assert len(grads) == k and all(g is not None for g in grads)


def forward_only(mode: str, model: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    if mode == "normal":
        return model(x)
    context = torch.no_grad() if mode == "no_grad" else torch.inference_mode()
    with context:
        return model(x)


# ---------------------------------------------------------------- measuring


class Clock:
    def __init__(self, device: str):
        self.device = device

    def __call__(self, fn) -> float:
        if self.device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        fn()
        if self.device == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - start


@contextlib.contextmanager
def _quiet_stderr():
    """The profiler's C++ side logs 'profiler_start/stop' to fd 2; keep the report readable."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def memory(fn, device: str) -> tuple[int, int]:
    """(peak bytes held at once while fn runs, bytes still held when it returns), above the start.

    What fn returns is kept alive until the measurement ends, so a kept output counts as held.
    """
    if device == "cuda":
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        kept = fn()
        torch.cuda.synchronize()
        result = torch.cuda.max_memory_allocated() - base, torch.cuda.memory_allocated() - base
        del kept
        return result
    from torch.profiler import ProfilerActivity, profile

    with _quiet_stderr(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        kept = fn()
    del kept
    events = sorted(
        (e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"),
        key=lambda e: e.start_ns(),
    )
    running = list(itertools.accumulate(e.nbytes() for e in events)) or [0]
    return max(0, max(running)), running[-1]


def reset(model: nn.Module) -> None:
    for param in model.parameters():
        param.grad = None


def measure_case(name: str, batch: int, device: str, repeats: int) -> dict:
    model = make_model(name).to(device)
    x, y = make_batch(name, batch, device)
    clock = Clock(device)
    configs = [("backward", 0)] + [(m, k) for k in KS for m in METHODS]
    times: dict[tuple[str, int], list[float]] = {c: [] for c in configs}
    for round_ in range(WARMUP + repeats):
        for method, k in configs:
            reset(model)
            seconds = clock(lambda: step(method, k, model, x, y))
            if round_ >= WARMUP:
                times[(method, k)].append(seconds)
    peaks = {}
    for method, k in configs:
        reset(model)
        peaks[(method, k)] = memory(lambda: step(method, k, model, x, y), device)[0]
    reset(model)

    mode_times: dict[str, list[float]] = {m: [] for m in MODES}
    for round_ in range(WARMUP + 3 * repeats):  # a forward pass is cheap: more rounds
        for mode in MODES:
            seconds = clock(lambda: forward_only(mode, model, x))
            if round_ >= WARMUP:
                mode_times[mode].append(seconds)
    mode_memory = {mode: memory(lambda: forward_only(mode, model, x), device) for mode in MODES}

    base_time = statistics.median(times[("backward", 0)])
    base_peak = peaks[("backward", 0)]
    normal_time = statistics.median(mode_times["normal"])
    normal_peak, normal_held = mode_memory["normal"]
    return {
        "model": name,
        "batch": batch,
        "parameters": sum(p.numel() for p in model.parameters()),
        "baseline": {"ms": round(base_time * 1000, 3), "peak_mb": round(base_peak / 2**20, 3)},
        "methods": [
            {
                "method": method,
                "k": k,
                "ms": round(statistics.median(times[(method, k)]) * 1000, 3),
                "time_ratio": round(statistics.median(times[(method, k)]) / base_time, 3),
                "peak_mb": round(peaks[(method, k)] / 2**20, 3),
                "memory_ratio": round(peaks[(method, k)] / base_peak, 3),
            }
            for method, k in configs[1:]
        ],
        "forward": [
            {
                "mode": mode,
                "ms": round(statistics.median(mode_times[mode]) * 1000, 3),
                "time_ratio": round(statistics.median(mode_times[mode]) / normal_time, 3),
                "peak_mb": round(mode_memory[mode][0] / 2**20, 3),
                "peak_ratio": round(mode_memory[mode][0] / normal_peak, 3),
                "held_mb": round(mode_memory[mode][1] / 2**20, 3),
                "held_ratio": round(mode_memory[mode][1] / normal_held, 3),
            }
            for mode in MODES
        ],
    }


def machine(device: str, threads: int) -> dict:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    info = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "threads": threads,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "device": device,
    }
    if device == "cuda":
        info["gpu"] = torch.cuda.get_device_name(0)
        info["cuda"] = torch.version.cuda
    return info


# ---------------------------------------------------------------- the pages

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
    "en": {"normal": "normal (recording)", "no_grad": "`torch.no_grad()`", "inference_mode": "`torch.inference_mode()`"},
    "zh": {"normal": "正常模式（记录计算图）", "no_grad": "`torch.no_grad()`", "inference_mode": "`torch.inference_mode()`"},
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
        "batch": "批大小", "baseline_time": "普通 `backward()`", "baseline_mem": "普通 `backward()`",
        "model": "模型", "mode": "模式", "time": "时间", "peak": "峰值", "held": "前向传播后仍占用",
        "cpu": "CPU", "cores": "核", "threads": "线程数（`torch.set_num_threads`）", "torch": "torch",
        "python": "Python", "os": "操作系统", "date": "测量时间", "command": "命令",
        "gpu": "GPU", "load": "1 分钟平均负载（开始 / 结束）",
    },
}


def _x(ratio: float) -> str:
    return f"{ratio:.2f}×"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def method_table(results: dict, model: str, what: str, lang: str) -> str:
    """One model's time (what='time') or peak memory (what='memory') ratios, per batch and k."""
    w, names = WORDS[lang], METHOD_NAMES[lang]
    unit = "ms" if what == "time" else "MB"
    header = [w["batch"], "k", f"{w['baseline_time']} ({unit})"] + [names[m] for m in METHODS]
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
    header = [w["model"], w["batch"], w["mode"], f"{w['time']} (ms)", f"{w['peak']} (MB)", f"{w['held']} (MB)"]
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
        (w["cpu"], f"{m['cpu']}, {m['cores']} {w['cores']}" if lang == "en" else f"{m['cpu']}，{m['cores']} {w['cores']}"),
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


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return _x(low) if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}–{high:.2f}×"


def summary(results: dict, lang: str) -> str:
    """The figures the advice cites, computed from the results (both models, both batch sizes)."""
    def span(method, k, what):
        return _span(_ratio(results, "mlp", method, k, what) + _ratio(results, "cnn", method, k, what))

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
            f"{span('retain_grad', 16, 'time_ratio')} 和 {span('hooks', 16, 'time_ratio')}；"
            f"峰值内存分别是 {span('retain_grad', 16, 'memory_ratio')} 和 {span('hooks', 16, 'memory_ratio')}。",
            f"- 一次 `autograd.grad` 调用，输入为 16 个张量加上全部参数组成的元组："
            f"耗时 {span('tuple', 16, 'time_ratio')}，峰值内存 {span('tuple', 16, 'memory_ratio')}。",
            f"- 16 次单独的 `autograd.grad` 调用（`retain_graph=True`），再调用 `backward()`："
            f"耗时 {span('separate', 16, 'time_ratio')}（只调用一次时为 {span('separate', 1, 'time_ratio')}）。",
            f"- 只对中间变量调用 `autograd.grad`、不求参数梯度：k = 1 时耗时是普通 `backward()` 的 "
            f"{span('tensors_only', 1, 'time_ratio')}，k = 16 时为 {span('tensors_only', 16, 'time_ratio')}。",
            f"- 在 `torch.no_grad()` 下做前向传播：峰值内存是正常模式的 {_span(peaks)}"
            f"（`inference_mode`：{_span(inference)}）；前向传播结束、输出仍保留时，仍占用的内存是正常模式的 "
            f"{_span(held)}。",
        ]
    return "\n".join(lines)


def gpu_section(gpu: dict | None, lang: str) -> str:
    if gpu is None:
        if lang == "en":
            return (
                "Not measured: the machines these figures come from have no GPU. On a machine with "
                "CUDA, `python tests/benchmarks/cost_of_methods.py --device cuda` measures the same "
                "tables and adds them here, labelled with the GPU."
            )
        return (
            "未测量：产生这些数据的机器没有 GPU。在有 CUDA 的机器上运行 "
            "`python tests/benchmarks/cost_of_methods.py --device cuda`，即可测出同样的几张表，"
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


def _marked(name: str) -> re.Pattern:
    return re.compile(
        rf"(<!-- cost-of-methods:{re.escape(name)} -->\n)(.*?)(<!-- /cost-of-methods:{re.escape(name)} -->)",
        re.S,
    )


def page_sections(text: str) -> dict[str, str]:
    """What a page shows between each pair of markers."""
    return {
        m.group(1): m.group(2).removesuffix("\n")
        for m in re.finditer(r"<!-- cost-of-methods:([a-z-]+) -->\n(.*?)<!-- /cost-of-methods:\1 -->", text, re.S)
    }


def load_results() -> tuple[dict, dict | None]:
    cpu = json.loads((RESULTS / "cpu.json").read_text(encoding="utf-8"))
    cuda_file = RESULTS / "cuda.json"
    gpu = json.loads(cuda_file.read_text(encoding="utf-8")) if cuda_file.is_file() else None
    return cpu, gpu


def write_pages() -> None:
    cpu, gpu = load_results()
    for lang, page in PAGES.items():
        text = page.read_text(encoding="utf-8")
        for name, body in sections(cpu, gpu, lang).items():
            pattern = _marked(name)
            if not pattern.search(text):
                raise SystemExit(f"{page}: no <!-- cost-of-methods:{name} --> markers")
            text = pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(3), text)
        page.write_text(text, encoding="utf-8")
        print(f"rewrote {page.relative_to(ROOT)}")


# ---------------------------------------------------------------- main


def print_results(results: dict) -> None:
    m = results["machine"]
    print(f"# {m['cpu']} ({m['cores']} cores), {m.get('gpu', 'cpu')}, threads={m['threads']}, torch {m['torch']}")
    for case in results["cases"]:
        b = case["baseline"]
        print(f"\n{case['model']} batch {case['batch']} ({case['parameters']:,} parameters): "
              f"plain backward {b['ms']:.1f} ms, peak {b['peak_mb']:.1f} MB")
        print(f"  {'method':<14}{'k':>3}{'ms':>9}{'time':>8}{'peak MB':>9}{'memory':>8}")
        for e in case["methods"]:
            print(f"  {e['method']:<14}{e['k']:>3}{e['ms']:>9.1f}{_x(e['time_ratio']):>8}"
                  f"{e['peak_mb']:>9.1f}{_x(e['memory_ratio']):>8}")
        print(f"  {'forward mode':<16}{'ms':>8}{'time':>8}{'peak MB':>9}{'peak':>8}{'held MB':>9}{'held':>8}")
        for e in case["forward"]:
            print(f"  {e['mode']:<16}{e['ms']:>8.1f}{_x(e['time_ratio']):>8}{e['peak_mb']:>9.1f}"
                  f"{_x(e['peak_ratio']):>8}{e['held_mb']:>9.1f}{_x(e['held_ratio']):>8}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--pages-only", action="store_true")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.pages_only:
        write_pages()
        return
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit(
            f"error: --device cuda, but torch {torch.__version__} sees no CUDA device "
            f"(torch.cuda.is_available() is False); install a CUDA build of torch on a machine with a GPU"
        )
    torch.set_num_threads(args.threads)
    repeats = 3 if args.quick else args.repeats
    load_start = os.getloadavg()[0]
    started = time.perf_counter()
    cases = []
    for name, batch in CASES:
        cases.append(measure_case(name, batch, args.device, repeats))
        print(f"[{time.perf_counter() - started:.0f} s] {name} batch {batch} done", file=sys.stderr)
    command = COMMAND + (" --device cuda" if args.device == "cuda" else "")
    if args.threads != DEFAULT_THREADS or args.repeats != 15:
        command += f" --threads {args.threads} --repeats {args.repeats}"
    results = {
        "command": command,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "repeats": repeats,
        "warmup": WARMUP,
        "load": [round(load_start, 2), round(os.getloadavg()[0], 2)],
        "seconds": round(time.perf_counter() - started, 1),
        "machine": machine(args.device, args.threads),
        "cases": cases,
    }
    print_results(results)
    if args.quick:
        return
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"{args.device}.json"
    out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {out.relative_to(ROOT)}")
    if all(page.is_file() for page in PAGES.values()):
        write_pages()


if __name__ == "__main__":
    main()
