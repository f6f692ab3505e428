"""InjectCopyIntrin: a loop nest marked ``pragma(axis, key)`` that copies one buffer region
into another is replaced by the statement a callback builds for that copy (TVM's
``tir.transform.InjectCopyIntrin(pragma_key, fintrin)``, used for DMA-style copies).

    s[B].pragma(B.op.axis[0], "memcpy")          # B[i, j] = A[i, j]
    mod = tir.transform.InjectCopyIntrin("memcpy", fintrin)(tepad.lower(s, [A, C]))

Under ``AttrStmt(_, "pragma_<key>", _)`` the pass expects a perfect nest of serial loops
starting at 0 around one ``dst[index] = src[index']`` store whose indices are affine in the
loop variables (a cast of the load is accepted), or a padded copy ``dst[index] =
if_then_else(cond, src[index'], pad)`` (or a ``Select``) where ``cond`` bounds loop variables
(``lo <= i``, ``i < hi``, conjunctions, each comparison over one loop variable). It calls
``fintrin(src, dst, pad_before, pad_after, pad_value)`` with ``src`` / ``dst`` Buffers
describing the two regions over the same memory as the original buffers: ``dst.shape`` the
loop extents (outermost first; ``[1]`` without loops), ``strides`` each loop variable's
coefficient in the index (one entry per loop, in elements), ``elem_offset`` the index with
every loop variable at 0 (it may read variables of enclosing loops); ``src`` covers the part
``cond`` lets through: per loop, ``pad_before[k]`` / ``pad_after[k]`` iterations are padding
with ``pad_value`` (zeros and None for a plain copy), ``src.shape[k]`` the rest, and
``src.elem_offset`` the index of the first element read. Any other body is refused
(TepadError naming the pragma and what was found). ``fintrin`` returns the Stmt that takes
the nest's place, pragma included.
"""
from __future__ import annotations

from ...arith import Analyzer
from ...arith.affine import affine_terms, linear_strides
from ...errors import TepadError
from ...tir.buffer import Buffer
from ...tir import dtype as dt
from ...tir import expr as E
from ...tir.expr import BufferLoad, Cast, IntImm, Select, const
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, substitute
from ...tir.op import is_call
from ...tir.stmt import AttrStmt, BufferStore, For, ForKind, Stmt
from .loop_partition import comparisons
from ...tir.transform import register_pass

PRAGMA_PREFIX = "pragma_"


def _fail(key, what):
    raise TepadError(f"InjectCopyIntrin({key!r}): {what}; the pragma must mark a loop nest "
                     "around one store dst[...] = src[...] with indices affine in the loops")


def _strides(index, loop_vars, key, which):
    """``(strides, offset)`` of an index affine in ``loop_vars``: each stride is the change of
    the index per step of its loop variable, an expression free of the loop variables (a
    constant, or a symbolic row length such as ``l``)."""
    got = linear_strides(index, loop_vars, Analyzer())
    if got is None:
        _fail(key, f"the {which} index `{index}` is not affine in the loops")
    return got


def _check_flat(buf, indices, key, which):
    if len(indices) != 1:
        _fail(key, f"the {which} buffer {buf.name} has {len(indices)} indices (the copy is "
                   "matched after storage flattening, one index per buffer)")
    return indices[0]


def _clip_bounds(cond, loops, key):
    """``{loop index: (min or None, max or None)}``, inclusive bounds ``cond`` puts on the
    loop variables (each comparison bounds one of them)."""
    parts = comparisons(cond)
    if parts is None:
        _fail(key, f"the padding condition `{cond}` is not a conjunction of comparisons")
    loop_vars = [f.loop_var for f in loops]
    bounds = {}
    ana = Analyzer()
    for d in parts:                              # d < 0
        terms = affine_terms(d)
        used = [k for k, v in enumerate(loop_vars) if terms and terms[0].get(v, 0)]
        if terms is None or len(used) != 1:
            _fail(key, f"the padding condition `{cond}` does not bound one loop variable per "
                       "comparison")
        k = used[0]
        a = terms[0][loop_vars[k]]
        rest = ana.simplify(substitute(d, {loop_vars[k]: 0}))
        lo, hi = bounds.get(k, (None, None))
        if a > 0:          # a*v + rest < 0  <=>  v <= floor((-rest - 1) / a)
            b = E.floordiv(-rest - 1, a)
            hi = b if hi is None else E.min_expr(hi, b)
        else:              # rest - |a|*v < 0  <=>  v >= floor(rest / |a|) + 1
            b = E.floordiv(rest, -a) + 1
            lo = b if lo is None else E.max_expr(lo, b)
        bounds[k] = (lo, hi)
    return {k: tuple(None if x is None else ana.simplify(x) for x in v)
            for k, v in bounds.items()}


def _copy_of(attr: AttrStmt, key: str, fintrin):
    loops, body = [], attr.body
    while isinstance(body, For):
        if body.kind not in (ForKind.SERIAL, ForKind.UNROLLED):
            _fail(key, f"loop {body.loop_var.name} is {body.kind.value}")
        if not (isinstance(body.min, IntImm) and body.min.value == 0):
            _fail(key, f"loop {body.loop_var.name} does not start at 0")
        loops.append(body)
        body = body.body
    if not isinstance(body, BufferStore):
        _fail(key, f"the innermost statement is a {type(body).__name__}")
    value, cond, pad_value = body.value, None, None
    if is_call(value, "tir.if_then_else"):
        cond, value, pad_value = value.args
    elif isinstance(value, Select):
        cond, value, pad_value = value.condition, value.true_value, value.false_value
    if isinstance(value, Cast):
        value = value.value
    if not isinstance(value, BufferLoad) or dt.lanes(value.dtype) != 1:
        _fail(key, f"the stored value `{body.value}` is not a load of a buffer")
    if cond is not None and not loops:
        _fail(key, "a padded copy needs loops")
    loop_vars = [f.loop_var for f in loops]
    src_index = _check_flat(value.buffer, value.indices, key, "source")
    dst_index = _check_flat(body.buffer, body.indices, key, "destination")
    src_strides, src_offset = _strides(src_index, loop_vars, key, "source")
    dst_strides, dst_offset = _strides(dst_index, loop_vars, key, "destination")
    shape = [f.extent for f in loops] or [const(1, "int32")]
    if not loops:
        src_strides = dst_strides = [const(1, "int32")]
    src_shape = list(shape)
    pad_before = [const(0, v.dtype) for v in loop_vars]
    pad_after = list(pad_before)
    if cond is not None:
        ana = Analyzer()
        for k, (lo, hi) in _clip_bounds(cond, loops, key).items():
            zero = const(0, loop_vars[k].dtype)
            if lo is not None:
                pad_before[k] = ana.simplify(E.max_expr(lo, zero))
                src_offset = src_offset + pad_before[k] * src_strides[k]
            if hi is not None:
                pad_after[k] = ana.simplify(E.max_expr(loops[k].extent - hi - 1, zero))
            src_shape[k] = ana.simplify(shape[k] - pad_before[k] - pad_after[k])
        src_offset = ana.simplify(src_offset)
    src_buf, dst_buf = value.buffer, body.buffer
    src = Buffer(src_shape, src_buf.dtype, src_buf.name, src_buf.data, src_strides, src_offset,
                 (), src_buf.scope)
    dst = Buffer(shape, dst_buf.dtype, dst_buf.name, dst_buf.data, dst_strides, dst_offset, (),
                 dst_buf.scope)
    out = fintrin(src, dst, pad_before, pad_after, pad_value)
    if not isinstance(out, Stmt):
        raise TepadError(f"InjectCopyIntrin({key!r}): fintrin returned "
                         f"{type(out).__name__}; it must return a tir Stmt")
    return out


class _Inject(Mutator):
    def __init__(self, key, fintrin):
        self.key, self.attr_key, self.fintrin = key, PRAGMA_PREFIX + key, fintrin

    def visit_AttrStmt(self, s):
        if s.attr_key == self.attr_key:
            return _copy_of(s, self.key, self.fintrin)
        return self.generic_visit(s)


@register_pass("InjectCopyIntrin")
def inject_copy_intrin(func: PrimFunc, pragma_key: str, fintrin) -> PrimFunc:
    """``func`` with every nest marked ``pragma_<pragma_key>`` replaced by ``fintrin``'s
    statement (see the module docstring)."""
    if not isinstance(pragma_key, str) or not pragma_key:
        raise TepadError(f"InjectCopyIntrin: pragma_key must be a pragma name such as "
                         f"'memcpy', got {pragma_key!r}")
    if not callable(fintrin):
        raise TepadError(f"InjectCopyIntrin({pragma_key!r}): fintrin must be a function "
                         "(src, dst, pad_before, pad_after, pad_value) -> Stmt")
    key = pragma_key[len(PRAGMA_PREFIX):] if pragma_key.startswith(PRAGMA_PREFIX) else \
        pragma_key
    body = _Inject(key, fintrin).visit(func.body)
    return func if body is func.body else func.with_body(body)


__all__ = ["inject_copy_intrin"]
