"""``ApplyHistoryBest`` (TVM's ``auto_scheduler.ApplyHistoryBest``): the best records of
logs, looked up by target and workload key."""
from __future__ import annotations

import os


from ..errors import TepadError
from .measure_record import best_by_state, load_records


class ApplyHistoryBest:
    """``ApplyHistoryBest(records)`` (a log file name, a list of them, or ``(inputs,
    results)`` pairs); ``query(target, workload_key)`` gives the best state or None; as a
    context manager it is ``ApplyHistoryBest.current``."""

    current = None

    def __init__(self, records, n_lines=None, include_compatible=False):
        self.best = {}
        if isinstance(records, (str, os.PathLike)):
            records = [records]
        for rec in records:
            if isinstance(rec, (str, os.PathLike)):
                rows = load_records(rec)
            elif isinstance(rec, tuple) and len(rec) == 2:
                rows = [rec]
            else:
                raise TepadError(f"ApplyHistoryBest: records must be log file names or "
                                 f"(MeasureInput, MeasureResult) pairs, got {rec!r}")
            if n_lines is not None:
                rows = [r for i, r in enumerate(rows) if i < n_lines]
            for (target, wkey), ((inp, _), cost) in best_by_state(rows).items():
                for key in ((target, wkey), (target.split()[0], wkey)):
                    if key not in self.best or cost < self.best[key][1]:
                        self.best[key] = (inp.state, cost)

    def query(self, target, workload_key):
        """The best state of ``workload_key`` for exactly ``target``'s string, else for
        any target of its kind (``llvm``); None when the logs have none."""
        target = str(target)
        hit = self.best.get((target, workload_key)) or \
            self.best.get((target.split()[0], workload_key))
        return hit[0] if hit else None

    def __enter__(self):
        self._prev, ApplyHistoryBest.current = ApplyHistoryBest.current, self
        return self

    def __exit__(self, *exc):
        ApplyHistoryBest.current = self._prev
