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

class MeasureResult(namedtuple("MeasureResult", ["costs", "error_no", "all_cost", "timestamp"])):
    """A measurement: ``costs`` (seconds per run, or the error message when ``error_no`` is
    not 0), ``error_no``, ``all_cost`` (seconds the whole measurement took) and
    ``timestamp``, TVM's four fields (so ``MeasureResult(*list(res))`` round-trips), plus
    ``host``, where it was measured, kept beside the tuple."""

    host = ""

    def __new__(cls, costs, error_no, all_cost, timestamp, host=""):
        self = super().__new__(cls, costs, error_no, all_cost, timestamp)
        if host:
            self.host = host
        return self

    def __getnewargs__(self):
        return (*self, self.host)

    def _replace(self, **fields):
        host = fields.pop("host", self.host)
        return MeasureResult(*super()._replace(**fields), host=host)


BuildResult = namedtuple("BuildResult", ["filename", "error_no", "error", "time_cost"])


HOST = socket.gethostname()
