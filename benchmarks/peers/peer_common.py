"""Shared by the peer benchmark scripts of this folder (``bench_tvm.py``, ``bench_halide.py``).

Each peer script takes workload keys on its command line (``W1`` .. ``W6``, ``INFO``; none =
all of them) and an optional ``--small`` (reduced sizes, a few seconds: for checking that the
script works, not for timing), and prints one JSON object per line:

    {"peer": "tvm", "workload": "W1", "variant": "<schedule in words>",
     "median_s": ..., "min_s": ..., "reps": ..., <extras>}

``benchmarks/run.py`` reads ``workload``, ``variant`` and ``median_s`` (and, for W6,
``bench_rolling.py`` reads ``intermediate_bytes``; a W6 variant whose name contains "serial" is
compared with tepad's serial rolling variant, the others with tepad's parallel ones). A variant
that fails prints ``{"workload": ..., "variant": "... FAILED", "error": ...}`` without
``median_s`` and the script goes on with the next one.

Every check is against numpy (float64 where the sum is long) before anything is timed; a
mismatch is reported as a failure of that variant, never timed.

``$TEPAD_BENCH_ISA=avx2`` (``benchmarks/isa.py``, ``--isa avx2`` of the benchmark scripts)
makes each peer build AVX2 + FMA code (no AVX-512) and check its assembly for it; unset or
``host``, each builds for this host.
"""
from __future__ import annotations

import json
import os
import re
import statistics
import sys
import time
import traceback

import numpy as np

ISA_ENV = "TEPAD_BENCH_ISA"
# AVX-512 in AT&T assembly: zmm registers, the upper 16 xmm/ymm registers (EVEX only), opmask
# registers and embedded broadcasts
_AVX512 = re.compile(r"%zmm\d+|%[xy]mm(?:1[6-9]|2\d|3[01])\b|%k[0-7]\b|\{1to\d+\}")


def isa() -> str:
    """The instruction set to build for: ``$TEPAD_BENCH_ISA`` ("host" when unset)."""
    value = os.environ.get(ISA_ENV) or "host"
    if value not in ("host", "avx2"):
        raise ValueError(f"${ISA_ENV}={value!r}: use host or avx2")
    return value


def avx512_in(asm: str) -> list:
    """The distinct AVX-512-only operands in assembly text ``asm`` (empty: none)."""
    return sorted(set(_AVX512.findall(asm)))


def check_assembly(asm: str, what: str, target_isa: str | None = None) -> None:
    """Raise AssertionError when code built for ``avx2`` (default: ``isa()``) uses AVX-512."""
    if (target_isa or isa()) == "avx2" and avx512_in(asm):
        raise AssertionError(f"{what}: AVX-512 in code built for avx2: "
                             f"{', '.join(avx512_in(asm)[:8])}")


# Sizes of the workloads: the same as benchmarks/run.py's full sizes (and, for W6,
# bench_rolling.py's), and small ones for a quick check of the scripts themselves.
FULL = {
    "W1": dict(n=4096),
    "W2": dict(n=1024),
    "W3": dict(n=4096),
    "W4": dict(c=64, k=64, h=56, w=56),
    "W5": dict(rows=16384, cols=14),
    "W6": dict(h=1024, w=1024, ch=16, tile=8, strip=128),
}
SMALL = {
    "W1": dict(n=256),
    "W2": dict(n=128),
    "W3": dict(n=300),
    "W4": dict(c=16, k=32, h=14, w=14),
    "W5": dict(rows=4096, cols=14),
    "W6": dict(h=68, w=36, ch=16, tile=8, strip=32),
}
# timed calls per variant (after one warm-up call): more for the kernels that take well under
# a millisecond, where one preempted call would otherwise move the median
REPS = {"W4": 50, "W5": 300}
DEFAULT_REPS = 10


def emit(peer: str, workload: str, variant: str, **fields) -> None:
    print(json.dumps({"peer": peer, "workload": workload, "variant": variant, **fields}),
          flush=True)


def time_call(fn, reps: int) -> dict:
    """One warm-up call, then ``reps`` timed calls: median and minimum seconds."""
    fn()
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return {"median_s": statistics.median(samples), "min_s": min(samples), "reps": reps}


def timed(build):
    """(build(), seconds it took)."""
    start = time.perf_counter()
    out = build()
    return out, time.perf_counter() - start


def check(got, want, rtol, atol=0.0, exact=False) -> float:
    """Raise unless ``got`` matches ``want``; returns the max abs difference."""
    got = np.asarray(got)
    want = np.asarray(want).reshape(got.shape)
    if exact:
        if not np.array_equal(got, want):
            raise AssertionError("result differs from numpy's")
        return 0.0
    diff = float(np.max(np.abs(got.astype(np.float64) - want)))
    if not np.allclose(got, want, rtol=rtol, atol=atol):
        raise AssertionError(f"result differs from numpy's (max abs diff {diff:.3g})")
    return diff


def aligned_zeros(shape, dtype=np.float32, align: int = 64) -> np.ndarray:
    """Zeros whose data starts on an ``align``-byte boundary (numpy only promises 16)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    raw = np.zeros(nbytes + align, np.uint8)
    skip = (-raw.ctypes.data) % align
    return raw[skip:skip + nbytes].view(dtype).reshape(shape)


# ------------------------------------------------------------------ inputs and numpy answers
def rng():
    return np.random.default_rng(2024)


def w1_data(n):
    g = rng()
    a = (g.random((n, n), dtype=np.float32) - np.float32(0.5))
    b = g.random((n, n), dtype=np.float32)
    return a, b, np.maximum(a * b + np.float32(1), np.float32(0))


def w2_data(n):
    g = rng()
    a = g.random((n, n), dtype=np.float32)
    b = g.random((n, n), dtype=np.float32)
    return a, b, a.astype(np.float64) @ b.astype(np.float64)


def w3_data(n):
    a = rng().random((n, n), dtype=np.float32)
    third = np.float32(1.0 / 3.0)
    bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) * third
    return a, (bx[:-2] + bx[1:-1] + bx[2:]) * third


def w4_data(c, k, h, w):
    """x (1, c, h, w), weights (k, c, 3, 3), reference conv (1, k, h, w), stride 1, pad 1."""
    g = rng()
    x = g.random((1, c, h, w), dtype=np.float32) - np.float32(0.5)
    wt = g.random((k, c, 3, 3), dtype=np.float32) - np.float32(0.5)
    xp = np.zeros((c, h + 2, w + 2))
    xp[:, 1:-1, 1:-1] = x[0]
    ref = np.zeros((k, h, w))
    for dy in range(3):
        for dx in range(3):
            ref += np.tensordot(wt[:, :, dy, dx].astype(np.float64), xp[:, dy:dy + h, dx:dx + w],
                                axes=1)
    return x, wt, ref[None]


def w5_data(rows, cols):
    """A (rows, cols), the same zero-padded to (rows, 4, 4), and the row sums."""
    a = rng().random((rows, cols), dtype=np.float32)
    padded = np.zeros((rows, 16), np.float32)
    padded[:, :cols] = a
    return a, padded.reshape(rows, 4, 4), a.astype(np.float64).sum(1)


def pool3x3(v):
    """3x3 max-pool, no padding, over axes 1 and 2 of an NHWC (or HWC with a leading 1) array."""
    t = np.maximum(np.maximum(v[:, :-2], v[:, 1:-1]), v[:, 2:])
    return np.maximum(np.maximum(t[:, :, :-2], t[:, :, 1:-1]), t[:, :, 2:])


def w6_data(h, w, ch):
    x = rng().integers(-128, 128, size=(1, h, w, ch), dtype=np.int8)
    return x, pool3x3(pool3x3(x))


# ------------------------------------------------------------------ command line
def main(peer: str, workloads: dict, argv=None) -> int:
    """Run the workloads named on the command line (all of ``workloads`` when none is).

    ``workloads[key](sizes)`` yields ``(variant, make)`` pairs; ``make()`` builds and checks
    the variant and returns ``(run, extras)``: ``run()`` calls the compiled kernel once and
    ``extras`` is a dict printed with the timing. An ``extras["rate"] = (amount, unit)``
    becomes ``<unit>_median``, amount per median second / 1e9 (unit "gbps" or "gflops").
    ``run`` None prints the extras alone (INFO). A variant that fails prints a FAILED record
    and the next one runs.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    small = "--small" in argv
    keys = [a for a in argv if not a.startswith("--")] or list(workloads)
    for key in keys:
        if key not in workloads:
            emit(peer, key, "FAILED", error=f"unknown workload {key!r}; known: {list(workloads)}")
            continue
        sizes = dict((SMALL if small else FULL).get(key, {}))
        try:
            pairs = list(workloads[key](sizes))
        except Exception as err:  # noqa: BLE001 - one failing workload must not stop the rest
            emit(peer, key, "FAILED", error=_describe(err))
            continue
        for variant, make in pairs:
            try:
                run, extras = make()
                fields = {} if run is None else time_call(run, REPS.get(key, DEFAULT_REPS))
                rate = extras.pop("rate", None)
                if rate is not None and fields:
                    amount, unit = rate
                    fields[f"{unit}_median"] = amount / fields["median_s"] / 1e9
                if sizes:
                    fields["sizes"] = sizes
                emit(peer, key, variant, **fields, **extras)
            except Exception as err:  # noqa: BLE001
                emit(peer, key, f"{variant} FAILED", error=_describe(err))
    return 0


def _describe(err: BaseException) -> str:
    where = traceback.extract_tb(err.__traceback__)
    at = f" (at {where[-1].name}:{where[-1].lineno})" if where else ""
    return f"{type(err).__name__}: {str(err)[-800:]}{at}"
