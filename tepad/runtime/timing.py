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


# A median this many times the minimum means other work shared the cores while timing.
BUSY_RATIO = 2.0


def busy_note(times) -> str:
    """``""`` for a steady sample; else a note that the machine was busy while ``times``
    (seconds) were taken, saying how far the median is from the minimum."""
    ts = sorted(times)
    if len(ts) < 2 or ts[0] <= 0:
        return ""
    ratio = ts[len(ts) // 2] / ts[0]
    if ratio < BUSY_RATIO:
        return ""
    return (f" [machine busy while timing: the median is {ratio:.1f}x the minimum; the "
            "minimum is the better estimate of the kernel's speed]")


def bounded_times(fn, n: int, budget_s: float, min_calls: int = 3) -> tuple[list, bool]:
    """Seconds of up to ``n`` calls of ``fn()``, stopping once ``budget_s`` has passed (after
    at least ``min_calls``); and whether the budget cut the run short."""
    ts = []
    start = time.perf_counter()
    for k in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
        if k + 1 >= min_calls and time.perf_counter() - start > budget_s:
            return ts, k + 1 < n
    return ts, False


def time_repeats(fn, number: int, repeat: int, min_repeat_ms: float = 0.0,
                 warmup: int = 1, cooldown_s: float = 0.0, repeats_to_cooldown: int = 1,
                 block=None, clock=None) -> list[float]:
    """Mean seconds per call of ``fn()`` in each of ``repeat`` blocks of ``number`` calls,
    after ``warmup`` untimed calls (TVM's ``time_evaluator`` protocol). A block shorter than
    ``min_repeat_ms`` is run again with more calls (at least 1.618x, or enough to fill the
    time at the last block's rate), as TVM does. ``cooldown_s`` sleeps after every
    ``repeats_to_cooldown`` blocks.

    ``block(n)``, when given, runs ``n`` calls itself (a native loop: then only one Python
    call per block is timed, not one per kernel call); otherwise ``fn`` is called ``n`` times
    from Python. ``clock`` is the time source (default ``time.perf_counter``: wall time;
    ``time.process_time`` counts only the CPU time this process got, which a loaded machine
    does not inflate)."""
    for _ in range(warmup):
        fn()
    if block is None:
        def block(n):
            for _ in range(n):
                fn()
    perf = clock or time.perf_counter
    out = []
    n = number                      # grown by min_repeat_ms, kept for later blocks (as TVM)
    for r in range(repeat):
        while True:
            t0 = perf()
            block(n)
            dt = perf() - t0
            if dt * 1e3 >= min_repeat_ms:
                break
            per_call = max(dt / n, 1e-9)
            n = max(int(min_repeat_ms / 1e3 / per_call) + 1, int(n * 1.618) + 1)
        out.append(dt / n)
        if cooldown_s > 0 and (r + 1) % max(1, repeats_to_cooldown) == 0 and r + 1 < repeat:
            time.sleep(cooldown_s)
    return out


class BenchmarkResult:
    """What ``Module.time_evaluator(...)(*args)`` returns, as TVM's: ``results`` (seconds per
    call, one per repeat) and their ``mean``, ``median``, ``min``, ``max``, ``std``."""

    def __init__(self, results):
        self.results = tuple(float(r) for r in results)
        rs = sorted(self.results)
        n = len(rs)
        if n == 0:
            self.mean = self.median = self.min = self.max = self.std = float("nan")
            return
        self.mean = sum(rs) / n
        self.median = rs[n // 2] if n % 2 else (rs[n // 2 - 1] + rs[n // 2]) / 2
        self.min = rs[0]
        self.max = rs[-1]
        self.std = (sum((r - self.mean) ** 2 for r in rs) / n) ** 0.5

    def __repr__(self):
        return (f"BenchmarkResult(min={self.min}, mean={self.mean}, median={self.median}, "
                f"max={self.max}, std={self.std}, results={self.results})")

    def __str__(self):
        head = "".join(f"{h:^13}" for h in ("mean (ms)", "median (ms)", "max (ms)", "min (ms)",
                                            "std (ms)"))
        vals = "".join(f"{v * 1e3:^13.4f}" for v in (self.mean, self.median, self.max,
                                                     self.min, self.std))
        return f"Execution time summary:\n{head}\n{vals}\n"


__all__ = ["sample_times", "time_repeats", "BenchmarkResult", "SETTLE_S", "WARMUP_S"]
