"""Callbacks of ``Tuner.tune`` (TVM's ``autotvm.callback``): each is called as
``callback(tuner, inputs, results)`` after every measured batch."""
from __future__ import annotations

import logging
import sys
import time

from .record import encode
from .result import MeasureErrorNo

logger = logging.getLogger("autotvm")


def log_to_file(file_out, protocol="json"):
    """Append every measurement to ``file_out`` (a path or an open file) as a log line."""

    def _callback(_, inputs, results):
        if isinstance(file_out, str):
            with open(file_out, "a") as f:
                for inp, res in zip(inputs, results):
                    f.write(encode(inp, res, protocol) + "\n")
        else:
            for inp, res in zip(inputs, results):
                file_out.write(encode(inp, res, protocol) + "\n")
            file_out.flush()

    _callback.file_out = file_out
    return _callback


class Monitor:
    """Keeps every (input, result) pair it sees (``trial_scores()``, ``trial_timestamps()``)."""

    def __init__(self):
        self.scores, self.timestamps = [], []

    def __call__(self, tuner, inputs, results):
        for inp, res in zip(inputs, results):
            if res.error_no == MeasureErrorNo.NO_ERROR:
                flop = inp.task.flop or 0
                self.scores.append(flop / (sum(res.costs) / len(res.costs)))
            else:
                self.scores.append(0.0)
            self.timestamps.append(res.timestamp)

    def trial_scores(self):
        return list(self.scores)

    def trial_timestamps(self):
        return list(self.timestamps)


def progress_bar(total, prefix="", si_prefix="G", stream=None):
    """Print ``[Task] Current/Best: x/y GFLOPS | Progress: (i/total) | t s`` after each
    batch, on one line rewritten in place, and a newline at the end."""
    prefixes = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    scale = prefixes.get(si_prefix, 1e9)
    state = {"ct": 0, "cur": 0.0, "best": 0.0, "t0": time.time()}

    def _callback(tuner, inputs, results):
        out = stream or sys.stdout
        for inp, res in zip(inputs, results):
            state["ct"] += 1
            if res.error_no == MeasureErrorNo.NO_ERROR:
                cost = sum(res.costs) / len(res.costs)
                flop = inp.task.flop or 1.0
                state["cur"] = flop / cost / scale
                state["best"] = max(state["best"], state["cur"])
        out.write(f"\r{prefix}Current/Best: {state['cur']:7.2f}/{state['best']:7.2f} "
                  f"{si_prefix}FLOPS | Progress: ({state['ct']}/{total}) | "
                  f"{time.time() - state['t0']:.2f} s")
        if state["ct"] >= total:
            out.write(f"\r{prefix}Current/Best: {state['cur']:7.2f}/{state['best']:7.2f} "
                      f"{si_prefix}FLOPS | Progress: ({state['ct']}/{total}) | "
                      f"{time.time() - state['t0']:.2f} s Done.\n")
        out.flush()

    _callback.state = state
    return _callback
