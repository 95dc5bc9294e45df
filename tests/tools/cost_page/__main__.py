"""The real cost of each way to get intermediate gradients: time and peak memory.

One command, from the repository root:

    python -m tests.tools cost_page

It measures on the CPU, writes tests/tools/cost_page/results/cpu.json and rewrites
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
import datetime
import json
import os
import sys
import time

import torch

from sitepages import ROOT
from tests.tools.cost_page.measure import DEFAULT_THREADS, WARMUP, machine, measure_case
from tests.tools.cost_page.page import PAGES, write_pages
from tests.tools.cost_page.tables import CASES, RESULTS, _x

COMMAND = "python -m tests.tools cost_page"


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
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
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
