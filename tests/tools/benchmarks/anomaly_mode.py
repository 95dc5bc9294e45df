"""What anomaly mode costs: a training step with and without it, measured side by side in one run.

One command, from the repository root:

    python -m tests.tools benchmarks.anomaly_mode

For two models, a small one whose step is dominated by per-operation overhead
and a larger one whose step is dominated by matrix products, it times one
forward and backward pass (and the optimizer step) in three modes:

* anomaly mode off;
* `torch.autograd.set_detect_anomaly(True)`: every node records the forward
  traceback, and every gradient a node returns is checked for NaN;
* `torch.autograd.set_detect_anomaly(True, check_nan=False)`: the tracebacks
  only.

The modes take turns, round after round, so that a change in the machine's
load hits all three alike; each time is the median over the rounds. torch runs
on one thread (``--threads`` to change it): on a shared machine, a second
thread that waits for a busy core slows small operations by orders of
magnitude, and not alike from one round to the next. It prints
the medians and their ratios to the mode without anomaly detection, with the
thread count and the load averages, since other processes on the machine skew
every timing. The NaN-gradients page quotes the ratios; nothing here is a test.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time

import torch
from torch import nn

from tests.tools.benchmarks.common import load_averages, measured_on

MODES = {
    "off": contextlib.nullcontext,
    "anomaly mode": lambda: torch.autograd.set_detect_anomaly(True),
    "check_nan=False": lambda: torch.autograd.set_detect_anomaly(True, check_nan=False),
}
# name: (width, depth, batch size)
MODELS = {
    "small MLP (8 layers of 64, batch 32)": (64, 8, 32),
    "large MLP (8 layers of 1024, batch 256)": (1024, 8, 256),
}


def make_step(width: int, depth: int, batch: int):
    torch.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.ReLU()]
    model = nn.Sequential(*layers, nn.Linear(width, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(batch, width)

    def step() -> None:
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()

    return step


def seconds_per_step(step, mode, steps: int) -> float:
    with MODES[mode]():
        start = time.perf_counter()
        for _ in range(steps):
            step()
        return (time.perf_counter() - start) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds of the three modes (default 7)")
    parser.add_argument("--threads", type=int, default=1, help="torch's intra-op threads (default 1)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    print(measured_on())
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"load average at start: {load_averages()}")
    for name, (width, depth, batch) in MODELS.items():
        step = make_step(width, depth, batch)
        for _ in range(3):  # warm-up: the first calls of each mode allocate and initialise
            for mode in MODES:
                seconds_per_step(step, mode, 3)
        # about a quarter of a second per mode and round without anomaly mode
        calibration = statistics.median(seconds_per_step(step, "off", 3) for _ in range(5))
        steps = max(3, round(0.25 / calibration))
        times: dict[str, list[float]] = {mode: [] for mode in MODES}
        for _ in range(args.rounds):
            for mode in MODES:
                times[mode].append(seconds_per_step(step, mode, steps))
        medians = {mode: statistics.median(values) for mode, values in times.items()}
        print(f"\n{name}: median of {args.rounds} rounds of {steps} steps")
        for mode, seconds in medians.items():
            print(f"  {mode:16} {seconds * 1e3:9.3f} ms per step   {seconds / medians['off']:5.2f}x off")
    print(f"\nload average at end: {load_averages()}")


if __name__ == "__main__":
    main()
