"""Streams of integer choices: every random decision of the generator goes through a ``Source``.

* ``RandomSource(seed)``: fresh choices, recorded (``.record``) so a case can be replayed;
* ``ReplaySource(choices)``: replays recorded choices (clamped into range, 0 once exhausted),
  which is what the greedy shrinker mutates;
* ``HypothesisSource(draw)``: choices from hypothesis (``draw(st.integers(lo, hi))``), so the
  generator runs under ``@given`` with hypothesis' own shrinking.

Choice 0 is always the simplest option, so shrinking towards 0 shrinks the program. A range
with ``hi <= lo`` has one value and consumes no choice.
"""
from __future__ import annotations

import random


class Source:
    """A stream of integer choices; ``int(lo, hi)`` is inclusive, 0 offsets are simplest."""

    def int(self, lo: int, hi: int) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def pick(self, seq):
        seq = list(seq)
        return seq[self.int(0, len(seq) - 1)]

    def flag(self, percent: int) -> bool:
        """True with about ``percent``% probability; the choice 0 means False."""
        return self.int(0, 99) >= 100 - percent


class RandomSource(Source):
    """Choices from ``random.Random(seed)``; each one consumed is appended to ``record``."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.record: list[int] = []

    def int(self, lo, hi):
        if hi <= lo:
            return lo
        v = self.rng.randint(0, hi - lo)
        self.record.append(v)
        return lo + v


class ReplaySource(Source):
    """Replays ``choices`` (clamped into range, 0 once exhausted); ``record`` holds what was
    actually used, so it replays to the same case."""

    def __init__(self, choices):
        self.choices = list(choices)
        self.pos = 0
        self.record: list[int] = []

    def int(self, lo, hi):
        if hi <= lo:
            return lo
        v = self.choices[self.pos] if self.pos < len(self.choices) else 0
        self.pos += 1
        v = max(0, min(int(v), hi - lo))
        self.record.append(v)
        return lo + v


class HypothesisSource(Source):
    """Choices drawn from hypothesis (inside ``@given``), shrunk by hypothesis itself."""

    def __init__(self, draw):
        from hypothesis import strategies as st
        self._draw = draw
        self._st = st

    def int(self, lo, hi):
        if hi <= lo:
            return lo
        return self._draw(self._st.integers(lo, hi))


__all__ = ["Source", "RandomSource", "ReplaySource", "HypothesisSource"]
