"""The search (TVM's ``auto_scheduler.SketchPolicy``): an evolutionary search over the
parameters of the task's sketch, guided by a cost model.

Each round, a population evolves for a few generations: annotations of the sketch (the
analytical default, i.e. ``default_schedule``'s tile sizes, measured first; mutations of
it; random ones) and the best states measured so far. Parents are drawn in proportion to
their predicted score; children mutate tile sizes (a prime factor moves between two tile
levels) or the unroll budget, some after a crossover of two parents (each loop's tiles from
one of them). The best-scored states not measured yet (a share ``eps_greedy`` of them drawn
at random instead) are measured, and the cost model is retrained on every batch."""
from __future__ import annotations

import os
import random

import numpy as np

from ..errors import TepadError
from .cost_model import CostModel, RandomModel
from .custom_sketch import CustomSketch, PreloadCustomSketchRule
from .measure import MeasureInput
from .measure import result_cost
from .measure_record import load_records


class SearchCallback:
    """Called once before the search starts (``callback(policy)``)."""

    def __call__(self, policy):
        raise NotImplementedError


class PreloadMeasuredStates(SearchCallback):
    """Reads the task's records from a log: they count as measured (never measured again),
    seed the population and train the cost model."""

    def __init__(self, filename):
        self.filename = filename

    def __call__(self, policy):
        if not os.path.exists(self.filename):
            return                      # a first run: nothing measured yet
        inputs, results = [], []
        for inp, res in load_records(self.filename):
            if inp.task.workload_key != policy.search_task.workload_key:
                continue
            inputs.append(inp)
            results.append(res)
            policy.record(inp.state, res)
        policy.program_cost_model.update(
            [MeasureInput(policy._model_task, inp.state) for inp in inputs], results)


class _ModelTask:
    """What the cost model sees of a task searched with custom sketch rules: its own
    sketch (the features come from its parameters) and a workload key of its own, so the
    model never mixes these samples with the built-in sketch's."""

    def __init__(self, task, sketch):
        self.workload_key = f"{task.workload_key}#custom-sketch"
        self.target = task.target
        self.sketch = sketch


class SketchPolicy:
    """``SketchPolicy(task, program_cost_model=RandomModel(), params=None, seed=None,
    verbose=1, init_search_callbacks=None)``; ``PreloadCustomSketchRule`` callbacks replace
    the built-in sketch rules' sketch (see ``custom_sketch``). ``params`` (TVM's names, tepad's defaults):
    ``eps_greedy`` (0.05), ``evolutionary_search_population`` (128),
    ``evolutionary_search_num_iters`` (3), ``evolutionary_search_mutation_prob`` (0.85),
    ``evolutionary_search_crossover_prob`` (0.15: a child takes each loop's tiles from one
    of two parents; tepad's addition)."""

    DEFAULT_PARAMS = {"eps_greedy": 0.05, "evolutionary_search_population": 128,
                      "evolutionary_search_num_iters": 3,
                      "evolutionary_search_mutation_prob": 0.85,
                      "evolutionary_search_crossover_prob": 0.15}

    def __init__(self, task, program_cost_model=None, params=None, seed=None, verbose=1,
                 init_search_callbacks=None):
        if program_cost_model is None:
            program_cost_model = RandomModel(seed)
        if not isinstance(program_cost_model, CostModel):
            raise TepadError(f"SketchPolicy: program_cost_model must be XGBModel() or "
                             f"RandomModel(), got {program_cost_model!r}")
        unknown = sorted(set(params or {}) - set(self.DEFAULT_PARAMS))
        if unknown:
            raise TepadError(f"SketchPolicy: unknown params {unknown}; known: "
                             f"{sorted(self.DEFAULT_PARAMS)}")
        self.search_task = task
        self.program_cost_model = program_cost_model
        self.params = dict(self.DEFAULT_PARAMS, **(params or {}))
        self.rng = random.Random(seed)
        self.verbose = verbose
        self.measured = {}          # state key -> (state, mean cost or inf)
        self._preloaded = False
        self.init_search_callbacks = list(init_search_callbacks or [])
        rules = [cb for cb in self.init_search_callbacks
                 if isinstance(cb, PreloadCustomSketchRule)]
        if rules:
            self.sketch = CustomSketch(self, rules)
            self._model_task = _ModelTask(task, self.sketch)
        else:
            self.sketch = task.sketch
            self._model_task = task

    def record(self, state, res):
        cost = result_cost(res)
        self.measured[state.key()] = (state, cost)

    def _best_measured(self, n):
        good = sorted((c, k) for k, (_, c) in self.measured.items() if c < float("inf"))
        return [self.measured[k][0] for _, k in good[:n]]

    def sample_initial_population(self, n):
        """``n`` states: the analytical default (``default_schedule``'s parameters), a
        quarter mutations of it, the rest random annotations."""
        default = self.sketch.default_params()
        out = [self.sketch.state(default)]
        for _ in range(n // 4):
            out.append(self.sketch.state(self.sketch.mutate(default, self.rng)))
        while len(out) < n:
            out.append(self.sketch.state(self.sketch.random_params(self.rng)))
        return out

    def evolutionary_search(self, init, n_out):
        """The ``n_out`` best-scored distinct unmeasured states after evolving ``init``."""
        pop = list(init)
        size = self.params["evolutionary_search_population"]
        pmut = self.params["evolutionary_search_mutation_prob"]
        pcross = self.params["evolutionary_search_crossover_prob"]
        seen = {}
        for _ in range(self.params["evolutionary_search_num_iters"] + 1):
            pop = [st for st in pop if st.params is not None]
            scores = self.program_cost_model.predict(self._model_task, pop)
            for st, sc in zip(pop, scores):
                if st.key() not in self.measured:
                    seen[st.key()] = (sc, st)
            w = np.asarray(scores, dtype=np.float64)
            w = w - w.min() + 1e-6
            w = w / w.sum()
            nxt = []
            for _ in range(size):
                parent = pop[int(np.searchsorted(np.cumsum(w), self.rng.random()))
                             if len(pop) > 1 else 0]
                params = parent.params
                if len(pop) > 1 and self.rng.random() < pcross:
                    other = pop[int(np.searchsorted(np.cumsum(w), self.rng.random()))]
                    params = self.sketch.crossover(params, other.params, self.rng) or params
                if self.rng.random() < pmut:
                    params = self.sketch.mutate(params, self.rng)
                nxt.append(self.sketch.state(params))
            pop = nxt
        ranked = sorted(seen.values(), key=lambda t: -t[0])
        return [st for _, st in ranked[:n_out]]

    def generate_states(self, n):
        """``n`` states to measure next: mostly the evolved best, ``eps_greedy`` random."""
        size = self.params["evolutionary_search_population"]
        init = self.sample_initial_population(size) + self._best_measured(size // 8)
        n_random = int(round(n * self.params["eps_greedy"]))
        out, keys = [], set()
        if init[0].key() not in self.measured:      # the analytical default goes first
            out.append(init[0])
            keys.add(init[0].key())
        for st in self.evolutionary_search(init, n - n_random):
            if st.key() not in keys and len(out) < n - n_random:
                keys.add(st.key())
                out.append(st)
        for st in self.sample_initial_population(4 * n):
            if len(out) >= n:
                break
            if st.key() not in self.measured and st.key() not in keys:
                keys.add(st.key())
                out.append(st)
        return out[:n]

    def search(self, num_measure_trials, early_stopping, num_measures_per_round, measurer):
        """Measure up to ``num_measure_trials`` states in rounds; stop early after
        ``early_stopping`` trials without improvement. Returns the best state (None if no
        state succeeded)."""
        if not self._preloaded:
            self._preloaded = True
            for cb in self.init_search_callbacks:
                cb(self)
        trials, best_at, best = 0, 0, float("inf")
        while trials < num_measure_trials:
            n = min(num_measures_per_round, num_measure_trials - trials)
            states = self.generate_states(n)
            if not states:
                break
            inputs, results = measurer.measure(states, self)
            trials += len(states)
            for inp, res in zip(inputs, results):
                self.record(inp.state, res)
            self.program_cost_model.update(
                [MeasureInput(self._model_task, inp.state) for inp in inputs], results)
            if measurer.best_cost < best:
                best, best_at = measurer.best_cost, trials
            if early_stopping is not None and early_stopping >= 0 and \
                    trials - best_at >= early_stopping:
                break
        return measurer.best_state


class EmptyPolicy:
    """Measures only the sketch with its analytical (default) parameters."""

    def __init__(self, task, init_search_callbacks=None):
        self.search_task = task
        self.sketch = task.sketch

    def search(self, num_measure_trials, early_stopping, num_measures_per_round, measurer):
        if num_measure_trials > 0:
            measurer.measure([self.sketch.state(self.sketch.default_params())], self)
        return measurer.best_state
