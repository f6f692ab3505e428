"""Tensorize in the fuzzer: the innermost loop of a stage that is elementwise along its last
axis is computed by a tensor intrinsic with a plain-TIR body (a loop of loads and stores over
the bound buffers), so the kernel still builds, runs and is compared with the oracle.

``matching_intrinsic(stage, extent)`` declares such an intrinsic from the stage's own
definition (each read ``T[..., j + c]`` becomes a read of a 1-D input covering the tile's
offsets); the generated program calls it, so reproducers stay runnable. ``maybe_tensorize``
draws the step, keeping only tensorizations that lower (the tile must be whole, of a constant
extent, and the stage computed over full tiles); ``perturb=True`` gives an intrinsic that
computes something else, for the deliberately illegal step in ``illegal.py``.
"""
from __future__ import annotations

import tepad
from tepad import te, tir

from ..bound import infer_bound
from ..errors import TepadError
from ..tensor.tensor import ComputeOp
from ..tir.expr import BufferLoad, IntImm, ProducerLoad, convert
from ..tir.functor import collect_vars, ir_transform, post_order_visit, substitute
from ..arith import Analyzer
from .attach_points import is_compute


def _loads(e):
    out = []
    post_order_visit(e, lambda n: out.append(n) if isinstance(n, ProducerLoad) else None)
    return out


def _offsets(op):
    """``{tensor: (lead indices, [c, ...])}`` when every read is ``T[lead..., j + c]`` with
    ``lead`` free of ``j`` and the same for all reads of ``T``, and no axis var occurs
    outside read indices; else None."""
    if not isinstance(op, ComputeOp) or op.reduce_axis or op.num_outputs != 1 or not op.axis:
        return None
    ana = Analyzer()
    j = op.axis[-1].var
    axis_vars = {iv.var for iv in op.axis}
    body = op.body[0]
    outside = collect_vars(ir_transform(body, postorder=lambda n: tir.const(0, n.dtype)
                                        if isinstance(n, ProducerLoad) else None))
    if outside & axis_vars:
        return None
    found = {}
    for ld in _loads(body):
        if not ld.indices:
            return None
        lead, last = list(ld.indices[:-1]), ld.indices[-1]
        if any(j in collect_vars(x) for x in lead):
            return None
        c = ana.simplify(last - j)
        if not isinstance(c, IntImm):
            return None
        prev = found.get(ld.producer)
        if prev is not None:
            if len(prev[0]) != len(lead) or not all(
                    isinstance(d := ana.simplify(a - b), IntImm) and d.value == 0
                    for a, b in zip(prev[0], lead)):
                return None
            prev[1].append(c.value)
        else:
            found[ld.producer] = (lead, [c.value])
    return found if found else None


def matching_intrinsic(stage, extent, perturb=False):
    """A tensor intrinsic computing ``stage``'s definition on ``extent`` consecutive points of
    its last axis (``+ 1`` when ``perturb``), with a plain-TIR body; None when the
    definition is not elementwise along that axis (see ``_offsets``)."""
    op = stage.op
    offs = _offsets(op)
    if offs is None:
        return None
    j = op.axis[-1].var
    ins = op.input_tensors
    lo = {t: min(offs[t][1]) for t in ins}
    xs = {t: te.placeholder((extent + max(offs[t][1]) - lo[t],), t.dtype, name=f"x{k}")
          for k, t in enumerate(ins)}

    def rewrite(v):
        def post(n):
            if isinstance(n, ProducerLoad) and n.producer in xs:
                c = Analyzer().simplify(n.indices[-1] - j).value
                return ProducerLoad(xs[n.producer], [v + (c - lo[n.producer])])
            return None
        e = ir_transform(op.body[0], postorder=post)
        return e + convert(1).astype(e.dtype) if perturb else e

    z = te.compute((extent,), rewrite, name=f"{op.name}_tile")
    zv = z.op.axis[0].var

    def body(bufs, outs):
        u = te.var("u")
        where = {xs[t]: b for t, b in zip(ins, bufs)}

        def post(n):
            if isinstance(n, ProducerLoad) and n.producer in where:
                return BufferLoad(where[n.producer], list(n.indices))
            return None
        e = substitute(ir_transform(z.op.body[0], postorder=post), {zv: u})
        return tir.For(u, 0, extent, tir.ForKind.SERIAL, outs[0].vstore([u], e))
    return te.decl_tensor_intrin(z.op, body, name=f"{op.name}_tile",
                                 default_buffer_params={"offset_factor": 1})


def _tile_extent(s, st):
    """The constant extent of ``st``'s innermost loop (interval bounds), or None."""
    s2 = s.copy().normalize()
    st2 = s2.stage_map.get(st.op)
    if st2 is None or not st2.leaf_iter_vars:
        return None
    r = infer_bound(s2).get(st2.leaf_iter_vars[-1])
    if r is None or not isinstance(r.extent, IntImm) or r.extent.value < 1:
        return None
    return r.extent.value


def _lowers(d, s, st, intrin, exact_modes):
    """Does the schedule with ``st``'s innermost loop tensorized lower in every mode?"""
    s2 = s.copy()
    s2.stage_map[st.op].tensorize(st.leaf_iter_vars[-1], intrin)
    args = [d.ns[t.name] for t in d.case.placeholders + d.case.outputs]
    try:
        for exact in exact_modes:
            tepad.lower(s2, args, exact_bounds=exact)
    except TepadError:
        return False
    return True


def candidates(s):
    """Compute stages that are lowered and elementwise along their last axis."""
    return [st for st in s.stages if is_compute(st) and st.leaf_iter_vars and
            st.attach_type.name not in ("Inline", "InlinedAlready") and
            _offsets(st.op) is not None]


def maybe_tensorize(d, s):
    """Sometimes tensorize the innermost loop of one candidate stage (see module doc)."""
    if not d.src.flag(d.cfg.tensorize_percent):
        return
    cands = candidates(s)
    if not cands:
        return
    st = d.src.pick(cands)
    f = _tile_extent(s, st)
    if f is None:
        return
    intrin = matching_intrinsic(st, f)
    if intrin is None or not _lowers(d, s, st, intrin, (False, True)):
        return
    se = d.stage_expr(st)
    leaf = d.iv(st, st.leaf_iter_vars[-1])
    nm = f"{d.tnames[id(st.origin_op)]}_intrin"
    d.case.run("from tepad.fuzz.tensorize import matching_intrinsic")
    d.case.run(f"{nm} = matching_intrinsic({se}, {f})")
    d.case.run(f"{se}.tensorize({leaf}, {nm})")


__all__ = ["matching_intrinsic", "maybe_tensorize", "candidates"]
