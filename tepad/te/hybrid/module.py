"""``te.hybrid.build`` and ``HybridModule``: a schedule written back as hybrid script.

``build(sch, inputs, outputs, name="hybrid_func")`` lowers the schedule to its loop nest
(``normalize``, ``InferBound``, ``ScheduleOps``) and returns a ``HybridModule`` holding the
hybrid script source of that nest (``tepad.te.hybrid.dump``). The module behaves as the
``@te.hybrid.script`` function its source defines: called with numpy arrays it runs as
Python; called with te.Tensors (and te.vars) it returns the tensors of a HybridOp parsed from
its source. ``save(path)`` writes the source, ``load(path)`` reads one back.
"""
from __future__ import annotations

import ast
import itertools
import linecache
import os

from ...bound import infer_bound
from ...errors import TepadError
from ...lower.schedule_ops import schedule_ops
from ...schedule.schedule import Schedule
from ...tensor.tensor import Tensor
from .decorate import script
from .dump import dump

_serial = itertools.count()


class HybridModule:
    """A hybrid script function made from source text (TVM's ``te.hybrid.HybridModule``)."""

    def __init__(self, src=None, name=None):
        self.src_ = self.name = self.func_ = None
        if src is not None:
            self._define(src, name)

    def __call__(self, *args):
        if self.func_ is None:
            raise TepadError("HybridModule: no source yet; load(path) one first")
        return self.func_(*args)

    def get_source(self) -> str:
        return self.src_

    def save(self, path):
        """Write the source to ``path`` (``.py`` appended when missing)."""
        if self.src_ is None:
            raise TepadError("HybridModule.save: the module has no source")
        path = os.fspath(path)
        if not path.endswith(".py"):
            path += ".py"
        with open(path, "w") as f:
            f.write(self.src_)

    def load(self, path):
        """Read a hybrid script source (one top-level function) from ``path``."""
        with open(os.fspath(path)) as f:
            self._define(f.read(), None)

    def _define(self, src, name):
        tree = ast.parse(src)
        funcs = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        if not funcs:
            raise TepadError("HybridModule: the source defines no function")
        if name is None:
            name = funcs[0]
        elif name not in funcs:
            raise TepadError(f"HybridModule: the source defines {funcs}, not {name!r}")
        # a file name the parser (inspect.getsource) finds in linecache
        fname = f"<tepad-hybrid-{next(_serial)}-{name}>"
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        env = {"__name__": "tepad_hybrid_module"}
        exec(compile(src, fname, "exec"), env)
        self.src_, self.name = src, name
        self.func_ = script(env[name])


def build(sch, inputs, outputs, name="hybrid_func") -> HybridModule:
    """The schedule ``sch`` as a ``HybridModule`` taking ``inputs`` (te tensors and scalar
    te.vars, in order) and returning ``outputs`` (TVM's ``te.hybrid.build``)."""
    if not isinstance(sch, Schedule):
        raise TepadError(f"hybrid.build expects a te schedule, got {type(sch).__name__}")
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    for t in outputs:
        if not isinstance(t, Tensor):
            raise TepadError(f"hybrid.build: outputs must be te tensors, got {t!r}")
    sch = sch.normalize()
    stmt = schedule_ops(sch, infer_bound(sch))
    return HybridModule(dump(stmt, list(inputs), outputs, name), name)


__all__ = ["HybridModule", "build"]
