"""Cost models (TVM's ``auto_scheduler.cost_model``): ``RandomModel`` and ``XGBModel``.

A model scores states of one task (higher is better). ``XGBModel`` regresses the normalized
throughput (the task's best measured cost over the state's cost; 0 for failed states) with
xgboost on loop-nest features read from the state's sketch parameters: the log2 extent of
every tile level, and per tiled stage the accumulator block, the innermost vector length and
whether it is a multiple of the target's lanes, the parallel extent and the inner working
set, the compute location of each stage that has a choice and whether each packable input
is packed (for GPU sketches: blocks, virtual threads, threads and whether they fill warps,
accumulators per thread, the inner reduction tile and the shared bytes); plus the unroll
budget. It is retrained as measurements arrive; with fewer than ``num_warmup_sample``
successful samples of a task it scores at random."""
from __future__ import annotations

import importlib.util
import math
import random

import numpy as np

from .._lazy import lazy_module
from ..errors import TepadError
from ..target import Target
from .compute_dag import ComputeDAG
from .gpu_sketch import GpuSketch, make_sketch
from .measure import result_cost
from .measure_record import load_records
from .sketch import Sketch
from .workload_registry import workload_key_to_tensors

# optional, and slow to import: loaded when an XGBModel first trains
HAVE_XGBOOST = importlib.util.find_spec("xgboost") is not None
_xgb = lazy_module("xgboost")


def _log2(x) -> float:
    return math.log2(max(1.0, float(x)))


def state_features(sketch: Sketch, params) -> np.ndarray:
    """The feature vector of a state made from ``params`` (fixed length per sketch)."""
    if hasattr(sketch, "features"):
        return np.array(sketch.features(params), dtype=np.float64)
    tile = sketch.effective_tile(params) if hasattr(sketch, "effective_tile") else params["tile"]
    feats = []
    for key in sorted(sketch.tile_keys):
        feats.extend(_log2(e) for e in tile[key])
    if isinstance(sketch, GpuSketch):
        feats += _gpu_features(sketch, tile)
        feats.append(_log2(1 + int(params.get("unroll", 0))))
        return np.array(feats, dtype=np.float64)
    for kind, name, _ in sketch.plan:
        if kind != "tiled":
            continue
        op = sketch.dag.op_by_name[name]
        sp = [tile[f"{name}/{iv.var.name}"] for iv in op.axis]
        rd = [tile[f"{name}/{iv.var.name}"] for iv in op.reduce_axis]
        block = math.prod(lv[3] for lv in sp)
        vec = tile[f"{name}/{sketch.vector_axis(name, params)}"][3]
        par = math.prod(lv[0] for lv in sp)
        work = math.prod(lv[2] * lv[3] for lv in sp) * math.prod(lv[1] for lv in rd)
        feats += [_log2(block), _log2(vec), float(vec % sketch.lanes == 0),
                  float(block <= sketch.regs * sketch.lanes // 2), _log2(par), _log2(work)]
    loc = params.get("loc", {})
    for name, choices in sorted(sketch.loc_choices.items()):
        feats.extend(float(loc.get(name, choices[0]) == c) for c in choices)
    pack = params.get("pack", {})
    feats.extend(float(bool(pack.get(k, False))) for k in sorted(sketch.pack_choices))
    for name, choices in sorted(sketch.vec_choices.items()):
        if len(choices) > 1:
            feats.extend(float(sketch.vector_axis(name, params) == c) for c in choices)
    wide = params.get("wide", {})
    feats.extend(_log2(1 + int(wide.get(n, 0))) for n in sorted(sketch.wide_choices))
    feats.append(_log2(1 + int(params.get("unroll", 0))))
    return np.array(feats, dtype=np.float64)


def _gpu_features(sketch, tile) -> list:
    """Per tiled stage of a GPU sketch: blocks, virtual threads, threads per block (and
    whether a multiple of the warp), accumulators per thread, inner reduction tile, shared
    bytes per block (estimate) and blocks per shared-memory budget."""
    out = []
    for kind, name, _ in sketch.plan:
        if kind != "tiled":
            continue
        op = sketch.dag.op_by_name[name]
        sp = [tile[f"{name}/{iv.var.name}"] for iv in op.axis]
        rd = [tile[f"{name}/{iv.var.name}"] for iv in op.reduce_axis]
        threads = math.prod(lv[2] for lv in sp)
        shared = sketch.shared_bytes(name, tile)
        out += [_log2(math.prod(lv[0] for lv in sp)), _log2(math.prod(lv[1] for lv in sp)),
                _log2(threads), float(threads % sketch.warp == 0),
                _log2(math.prod(lv[3] * lv[4] for lv in sp)),
                _log2(math.prod(lv[1] * lv[2] for lv in rd)), _log2(shared),
                _log2(sketch.max_shared / max(1, shared))]
    return out


class CostModel:
    """The interface: ``update(inputs, results)``, ``predict(task, states)``."""

    def update(self, inputs, results):
        pass

    def predict(self, task, states) -> list:
        raise NotImplementedError

    def update_from_file(self, file_name, n_lines=None):
        """Train on the records of a log (TVM's ``update_from_file``)."""
        inputs, results = [], []
        for i, (inp, res) in enumerate(load_records(file_name)):
            if n_lines is not None and i >= n_lines:
                break
            inputs.append(inp)
            results.append(res)
        self.update(inputs, results)


class RandomModel(CostModel):
    """Uniform random scores."""

    def __init__(self, seed=None):
        self.rng = random.Random(seed)

    def predict(self, task, states) -> list:
        return [self.rng.random() for _ in states]


class XGBModel(CostModel):
    """xgboost on loop-nest features (see the module docstring). ``verbose_eval``,
    ``model_file``, ``adaptive_training`` and ``few_shot_learning`` are accepted for TVM's
    signature; ``disable_update`` freezes the model."""

    def __init__(self, verbose_eval=25, num_warmup_sample=100, seed=None, model_file=None,
                 adaptive_training=False, disable_update=False, few_shot_learning=False):
        if not HAVE_XGBOOST:
            raise TepadError("XGBModel needs the xgboost package; use RandomModel() or "
                             "install xgboost")
        self.num_warmup_sample = int(num_warmup_sample)
        self.disable_update = disable_update
        self.seed = seed
        self.rng = random.Random(seed)
        self.samples = {}           # workload key -> {"x": [...], "cost": [...]}
        self.boosters = {}
        self._sketches = {}

    def _sketch(self, key, target):
        k = (key, str(target))
        if k not in self._sketches:
            self._sketches[k] = make_sketch(ComputeDAG(workload_key_to_tensors(key)),
                                       Target.canon_target(target))
        return self._sketches[k]

    def update(self, inputs, results):
        if self.disable_update:
            return
        touched = set()
        for inp, res in zip(inputs, results):
            params = inp.state.params
            if params is None:
                continue
            try:
                sk = getattr(inp.task, "sketch", None) or \
                    self._sketch(inp.task.workload_key, inp.task.target)
                x = state_features(sk, params)
            except (TepadError, KeyError):
                continue
            cost = result_cost(res) if res.error_no == 0 and res.costs else None
            bucket = self.samples.setdefault(inp.task.workload_key, {"x": [], "cost": []})
            bucket["x"].append(x)
            bucket["cost"].append(cost)
            touched.add(inp.task.workload_key)
        for key in touched:
            self._train(key)

    def _train(self, key):
        b = self.samples[key]
        ok = [c for c in b["cost"] if c is not None]
        if len(ok) < self.num_warmup_sample:
            return
        best = min(ok)
        y = np.array([best / c if c is not None else 0.0 for c in b["cost"]])
        dtrain = _xgb.DMatrix(np.stack(b["x"]), label=y)
        params = {"max_depth": 6, "eta": 0.3, "objective": "reg:squarederror",
                  "verbosity": 0, "seed": self.seed or 0, "nthread": 1}
        self.boosters[key] = _xgb.train(params, dtrain, num_boost_round=60)

    def predict(self, task, states) -> list:
        booster = self.boosters.get(task.workload_key)
        if booster is None:
            return [self.rng.random() for _ in states]
        sk = getattr(task, "sketch", None) or self._sketch(task.workload_key, task.target)
        xs = np.stack([state_features(sk, st.params) for st in states])
        return [float(v) for v in booster.predict(_xgb.DMatrix(xs))]

    def save(self, file_name):
        raise TepadError("XGBModel.save is not supported by tepad; keep the tuning log and "
                         "call update_from_file instead")

    def load(self, file_name):
        raise TepadError("XGBModel.load is not supported by tepad; keep the tuning log and "
                         "call update_from_file instead")
