"""Tuning logs in TVM's JSON-lines format (TVM's ``autotvm.record``).

One line per measurement::

    {"input": [target, task name, args, kwargs], "config": {"index", "code_hash", "entity"},
     "result": [costs, error_no, all_cost, timestamp], "version": 0.2,
     "tvm_version": ..., "host": where it was measured}

``costs`` of a failed measurement is ``[1e9]``, as TVM writes it. TVM reads these lines (it
ignores "host"), and tepad reads TVM's. ``protocol="pickle"`` (TVM's compact form) writes the
same record pickled and base64-encoded on one line; reading it accepts plain containers only
(no classes), so a log cannot run code when it is read.
"""
from __future__ import annotations

import base64
import io
import json
import logging
import pickle
import os.path
from collections import OrderedDict

import numpy as np

from ..errors import TepadError
from ..target import Target
from .result import MeasureErrorNo, MeasureInput, MeasureResult
from .task.space import ConfigEntity
from .task.task import TASK_TABLE, Task, _tupled

logger = logging.getLogger("autotvm")

AUTOTVM_LOG_VERSION = 0.2
TEPAD_VERSION = "tepad-0.1.0"


PROTOCOLS = ("json", "pickle")


def _check_protocol(where, protocol):
    if protocol not in PROTOCOLS:
        raise TepadError(f"record.{where}: protocol {protocol!r} is not supported; use one of "
                         f"{list(PROTOCOLS)}")


class _PlainUnpickler(pickle.Unpickler):
    """Reads pickles of plain containers (dict, list, str, numbers) and refuses any class."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"a tuning record may hold plain values only, not "
                                     f"{module}.{name}")


def encode(inp, result, protocol="json") -> str:
    """One log line for ``(MeasureInput, MeasureResult)`` (``protocol``: "json" or
    "pickle")."""
    _check_protocol("encode", protocol)
    ok = result.error_no == MeasureErrorNo.NO_ERROR
    rec = {"input": [str(inp.target), inp.task.name, _jsonable(inp.task.args),
                     dict(getattr(inp.task, "kwargs", {}) or {})],
           "config": inp.config.to_json_dict(),
           "result": [list(result.costs) if ok else [1e9], int(result.error_no),
                      float(result.all_cost), float(result.timestamp)],
           "version": AUTOTVM_LOG_VERSION, "tvm_version": TEPAD_VERSION,
           "host": getattr(result, "host", "") or ""}
    if not ok and result.costs:
        rec["error"] = str(result.costs[0])[:500]
    if protocol == "pickle":
        return base64.b64encode(pickle.dumps(rec)).decode()
    return json.dumps(rec)


def _jsonable(x):
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


class _LoggedTask(Task):
    """A task read from a log whose template is not registered here: enough for
    ``pick_best`` and ``apply_history_best`` (name, args, workload), not for building."""

    def __init__(self, name, args):       # noqa: D401 -- no template lookup
        self.name, self.args, self.kwargs, self.func = name, args, {}, TASK_TABLE.get(name)
        self.config_space, self.target, self.target_host, self.flop = None, None, None, 0.0


def decode(row, protocol="json"):
    """``(MeasureInput, MeasureResult)`` from one log line, or None for a line that is not a
    record."""
    _check_protocol("decode", protocol)
    try:
        if protocol == "pickle":
            rec = _PlainUnpickler(io.BytesIO(base64.b64decode(row))).load()
        else:
            rec = json.loads(row)
        tgt, name, args = rec["input"][:3]
        cfg = ConfigEntity.from_json_dict(rec["config"])
        costs, error_no, all_cost, timestamp = rec["result"]
    except (ValueError, KeyError, TypeError, pickle.UnpicklingError, EOFError) as err:
        logger.warning("autotvm: skipping a log line that is not a record (%s)", err)
        return None
    task = _LoggedTask(name, _tupled(args))
    try:
        target = Target(tgt)
    except TepadError:
        target = tgt
    return (MeasureInput(target, task, cfg),
            MeasureResult(tuple(costs), int(error_no), all_cost, timestamp,
                          rec.get("host", "")))


def load_from_file(filepath):
    """Yield ``(MeasureInput, MeasureResult)`` for every record in the log ``filepath``."""
    with open(filepath) as f:
        for row in f:
            if row.strip() and not row.lstrip().startswith("#"):
                pair = decode(row)
                if pair is not None:
                    yield pair


def load_from_buffer(file):
    """Yield ``(MeasureInput, MeasureResult)`` for every record in the open text file (or
    any iterable of lines) ``file``."""
    for row in file:
        row = row.decode() if isinstance(row, bytes) else row
        if row.strip() and not row.lstrip().startswith("#"):
            pair = decode(row)
            if pair is not None:
                yield pair


def measure_str_key(inp, include_config=True) -> str:
    """A string naming what a MeasureInput measured: its target, task name and arguments,
    and (with ``include_config``) the config."""
    key = f"{inp.target} {inp.task.name} {inp.task.args}"
    return f"{key} {inp.config}" if include_config else key


def split_workload(in_file, clean=True):
    """Split the log ``in_file`` into one log per (target, workload) next to it:
    ``<in_file stem>.<n>.log``; with ``clean`` only the records that ran without error are
    kept. Returns the paths written."""
    groups: dict = {}
    for inp, res in load_from_file(in_file):
        if clean and res.error_no != 0:
            continue
        groups.setdefault(measure_str_key(inp, False), []).append((inp, res))
    stem = os.path.splitext(in_file)[0]
    paths = []
    for k, recs in enumerate(groups.values()):
        path = f"{stem}.{k}.log"
        with open(path, "w") as f:
            for inp, res in recs:
                f.write(encode(inp, res) + "\n")
        paths.append(path)
    return paths


def mean_cost(result) -> float:
    return float(np.mean(result.costs))


def pick_best(in_file, out_file=None):
    """The best record of every workload in ``in_file`` (a path or a list of pairs), as a dict
    ``{workload: (MeasureInput, MeasureResult)}``; written to ``out_file`` when given."""
    records = load_from_file(in_file) if isinstance(in_file, str) else in_file
    best = OrderedDict()
    for inp, res in records:
        if res.error_no != MeasureErrorNo.NO_ERROR:
            continue
        key = inp.task.workload
        if key not in best or mean_cost(res) < mean_cost(best[key][1]):
            best[key] = (inp, res)
    if out_file is not None:
        with open(out_file, "w") as f:
            for inp, res in best.values():
                f.write(encode(inp, res) + "\n")
    return best
