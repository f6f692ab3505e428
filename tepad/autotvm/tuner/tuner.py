"""The tuning loop every tuner shares (TVM's ``autotvm.tuner.Tuner``)."""
from __future__ import annotations

import logging

import numpy as np

from ...errors import TepadError
from ..measure import create_measure_batch
from ..trial_cap import cap_trials
from ..result import MeasureErrorNo, MeasureInput

logger = logging.getLogger("autotvm")


class Tuner:
    """Proposes configs of ``task.config_space`` (``next_batch``), learns from their
    measurements (``update``); ``tune`` runs the loop. ``best_config``, ``best_flops`` and
    ``best_measure_pair`` hold the best candidate measured so far."""

    def __init__(self, task, **kwargs):
        if task.config_space is None:
            raise TepadError("a tuner needs a task made by autotvm.task.create (it has no "
                             "config space)")
        self.task = task
        self.space = task.config_space
        self.best_config = None
        self.best_flops = 0.0
        self.best_cost = float("inf")
        self.best_measure_pair = None
        self.best_iter = 0
        self.error_ct_threshold = 150
        self.visited = set()

    # --- what a tuner implements ------------------------------------------------------------
    def has_next(self) -> bool:
        return len(self.visited) < len(self.space)

    def next_batch(self, batch_size) -> list:
        raise NotImplementedError

    def update(self, inputs, results):
        pass

    # --- the loop ---------------------------------------------------------------------------
    def tune(self, n_trial, measure_option, early_stopping=None, callbacks=(), si_prefix="G",
             measure_batch=None):
        """Measure up to ``n_trial`` configs (fewer when the space runs out or no better one
        came in the last ``early_stopping`` trials; at most ``TEPAD_MAX_TRIALS`` when that is
        set), calling every callback after each batch.
        Failed candidates are recorded with their error code and never stop the loop.
        ``measure_batch``: an open ``create_measure_batch(task, measure_option)`` to use (and
        leave open) instead of a new one."""
        n_trial = cap_trials(int(n_trial))
        own_batch = measure_batch is None
        if own_batch:
            measure_batch = create_measure_batch(self.task, measure_option)
        n_parallel = max(1, getattr(measure_option["builder"], "n_parallel", 1))
        early_stopping = early_stopping or 10 ** 9
        i = error_ct = 0
        try:
            while i < n_trial and self.has_next():
                configs = self.next_batch(min(n_parallel, n_trial - i))
                if not configs:
                    break
                inputs = [MeasureInput(self.task.target, self.task, c) for c in configs]
                results = measure_batch(inputs)
                for k, (inp, res) in enumerate(zip(inputs, results)):
                    self.visited.add(inp.config.index)
                    if res.error_no == MeasureErrorNo.NO_ERROR:
                        cost = float(np.mean(res.costs))
                        flops = (self.task.flop or 0) / cost
                        error_ct = 0
                        if cost < self.best_cost:
                            self.best_cost, self.best_flops = cost, flops
                            self.best_config = inp.config
                            self.best_measure_pair = (inp, res)
                            self.best_iter = i + k
                    else:
                        flops = 0.0
                        error_ct += 1
                    logger.debug("No: %d\tGFLOPS: %.2f/%.2f\tresult: %s\t%s", i + k + 1,
                                 flops / 1e9, self.best_flops / 1e9,
                                 MeasureErrorNo.name_of(res.error_no), inp.config)
                i += len(results)
                self.update(inputs, results)
                for cb in callbacks:
                    cb(self, inputs, results)
                if i >= self.best_iter + early_stopping:
                    logger.debug("Early stopped. Best iter: %d.", self.best_iter)
                    break
                if error_ct > self.error_ct_threshold:
                    logger.warning("Too many errors happen in the tuning. Switching to debug "
                                   "mode.")
                    logging.getLogger("autotvm").setLevel(logging.DEBUG)
        finally:
            if own_batch:
                measure_batch.close()

    def set_error_threshold(self, threshold: int) -> None:
        """How many consecutive failed candidates stop ``tune`` (150 by default)."""
        self.error_ct_threshold = int(threshold)

    def reset(self):
        self.best_config, self.best_flops, self.best_cost = None, 0.0, float("inf")
        self.best_measure_pair, self.best_iter = None, 0
        self.visited = set()

    def load_history(self, data_set, min_seed_records=500):
        """Learn from earlier ``(MeasureInput, MeasureResult)`` pairs (only model-based tuners
        use them)."""


class IndexBaseTuner(Tuner):
    """A tuner walking config indices in a fixed order (``range_idx=(begin, end)`` limits it)."""

    def __init__(self, task, range_idx=None):
        super().__init__(task)
        n = len(self.space)
        begin, end = range_idx if range_idx is not None else (0, n - 1)
        if not 0 <= begin <= end < n:
            raise TepadError(f"range_idx {range_idx} outside the space [0, {n - 1}]")
        self.range = (begin, end)
        self.index_offset = begin
        self.range_length = end - begin + 1
        self.counter = 0

    def has_next(self) -> bool:
        return self.counter < self.range[1] - self.range[0] + 1

    def _index(self, k) -> int:
        raise NotImplementedError

    def next_batch(self, batch_size) -> list:
        """The next configs in the tuner's order, skipping those measured already."""
        out = []
        while len(out) < batch_size and self.has_next():
            index = self._index(self.counter)
            self.counter += 1
            if index not in self.visited:
                out.append(self.space.get(index))
        return out
