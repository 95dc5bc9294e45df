"""The machines a reader may have, as environment variables that switch this machine's code paths.

An asserted output may depend on torch's version, never on the CPU's
instruction set, its BLAS path or the thread count. Each environment below
starts the interpreter with other kernels, so one machine checks several:

* ``ATEN_CPU_CAPABILITY`` picks ATen's vectorised kernels (elementwise ops,
  reductions): ``default`` (no SIMD), ``avx2``, or by default the best the CPU has;
* ``MKL_CBWR`` picks MKL's BLAS code path (matrix products). ``COMPATIBLE``
  works on every x86 CPU; on CPUs that are not Intel's, MKL ignores ``AVX2``
  and ``AVX512`` (its verbose log says ``CNR:AUTO``), so only Intel machines
  see those paths;
* ``ONEDNN_MAX_CPU_ISA`` caps the instructions oneDNN (convolutions) uses;
* ``OMP_NUM_THREADS`` changes how work is split between threads;
* ``TF_ENABLE_ONEDNN_OPTS`` turns TensorFlow's oneDNN on or off (a page that
  imports TensorFlow must print the same either way).

ATen and oneDNN fall back to the best path a CPU has; MKL is not asked for a
path the CPU lacks (``for_this_cpu``), so every environment runs on every
machine, with the settings it can honour (the report names them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# The CPU flag an MKL_CBWR path needs.
_MKL_PATH_NEEDS = {"AVX2": "avx2", "AVX512": "avx512f"}


def _cpu_flags() -> set[str]:
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return set()
    return {flag for line in cpuinfo.splitlines() if line.startswith("flags") for flag in line.split(":")[1].split()}


@dataclass(frozen=True)
class Environment:
    name: str
    variables: dict[str, str] = field(default_factory=dict)

    def for_this_cpu(self) -> Environment:
        """This environment without the MKL path this CPU does not have."""
        wanted = self.variables.get("MKL_CBWR")
        if wanted in _MKL_PATH_NEEDS and _MKL_PATH_NEEDS[wanted] not in _cpu_flags():
            return Environment(self.name, {k: v for k, v in self.variables.items() if k != "MKL_CBWR"})
        return self

    def __str__(self) -> str:
        settings = " ".join(f"{key}={value}" for key, value in self.variables.items())
        return f"{self.name}: {settings}" if settings else f"{self.name}: no variables set"


# The reader's session as installed: whatever this machine picks by itself, its
# best SIMD path (AVX-512 where the CPU has it) and one thread per core.
AS_INSTALLED = Environment("as-installed")

# Three code paths, three thread counts: no SIMD and one thread; AVX2 and two
# threads (TensorFlow's oneDNN on); the machine's own choice. A CPU without
# AVX-512 cannot run its kernels, so asking for them there would repeat the AVX2
# run; on a CPU with AVX-512, as-installed runs them.
PORTABILITY = [
    Environment("generic", {
        "ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE", "ONEDNN_MAX_CPU_ISA": "SSE41",
        "OMP_NUM_THREADS": "1", "TF_ENABLE_ONEDNN_OPTS": "0",
    }),
    Environment("avx2", {
        "ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2",
        "OMP_NUM_THREADS": "2", "TF_ENABLE_ONEDNN_OPTS": "1",
    }),
    AS_INSTALLED,
]
