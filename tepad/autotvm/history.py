"""``autotvm.apply_history_best(log)``: templates called inside get the best logged config of
their workload (TVM's ``ApplyHistoryBest``)."""
from __future__ import annotations

import os

from ..errors import TepadError
from .task.dispatcher import DispatchContext
from .record import load_from_file, mean_cost
from .result import MeasureErrorNo


class ApplyHistoryBest(DispatchContext):
    """The best (lowest mean cost, no error) config per workload from logs: a path, a list of
    paths, or ``(MeasureInput, MeasureResult)`` pairs; None or an empty list holds no records
    (every query falls through to the outer context: default configs, as in TVM, whose
    tutorials pass None before any tuning log exists). A workload measured for several targets
    prefers the record of the same target (by target text), then any record of the same
    target kind."""

    def __init__(self, records):
        super().__init__()
        self.best_by_target = {}      # (target text, workload) -> (inp, res)
        self.best_by_kind = {}        # (target kind, workload) -> (inp, res)
        self.load(records)

    def load(self, records):
        if records is None:
            return
        if isinstance(records, (str, os.PathLike)):
            records = [records]
        pairs = []
        try:
            records = list(records)
        except TypeError:
            raise TepadError(f"apply_history_best: records must be a log path, a list of "
                             f"paths or (MeasureInput, MeasureResult) pairs, or None; got "
                             f"{type(records).__name__}") from None
        for r in records:
            if isinstance(r, (str, os.PathLike)):
                if not os.path.isfile(r):
                    raise TepadError(f"apply_history_best: no log file {os.fspath(r)!r}")
                pairs.extend(load_from_file(os.fspath(r)))
            else:
                pairs.append(r)
        for inp, res in pairs:
            if res.error_no != MeasureErrorNo.NO_ERROR:
                continue
            wkl = inp.task.workload
            text = str(inp.target)
            for table, key in ((self.best_by_target, (text, wkl)),
                               (self.best_by_kind, (text.split()[0], wkl))):
                if key not in table or mean_cost(res) < mean_cost(table[key][1]):
                    table[key] = (inp, res)

    def _query_inside(self, target, workload):
        if workload is None:
            return None
        text = str(target) if target is not None else "llvm"
        for table, key in ((self.best_by_target, (text, workload)),
                           (self.best_by_kind, (text.split()[0], workload))):
            if key in table:
                return table[key][0].config
        return None


def apply_history_best(records) -> ApplyHistoryBest:
    """A context in which templates use the best logged configs (``with
    autotvm.apply_history_best("matmul.log"): s, args = matmul(...)``)."""
    return ApplyHistoryBest(records)
