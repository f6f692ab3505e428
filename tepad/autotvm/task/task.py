"""Templates and tuning tasks (TVM's ``autotvm.task``: ``template``, ``create``, ``Task``).

``@autotvm.template("name")`` registers a function that builds a schedule from its arguments
and ``autotvm.get_config()``. ``create(name, args, target)`` makes a ``Task``: the template
called once with a ConfigSpace collects its knobs into ``task.config_space``; the task's
``workload`` (name and arguments as JSON values) is the key logs are matched by.
"""
from __future__ import annotations

import functools

import numpy as np

from ...errors import TepadError, warn_deprecated
from ...target import Target
from ...tensor.tensor import ComputeOp, PlaceholderOp, Tensor
from ...tensor.operation import placeholder
from ...tir.expr import Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max, IntImm
from ...tir.reduce import Reduce
from ...tir.functor import post_order_visit
from . import space
from .flop import FlopCalculationError, compute_flop
from .dispatcher import ApplyConfig, DispatchContext
from .space import ConfigSpace, InstantiationError

TASK_TABLE = {}     # template name -> function (as written, undecorated)


# ---------------------------------------------------------------------------------------------
# arguments as JSON values
# ---------------------------------------------------------------------------------------------
def serialize_args(args) -> tuple:
    """``args`` as JSON-able values: a Tensor becomes ``("TENSOR", shape, dtype)``."""
    out = []
    for a in args:
        if isinstance(a, Tensor):
            out.append(("TENSOR", tuple(int(d.value if isinstance(d, IntImm) else d)
                                        for d in a.shape), a.dtype))
        elif isinstance(a, (list, tuple)):
            out.append(tuple(serialize_args(a)))
        elif isinstance(a, IntImm):
            out.append(int(a.value))
        elif isinstance(a, np.integer):
            out.append(int(a))
        elif isinstance(a, np.floating):
            out.append(float(a))
        elif a is None or isinstance(a, (int, float, str, bool)):
            out.append(a)
        else:
            raise TepadError(f"template argument {a!r} ({type(a).__name__}) cannot be written "
                             "to a log; use ints, floats, strings, tuples or Tensors")
    return tuple(out)


def deserialize_args(args) -> list:
    """Inverse of ``serialize_args`` (a tensor comes back as a fresh placeholder)."""
    out = []
    for a in args:
        if isinstance(a, (list, tuple)) and len(a) == 3 and a[0] == "TENSOR":
            out.append(placeholder(tuple(a[1]), a[2]))
        elif isinstance(a, (list, tuple)):
            out.append(tuple(deserialize_args(a)))
        else:
            out.append(a)
    return out


def args_to_workload(args, task_name) -> tuple:
    """``(task_name, *serialized args)``: the key a tuned config is stored under."""
    return (task_name,) + serialize_args(args)


def _tupled(x):
    return tuple(_tupled(v) for v in x) if isinstance(x, (list, tuple)) else x


# ---------------------------------------------------------------------------------------------
# templates
# ---------------------------------------------------------------------------------------------
def template(task_name, func=None):
    """Register ``func`` as the template ``task_name`` (decorator, or ``template(name, f)``).

    Called directly, the template asks ``DispatchContext.current`` for its config:
    ``apply_history_best`` gives the best logged one, otherwise it runs with the fallback
    (each knob's first choice).

    TVM 0.6's bare ``@autotvm.template`` (no name) registers the function under its own
    ``__name__`` (warns once: TVM 0.7 on names templates)."""
    if callable(task_name) and func is None:
        warn_deprecated("@autotvm.template without a name", "@autotvm.template(\"name\")",
                        stacklevel=3)
        func, task_name = task_name, task_name.__name__
    if not isinstance(task_name, str) or not task_name:
        raise TepadError(f"autotvm.template: the name must be a non-empty string, got "
                         f"{task_name!r}")

    def register(f):
        TASK_TABLE[task_name] = f

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            if kwargs:
                raise TepadError(f"template {task_name}: pass its arguments by position")
            workload = args_to_workload(args, task_name)
            cfg = DispatchContext.current.query(Target.current(allow_none=True), workload)
            with ApplyConfig(cfg):
                return f(*args)

        wrapper.template_name = task_name
        return wrapper

    return register(func) if func is not None else register


def get_template(name):
    """The function registered as template ``name``."""
    try:
        return TASK_TABLE[name]
    except KeyError:
        raise TepadError(f"no autotvm template named {name!r}; registered: "
                         f"{sorted(TASK_TABLE)}") from None


# ---------------------------------------------------------------------------------------------
# tasks
# ---------------------------------------------------------------------------------------------
def _count_flop(outputs) -> float:
    """Arithmetic operations the compute definitions reachable from ``outputs`` perform (one
    per add/sub/mul/div/min/max, and one per reduction step)."""
    seen, total = set(), 0.0
    stack = [t.op for t in outputs]
    while stack:
        op = stack.pop()
        if id(op) in seen or isinstance(op, PlaceholderOp):
            continue
        seen.add(id(op))
        stack.extend(t.op for t in op.input_tensors)
        if not isinstance(op, ComputeOp):
            continue
        n = [0]

        def count(node):
            if isinstance(node, (Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max)):
                n[0] += 1
        body = op.body[0]
        elems = 1
        for iv in op.axis:
            elems *= int(iv.dom.extent.value) if isinstance(iv.dom.extent, IntImm) else 1
        if isinstance(body, Reduce):
            for src in body.source:
                post_order_visit(src, count)
            red = 1
            for iv in body.axis:
                red *= int(iv.dom.extent.value) if isinstance(iv.dom.extent, IntImm) else 1
            total += elems * red * (n[0] + 1)
        else:
            for b in op.body:
                post_order_visit(b, count)
            total += elems * max(n[0], 1)
    return total


class Task:
    """A template with fixed arguments: ``config_space``, ``workload``, ``target``, ``flop``;
    ``instantiate(config)`` builds ``(schedule, args)`` for one config."""

    def __init__(self, name, args):
        self.name = name
        self.args = tuple(args)
        self.kwargs = {}
        self.func = get_template(name)
        self.config_space = None
        self.target = None
        self.target_host = None
        self.flop = 0.0

    @property
    def workload(self) -> tuple:
        return args_to_workload(self.args, self.name)

    def instantiate(self, config, target=None):
        """``(schedule, args)`` of the template under ``config`` (and the task's target, or
        ``target`` when given); raises InstantiationError when the template refused it
        (``cfg.raise_error``)."""
        config.flop = 0.0
        config.errors = []
        target = self.target if target is None else target
        with ApplyConfig(config):
            with target if target is not None else _NoTarget():
                s, args = self.func(*deserialize_args(self.args))
        if not config.valid():
            raise InstantiationError("; ".join(map(str, config.errors)))
        return s, args

    def __getstate__(self):
        state = dict(self.__dict__)
        state["func"] = None
        state["func_module"] = getattr(self.func, "__module__", None)
        return state

    def __setstate__(self, state):
        module = state.pop("func_module", None)
        self.__dict__.update(state)
        if self.name not in TASK_TABLE and module and module not in ("__main__", "__mp_main__"):
            try:
                __import__(module)       # importing the template's module registers it
            except ImportError:
                pass                     # func stays None: the build reports it
        self.func = TASK_TABLE.get(self.name)

    def __repr__(self):
        return (f"Task(func_name={self.name}, args={self.args}, kwargs={{}}, "
                f"workload={self.workload})")


class _NoTarget:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def create(task_name, args, target="llvm", target_host=None) -> Task:
    """The tuning task of template ``task_name`` on ``args`` for ``target``: its
    ``config_space`` holds the knobs the template defines.

    ``task_name`` may be the template function itself; a function that was never registered
    (TVM 0.6 took a plain function calling ``autotvm.get_config()``) is registered here under
    its ``__name__``, and another function already registered under that name is an error."""
    if callable(task_name):
        func = task_name
        task_name = getattr(func, "template_name", None) or func.__name__
        if getattr(func, "template_name", None) is None:
            known = TASK_TABLE.get(task_name)
            if known is None:
                TASK_TABLE[task_name] = func
            elif known is not func:
                raise TepadError(f"autotvm.task.create: another function is registered as "
                                 f"template {task_name!r}; register this one under another "
                                 "name (@autotvm.template(\"name\"))")
    task = Task(task_name, _tupled(serialize_args(args)))
    task.target = Target(target) if not isinstance(target, Target) else target
    task.target_host = target_host
    cfg = ConfigSpace()
    s, outs = task.instantiate(cfg)
    task.config_space = cfg
    task.flop = cfg.flop or _count_flop([t for t in outs if isinstance(t, Tensor)
                                         and isinstance(t.op, ComputeOp)])
    return task


__all__ = ["template", "create", "Task", "TASK_TABLE", "get_template", "serialize_args",
           "compute_flop", "FlopCalculationError",
           "deserialize_args", "args_to_workload", "space", "ConfigSpace"]
