"""Tuning logs (TVM's ``auto_scheduler.measure_record``): one JSON object a line,

    {"i": [[workload_key, target_string], steps], "r": [costs, error_no, all_cost, timestamp],
     "v": "v0.6"}

with tepad's own step encoding (``loop_state``), which replays; a failed measurement has
``error_no != 0`` and its message in place of the costs."""
from __future__ import annotations

import json
import os

import numpy as np


from ..errors import TepadError
from ..target import Target
from .loop_state import State
from .measure import MeasureInput, MeasureResult, result_cost
from .tvm_steps import is_tvm_state

LOG_VERSION = "v0.6"


def dump_record_to_string(inp, res) -> str:
    costs = list(res.costs) if res.error_no == 0 else [res.error_msg]
    return json.dumps({"i": [[inp.task.workload_key, str(inp.task.target)], inp.state.steps],
                       "r": [costs, int(res.error_no), float(res.all_cost),
                             float(res.timestamp)],
                       "v": LOG_VERSION})


class _RecordTask:
    """What a record knows of its task: the workload key and the target."""

    def __init__(self, workload_key, target):
        self.workload_key, self.target = workload_key, target


def load_record_from_string(line: str):
    """``(MeasureInput, MeasureResult)`` of one log line (the input's task is a stand-in
    holding ``workload_key`` and ``target``; ``measure.recover_measure_input`` makes the
    real task). A line TVM wrote keeps its position-based steps, which replaying over the
    task's DAG reads (``tvm_steps``)."""
    try:
        row = json.loads(line)
        (key, target), steps = row["i"][0][:2], row["i"][1]
        if is_tvm_state(steps):          # a line TVM wrote: [[stages], [steps by position]]
            steps = steps[1]
        costs, error_no, all_cost, stamp = row["r"][:4]
    except (ValueError, KeyError, IndexError, TypeError) as err:
        raise TepadError(f"not an auto_scheduler log line ({err}): {line[:120]!r}") from None
    ok = int(error_no) == 0
    res = MeasureResult(tuple(float(c) for c in costs) if ok else (), int(error_no),
                        "" if ok else str(costs[0] if costs else ""), float(all_cost),
                        float(stamp))
    return MeasureInput(_RecordTask(key, target), State(steps)), res


def save_records(filename, inputs, results):
    with open(filename, "a", encoding="utf-8") as f:
        for inp, res in zip(inputs, results):
            f.write(dump_record_to_string(inp, res) + "\n")


class RecordToFile:
    """Measure callback appending every measurement to ``filename``."""

    def __init__(self, filename):
        self.filename = os.fspath(filename)

    def __call__(self, policy, inputs, results):
        save_records(self.filename, inputs, results)


class RecordReader:
    """Iterates ``(MeasureInput, MeasureResult)`` over a log; lines that do not parse are
    skipped."""

    def __init__(self, filename):
        self.filename = os.fspath(filename)
        if not os.path.exists(self.filename):
            raise TepadError(f"auto_scheduler log {self.filename!r} does not exist")

    def __iter__(self):
        with open(self.filename, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                try:
                    yield load_record_from_string(line)
                except TepadError:
                    continue

    def read_lines(self, max_lines=None, skip_lines=0):
        rows = list(self)[skip_lines:]
        rows = rows[:max_lines] if max_lines is not None else rows
        return [r[0] for r in rows], [r[1] for r in rows]


def load_records(filename):
    """An iterator of ``(MeasureInput, MeasureResult)`` over a log."""
    return iter(RecordReader(filename))


def best_by_state(pairs) -> dict:
    """``{(target string, workload key): ((MeasureInput, MeasureResult), cost)}``: per task,
    the state with the lowest cost, a state's cost being the median of ``result_cost`` over
    its successful records (one record: its cost; a state measured again, as
    ``tune_workload`` confirms its best few, is judged by all its measurements, so one lucky
    timing does not pick it)."""
    costs, last = {}, {}
    for inp, res in pairs:
        cost = result_cost(res)
        if cost == float("inf"):
            continue
        key = (str(inp.task.target), inp.task.workload_key, inp.state.key())
        costs.setdefault(key, []).append(cost)
        last[key] = (inp, res)
    out = {}
    for key, cs in costs.items():
        cost = float(np.median(cs))
        task = key[:2]
        if task not in out or cost < out[task][1]:
            out[task] = (last[key], cost)
    return out


def load_best_record(filename, workload_key=None, target=None, include_compatible=False):
    """The ``(MeasureInput, MeasureResult)`` of the best state (``best_by_state``: the
    lowest median of its records' least repeats) among the successful records (of
    ``workload_key`` and ``target`` when given); ``(None, None)`` if none."""
    want = str(Target.canon_target(target)) if target is not None else None
    rows = ((inp, res) for inp, res in load_records(filename)
            if (workload_key is None or inp.task.workload_key == workload_key)
            and (want is None or str(inp.task.target) == want))
    best, best_cost = (None, None), float("inf")
    for pair, cost in best_by_state(rows).values():
        if cost < best_cost:
            best, best_cost = pair, cost
    return best


def load_best(filename, workload_key=None, target=None):
    """TVM's older name of ``load_best_record``."""
    return load_best_record(filename, workload_key, target)
