"""Wall-clock timing of a kernel call that is fair on a small shared host."""
from __future__ import annotations

import time

# OpenBLAS's worker threads keep spinning for about 0.1 s after each BLAS call (measured:
# tepad's 2-thread matmul timed right after np.matmul ran at its 1-thread speed), so every
# timed block starts after this idle pause.
SETTLE_S = 0.15
# After an idle pause this VM's cores run a short kernel slowly for a while (measured: conv2d
# at 1.8 ms for its first ~60 ms of calls, 1.1 ms after), so warm-up lasts at least this long.
WARMUP_S = 0.25


def sample_times(fn, reps: int, warmup: int = 1, settle_s: float = SETTLE_S,
                 warmup_s: float = WARMUP_S) -> list[float]:
    """Seconds of ``reps`` calls of ``fn()``, after a ``settle_s`` idle pause and a warm-up of
    at least ``warmup`` calls and ``warmup_s`` seconds."""
    time.sleep(settle_s)
    t_end = time.perf_counter() + warmup_s
    k = 0
    while k < warmup or time.perf_counter() < t_end:
        fn()
        k += 1
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return ts


__all__ = ["sample_times", "SETTLE_S", "WARMUP_S"]
