"""InjectCopyIntrin: a loop nest marked ``pragma(axis, key)`` that copies one buffer region
into another is replaced by the statement a callback builds for that copy (TVM's
``tir.transform.InjectCopyIntrin(pragma_key, fintrin)``, used for DMA-style copies).

    s[B].pragma(B.op.axis[0], "memcpy")          # B[i, j] = A[i, j]
    mod = tir.transform.InjectCopyIntrin("memcpy", fintrin)(tepad.lower(s, [A, C]))

Under ``AttrStmt(_, "pragma_<key>", _)`` the pass expects a perfect nest of serial loops
around one ``dst[index] = src[index']`` store whose indices are affine in the loop
variables (a cast of the load is accepted). It calls ``fintrin(src, dst, pad_before,
pad_after, pad_value)`` with ``src`` / ``dst`` Buffers describing the two regions over the
same memory as the original buffers: ``shape`` the loop extents (outermost first),
``strides`` each loop variable's coefficient in the index (one entry per loop, in elements),
``elem_offset`` the index with every loop variable at 0 (it may read variables of enclosing
loops). ``pad_before`` / ``pad_after`` are zeros and ``pad_value`` None: copies with padding
(an ``if_then_else`` around the load) are refused, as is any other body (TepadError naming
the pragma and what was found). ``fintrin`` returns the Stmt that takes the nest's place,
pragma included.
"""
from __future__ import annotations

from ...arith import Analyzer
from ...arith.affine import affine_terms
from ...errors import TepadError
from ...tir.buffer import Buffer
from ...tir.expr import BufferLoad, Cast, IntImm, const
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, collect_vars, substitute
from ...tir.stmt import AttrStmt, BufferStore, For, ForKind, Stmt

PRAGMA_PREFIX = "pragma_"


def _fail(key, what):
    raise TepadError(f"InjectCopyIntrin({key!r}): {what}; the pragma must mark a loop nest "
                     "around one store dst[...] = src[...] with indices affine in the loops")


def _region(buf: Buffer, indices, loops, key, which) -> Buffer:
    if len(indices) != 1:
        _fail(key, f"the {which} buffer {buf.name} has {len(indices)} indices (the copy is "
                   "matched after storage flattening, one index per buffer)")
    index = indices[0]
    loop_vars = [f.loop_var for f in loops]
    terms = affine_terms(index)
    if terms is None:
        _fail(key, f"the {which} index `{index}` is not affine")
    ana = Analyzer()
    strides = [const(terms[0].get(v, 0), index.dtype) for v in loop_vars]
    offset = ana.simplify(substitute(index, {v: 0 for v in loop_vars}))
    if collect_vars(offset) & set(loop_vars):
        _fail(key, f"the {which} index `{index}` is not affine in the loops")
    shape = [f.extent for f in loops]
    return Buffer(shape, buf.dtype, buf.name, buf.data, strides, offset, (), buf.scope)


def _copy_of(attr: AttrStmt, key: str, fintrin):
    loops, body = [], attr.body
    while isinstance(body, For):
        if body.kind not in (ForKind.SERIAL, ForKind.UNROLLED):
            _fail(key, f"loop {body.loop_var.name} is {body.kind.value}")
        loops.append(body)
        body = body.body
    if not isinstance(body, BufferStore):
        _fail(key, f"the innermost statement is a {type(body).__name__}")
    value = body.value
    if isinstance(value, Cast):
        value = value.value
    if not isinstance(value, BufferLoad):
        _fail(key, f"the stored value `{body.value}` is not a load of a buffer (padded "
                   "copies are not supported)")
    src = _region(value.buffer, value.indices, loops, key, "source")
    dst = _region(body.buffer, body.indices, loops, key, "destination")
    zeros = [const(0, "int32") for _ in loops]
    out = fintrin(src, dst, list(zeros), list(zeros), None)
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
