"""What a measurement takes and gives (TVM's ``MeasureInput`` / ``MeasureResult``) and the
error codes, shared by the measuring side and the worker processes."""
from __future__ import annotations

import socket
from collections import namedtuple


class MeasureErrorNo:
    """Error codes of a measurement (TVM's numbering)."""

    NO_ERROR = 0
    INSTANTIATION_ERROR = 1
    COMPILE_HOST = 2
    COMPILE_DEVICE = 3
    RUNTIME_DEVICE = 4
    WRONG_ANSWER = 5
    BUILD_TIMEOUT = 6
    RUN_TIMEOUT = 7
    UNKNOWN_ERROR = 8

    @classmethod
    def name_of(cls, code) -> str:
        for k, v in vars(cls).items():
            if v == code and k.isupper():
                return k
        return str(code)


MeasureInput = namedtuple("MeasureInput", ["target", "task", "config"])
MeasureInput.__doc__ = "A candidate: the target, the task and one config of its space."

MeasureResult = namedtuple("MeasureResult", ["costs", "error_no", "all_cost", "timestamp",
                                             "host"], defaults=("",))
MeasureResult.__doc__ = ("A measurement: ``costs`` (seconds per run, or the error message "
                         "when ``error_no`` is not 0), ``error_no``, ``all_cost`` (seconds the "
                         "whole measurement took), ``timestamp`` and the ``host`` measuring it.")

BuildResult = namedtuple("BuildResult", ["filename", "error_no", "error", "time_cost"])


HOST = socket.gethostname()
