"""The lowering story in one place: schedule -> PrimFunc, pass by pass, in order.

    normalize          inline compute_inline stages, rebase loops to 0 (on a copy)
    infer_bound        a Range for every IterVar (interval IntSets, or ISL when exact)
    schedule_ops       loop nests + realize regions + attached stages (TE-level IR)
    to_primfunc        tensors -> buffers; arguments bound to parameters
    LOWER_PASSES       what ``tepad.lower`` returns: physical N-d buffers, assume/undef kept,
                       so RFC 0077's opt-in passes (remove_branching_through_overcompute, ...)
                       can be applied to it and the result built
    BUILD_PASSES       run by ``tepad.build`` right before codegen: assume/undef removal,
                       StorageFlatten to flat memory, guard hoisting, unrolling,
                       vectorization

Set ``TEPAD_PRINT_PASSES=1`` to print the IR after every pass that changed it.
"""
from __future__ import annotations

import os
import time

from ..errors import TepadError
from ..schedule import Schedule
from ..tensor.tensor import PlaceholderOp, Tensor
from .passes.hoist_expression import hoist_expression
from .passes.simplify import simplify
from .passes.storage_flatten import storage_flatten
from .passes.unroll_loop import unroll_loop
from .passes.vectorize_loop import vectorize_loop
from .passes.apply_buffer_transforms import apply_buffer_transforms
from .passes.inject_rolling_buffer import inject_rolling_buffer
from .schedule_ops import schedule_ops
from .to_primfunc import to_primfunc

LOWER_PASSES = [
    inject_rolling_buffer,    # on N-d realize regions in tensor coordinates, before layouts
    apply_buffer_transforms,  # logical -> physical indices; pad values written / assumed
    simplify,                 # cancel (4*io + ii)//4 and friends; drop provable guards
]

BUILD_PASSES = [
    storage_flatten,    # N-d realize/loads/stores -> flat Allocate + one index per axis group
    simplify,           # fold the index math flattening produced
    hoist_expression,   # loop-invariant guards out of loops (a reduction's init and update
                        # under one guard: LLVM drops the init store the update overwrites)
    unroll_loop,        # after simplify: unrolled extents must be constants
    vectorize_loop,     # vectorized loops -> Ramp/Broadcast vector statements
    simplify,
]

PASSES = LOWER_PASSES + BUILD_PASSES   # the whole story, in order


class PassLog:
    """Prints the IR after each pass that changed it (TEPAD_PRINT_PASSES=1), with timings."""

    def __init__(self, enabled=None):
        self.enabled = bool(os.environ.get("TEPAD_PRINT_PASSES")) if enabled is None else enabled
        self.timings = []

    def step(self, name, func, fn):
        t0 = time.perf_counter()
        out = fn(func)
        self.timings.append((name, time.perf_counter() - t0))
        if self.enabled and out is not func:
            print(f"# ---- after {name} ({self.timings[-1][1] * 1e3:.1f} ms)")
            print(out.script())
        return out


def run_passes(func, passes=None, log=None):
    """Run ``passes`` (default: LOWER_PASSES) in order."""
    log = log or PassLog()
    for p in (LOWER_PASSES if passes is None else passes):
        func = log.step(p.__name__, func, p)
    return func


def _arg_tensors(s: Schedule, args):
    if not isinstance(args, (list, tuple)):
        raise TypeError(f"args must be a list of tensors, got {type(args).__name__}")
    cur, names = [], []
    for k, a in enumerate(args):
        if not isinstance(a, Tensor):
            raise TypeError(f"argument {k} of lower/build must be a te.Tensor, got {a!r}")
        st = s[a]
        cur.append(st.op.output(a.value_index) if not isinstance(st.op, PlaceholderOp) else a)
        names.append(a.name)
    for op in s.outputs:
        st = s[op]
        for k in range(st.op.num_outputs):
            if st.op.output(k) not in cur:
                raise TepadError(f"output {st.op.output(k).name} of the schedule is not in the "
                                 "argument list; pass every output tensor in args")
    read = set()
    for st in s.stages:
        if not isinstance(st.op, PlaceholderOp):
            read.update(t for t in st.op.input_tensors if isinstance(t.op, PlaceholderOp))
    for t in read:
        if t not in cur:
            raise TepadError(f"placeholder {t.name} is read but not in the argument list")
    return cur, names


def schedule_to_primfunc(s: Schedule, args, name="main", exact_bounds=False):
    """normalize -> infer_bound -> schedule_ops -> to_primfunc (before the TIR passes)."""
    if not isinstance(s, Schedule):
        raise TypeError(f"lower expects a Schedule, got {type(s).__name__}")
    from ..bound import infer_bound
    s2 = s.copy().normalize()
    cur, names = _arg_tensors(s2, args)
    from ..bound.read_check import check_reads
    preconditions = check_reads([st.op for st in s2.stages], [t.shape for t in cur])
    bounds = infer_bound(s2, exact=exact_bounds)
    stmt = schedule_ops(s2, bounds)
    layouts = {}
    for st in s2.stages:
        if st.layout_transforms:
            t = st.op.output(0)
            pads = st.pad_values
            if len(pads) > 1 and any(p is not pads[-1] for p in pads):
                from .passes.apply_buffer_transforms import PadPerMap
                pad = PadPerMap(pads)
            else:
                pad = st.pad_value
            layouts[t] = (st.layout_transforms, st.axis_separators, pad)
    func = to_primfunc(stmt, cur, names, name, layouts)
    return func.with_attr("tepad.read_preconditions", preconditions or None)


def lower(s: Schedule, args, name="main", exact_bounds=False, passes=None, binds=None,
          simple_mode=False):
    """A ``tir.PrimFunc`` for schedule ``s`` with arguments ``args`` (tensors, in order).

    The result has physical (layout-transformed) N-d buffers and keeps ``tir.assume`` /
    ``tir.undef``; ``tepad.build`` flattens it. ``passes`` replaces LOWER_PASSES.
    ``simple_mode`` is accepted for TVM scripts (tepad's printout is always the simple one);
    ``binds`` (TVM's custom argument buffers) is not supported."""
    if binds:
        raise TepadError("lower(binds=...): custom argument buffers are not supported; tepad "
                         "declares one buffer per argument tensor")
    log = PassLog()
    func = schedule_to_primfunc(s, args, name, exact_bounds)
    if log.enabled:
        print("# ---- after schedule_ops + to_primfunc")
        print(func.script())
    return run_passes(func, passes, log)
