"""Greedy shrinking over a case's recorded choices.

A case is a list of integers (the choices a ``RandomSource`` recorded). Replaying a mutated
list with ``ReplaySource`` gives another case; the shrinker keeps a mutation when the case
still fails the same way (same ``Outcome.signature()``). Because choice 0 is always the
simplest option, deleting choices and moving them towards 0 simplifies the program.
"""
from __future__ import annotations

import time

from .runner import run_source
from .sources import ReplaySource


def shrink(choices, signature, cfg=None, exact=False, budget_s=60.0, max_evals=400,
           log=None):
    """The smallest choice list found whose outcome has ``signature``; and that outcome."""
    t0 = time.monotonic()
    evals = 0
    best = list(choices)
    best_out = None

    def attempt(cand):
        nonlocal evals, best, best_out
        if evals >= max_evals or time.monotonic() - t0 > budget_s:
            return False
        evals += 1
        src = ReplaySource(cand)
        out = run_source(src, cfg, exact)
        if out.failed and out.signature() == signature:
            rec = src.record
            if (len(rec), rec) < (len(best), best):
                best, best_out = list(rec), out
                if log:
                    log(f"  shrunk to {len(best)} choices")
            return True
        return False

    improved = True
    while improved and evals < max_evals and time.monotonic() - t0 <= budget_s:
        improved = False
        # 1. delete chunks, large to small
        for size in (16, 8, 4, 2, 1):
            k = 0
            while k < len(best):
                cand = best[:k] + best[k + size:]
                if cand != best and attempt(cand) and len(best) <= len(cand):
                    improved = True
                    continue
                k += size
        # 2. zero / halve / decrement single choices
        k = 0
        while k < len(best):
            cur = best[k]
            for v in (0, cur // 2, cur - 1):
                if k < len(best) and 0 <= v < best[k]:
                    cand = list(best)
                    cand[k] = v
                    if attempt(cand):
                        improved = True
                        break
            k += 1
    if best_out is None:
        src = ReplaySource(best)
        best_out = run_source(src, cfg, exact)
    return best, best_out


__all__ = ["shrink"]
