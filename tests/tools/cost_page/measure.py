"""Measuring the cost of each way to get intermediate gradients: the models, one step, time and memory.

What is measured, and how, is described in __main__.py, the command that runs it (python -m tests.tools cost_page).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

from tests.tools.cost_page.tables import KS, METHODS, MODES

WARMUP = 3
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
        for param, grad in zip(params, grads[k:], strict=True):
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
            seconds = clock(lambda method=method, k=k: step(method, k, model, x, y))
            if round_ >= WARMUP:
                times[(method, k)].append(seconds)
    peaks = {}
    for method, k in configs:
        reset(model)
        peaks[(method, k)] = memory(lambda method=method, k=k: step(method, k, model, x, y), device)[0]
    reset(model)

    mode_times: dict[str, list[float]] = {m: [] for m in MODES}
    for round_ in range(WARMUP + 3 * repeats):  # a forward pass is cheap: more rounds
        for mode in MODES:
            seconds = clock(lambda mode=mode: forward_only(mode, model, x))
            if round_ >= WARMUP:
                mode_times[mode].append(seconds)
    mode_memory = {mode: memory(lambda mode=mode: forward_only(mode, model, x), device) for mode in MODES}

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
