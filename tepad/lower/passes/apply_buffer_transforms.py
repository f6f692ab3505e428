"""apply_buffer_transforms: buffer layout maps (RFC 0039) with padding semantics (RFC 0077).

Input: a PrimFunc whose attrs may hold

- ``"layout_transform_map"``: ``{Buffer: [IndexMap, ...]}`` (logical Buffers as used in
  ``buffer_map`` values and in BufferRealize/BufferLoad/BufferStore; maps apply in order);
- ``"layout_pad_value"``: ``{Buffer: pad}``, see *pad_value representation* below;
- ``"layout_axis_separators"``: ``{Buffer: [int]}`` (positions in transformed indices).

Guarantees on the result:

1. every transformed buffer is replaced by one new ``Buffer`` (same name, dtype, scope and data
   var) whose shape is the maps' ``map_shape`` applied in sequence and whose ``axis_separators``
   are the given ones; every BufferLoad/BufferStore index is mapped forward and simplified under
   the enclosing loop ranges (so ``B[(4*io + ii) // 4, (4*io + ii) % 4]`` becomes ``B[io, ii]``);
   BufferRealize bounds are mapped with ``map_ranges``; an internal buffer realized over a
   region ``[m, m + e)`` that is not its whole shape (a stage computed at an inner loop of its
   consumer) is a *local* buffer: the maps apply to its own coordinates ``idx - m`` on the
   shape ``e`` (physical shape ``map_shape(e)``, realized from 0), as InferBound's loops do
   (``rmap.local_layouts``), and its padding is that of the shape ``e``; ``buffer_map`` entries of arguments are
   the new buffers (same param var); AttrStmts naming a transformed buffer name the new one;
2. a buffer that is **written** in the function (an internal BufferRealize that is stored to,
   or an argument that is stored to) with a pad value that is not ``None`` gets one loop nest
   ``for idx in box: if padding(idx): buf[idx] = pad(idx)`` placed right after the last
   statement that writes it (descending through realize/attr/let wrappers of the sequence it is
   in: after the producer's compute, before its consumers). ``tir.undef`` pad values give
   stores of ``tir.undef`` (``remove_store_undef`` drops them). For an internal buffer the box
   is the realized region (mapped), for an argument the whole transformed shape;
3. an argument that is only **read**, with a pad value that is not ``None``/undef, gets at the
   start of the body a loop nest of ``Evaluate(tir.assume(not padding(idx) or
   buf[idx] == pad(idx)))`` over the transformed shape (RFC 0077 "consumer" form);
4. ``attrs["arg_layouts"] = {param_var: {"logical_shape", "index_maps", "pad_value",
   "axis_separators"}}`` for every transformed argument; the three ``layout_*`` attrs are
   removed, so running the pass again changes nothing;
5. a map that is not injective on the buffer's shape raises ``TepadError`` naming the buffer.

pad_value representation (``layout_pad_value`` values):

- ``None``: padding is never written nor assumed;
- a Python number or ``PrimExpr`` (cast to the buffer dtype);
- ``tir.undef(dtype)``;
- a callable of the transformed indices (one Var per output index) returning one of the above;
- an expression reading the transformed buffer itself: a ``BufferLoad`` of the *logical key
  Buffer* (or a ``ProducerLoad`` of a tensor with the buffer's name) with one index per
  **transformed** dimension is read as the transformed buffer at those indices (RFC 0077:
  ``lambda io, ii: B[0, (io - 14) % 4]``). Reading any other buffer raises ``TepadError``.
"""
from __future__ import annotations

from ...arith import Analyzer
from ...arith.negation import negate_cond
from ...errors import TepadError
from ...tir import expr as E
from ...tir import stmt as S
from ...tir.buffer import Buffer
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, post_order_visit, substitute
from ...arith.index_map import IndexMap
from ...tir.op import is_call, assume
from ...tir.transform import register_pass

ATTR_KEYS = ("layout_transform_map", "layout_pad_value", "layout_axis_separators")


class PadPerMap:
    """Pad values of a buffer transformed several times (RFC 0077 "multiple buffer semantics"):
    ``pads[k]`` fills exactly the padding that map ``k`` introduced."""

    def __init__(self, pads):
        self.pads = list(pads)

    def __repr__(self):
        return f"PadPerMap({self.pads!r})"


class _Plan:
    def __init__(self, buf: Buffer, maps, seps, key=None, offset=None):
        self.buf = buf
        self.key = buf if key is None else key       # the logical Buffer the IR names
        self.offset = offset                         # local buffer: the realized region's min
        self.maps = list(maps)
        shape = list(buf.shape)
        for m in self.maps:
            if not isinstance(m, IndexMap):
                raise TepadError(f"layout_transform_map[{buf.name}] must hold IndexMaps, "
                                 f"got {m!r}")
            shape = m.map_shape(shape)
        composed = self.maps[0]
        for m in self.maps[1:]:
            composed = composed.compose(m)
        self.composed = composed
        try:
            inj = composed.is_injective(buf.shape)
        except TepadError:
            inj = True     # not quasi-affine: cannot check exactly (documented gap)
        if not inj:
            raise TepadError(
                f"layout transform `{composed}` of buffer {buf.name} is not injective on its "
                f"shape {list(buf.shape)}: two elements would share one location")
        self.final_shape = shape
        sep = list(seps) if seps is not None else []
        self.new = Buffer(shape, buf.dtype, buf.name, data=buf.data, axis_separators=sep,
                          scope=buf.scope)
        self._pred = None

    def map_indices(self, indices, ana):
        idx = list(indices)
        if self.offset is not None:
            idx = [ana.simplify(E.sub(i, m)) for i, m in zip(idx, self.offset)]
        for m in self.maps:
            idx = m.map_indices(idx, ana)
        return idx

    def map_ranges(self, ranges, ana):
        r = list(ranges)
        for m in self.maps:
            r = m.map_ranges(r, ana)
        return r

    def padding_regions(self, pad):
        """``[(final vars, predicate, pad value)]``: one region per pad value.

        A single pad value covers all the padding of the composed map. With ``PadPerMap``,
        region ``k`` holds the final points whose preimage under the later maps exists and
        is padding of map ``k``."""
        if not isinstance(pad, PadPerMap):
            fv, pred = self.padding()
            return [(fv, pred, pad, list(fv))]
        fv = self.composed.final_vars()
        shapes = [list(self.buf.shape)]
        for m in self.maps:
            shapes.append(m.map_shape(shapes[-1]))
        out = []
        n = len(self.maps)
        for k, (m, pk) in enumerate(zip(self.maps, pad.pads)):
            if pk is None:
                continue
            try:
                pred_k = m.padding_predicate(shapes[k], shapes[k + 1])
            except TepadError:
                return [(fv, None, pk, list(fv))]
            if k == n - 1:
                pred = substitute(pred_k, dict(zip(m.final_vars(), fv)))
                args = list(fv)
            else:
                later = self.maps[k + 1]
                for m2 in self.maps[k + 2:]:
                    later = later.compose(m2)
                try:
                    later_pad = later.padding_predicate(shapes[k + 1], self.final_shape)
                    inv = later.inverse(shapes[k + 1])
                except TepadError:
                    return [(fv, None, pk, list(fv))]
                back = dict(zip(m.final_vars(), inv.final_indices))
                pred = E.logical_and(negate_cond(later_pad), substitute(pred_k, back))
                to_fv = dict(zip(later.final_vars(), fv))
                pred = substitute(pred, to_fv)
                # a pad callable of map k takes map k's output indices
                args = [substitute(e, to_fv) for e in inv.final_indices]
            out.append((fv, pred, pk, args))
        return out

    def padding(self):
        """(final vars, predicate) of the padding over the transformed box."""
        if self._pred is None:
            fv = self.composed.final_vars()
            try:
                pred = self.composed.padding_predicate(self.buf.shape, self.final_shape)
            except TepadError:
                pred = None
            self._pred = (fv, pred)
        return self._pred


def _writes(stmt, buf) -> bool:
    found = []

    def f(n):
        if isinstance(n, S.BufferStore) and n.buffer is buf:
            found.append(n)
    post_order_visit(stmt, f)
    return bool(found)


def _resolve_pad(plan: _Plan, pad, fvars):
    """Pad value as an expression over ``fvars`` (or None); see the module docstring."""
    if pad is None:
        return None
    if callable(pad) and not isinstance(pad, E.PrimExpr):
        pad = pad(*fvars)
        if pad is None:
            return None
        if callable(pad) and not isinstance(pad, E.PrimExpr):
            raise TepadError(f"pad_value of {plan.buf.name}: the callable returned a callable")
    try:
        e = E.convert(pad)
    except TypeError:
        raise TepadError(f"pad_value of {plan.buf.name} must be None, a number, an "
                         f"expression, tir.undef or a callable, got {pad!r}") from None
    if is_call(e, "tir.undef"):
        return E.Call(plan.buf.dtype, "tir.undef", [])
    if e.dtype != plan.buf.dtype:
        e = E.cast(plan.buf.dtype, e)

    class _Self(Mutator):
        def visit_BufferLoad(self, x):
            idx = self.visit(x.indices)
            if x.buffer is plan.buf or x.buffer is plan.key or x.buffer is plan.new:
                if len(idx) != plan.new.ndim:
                    raise TepadError(
                        f"pad_value of {plan.buf.name} reads the buffer with {len(idx)} indices;"
                        f" use the {plan.new.ndim} transformed indices")
                return E.BufferLoad(plan.new, idx)
            raise TepadError(f"pad_value of {plan.buf.name} reads another buffer "
                             f"({x.buffer.name}); it may only use constants, the transformed "
                             "indices and the buffer itself")

        def visit_ProducerLoad(self, x):
            idx = self.visit(x.indices)
            name = getattr(x.producer, "name", "?")
            if name == plan.buf.name and len(idx) == plan.new.ndim:
                return E.BufferLoad(plan.new, idx)
            raise TepadError(f"pad_value of {plan.buf.name} reads another tensor ({name}); it "
                             "may only use constants, the transformed indices and the buffer "
                             "itself (with the transformed indices)")
    return _Self().visit(e)


def _fresh(fvars):
    return [E.Var(v.name, v.dtype) for v in fvars]


def _nest(loop_vars, ranges, body):
    for v, r in reversed(list(zip(loop_vars, ranges))):
        body = S.For(v, r.min, r.extent, S.ForKind.SERIAL, body)
    return body


def pad_write_nest(plan: _Plan, pad, ranges):
    """``for idx in ranges: if padding(idx): new[idx] = pad(idx)`` (one nest per pad region)
    or None."""
    nests = []
    for fv, pred, pk, args in plan.padding_regions(pad):
        if pred is None:
            raise TepadError(f"cannot compute the padding of buffer {plan.buf.name} exactly "
                             f"(the map `{plan.composed}` is not quasi-affine)")
        if isinstance(pred, E.IntImm) and not pred.value:
            continue
        lv = _fresh(fv)
        vm = dict(zip(fv, lv))
        val = _resolve_pad(plan, pk, [substitute(a, vm) for a in args])
        if val is None:
            continue
        cond = substitute(pred, vm)
        store = S.BufferStore(plan.new, val, lv)
        body = store if isinstance(cond, E.IntImm) else S.IfThenElse(cond, store)
        nests.append(_nest(lv, ranges, body))
    return S.seq(*nests) if nests else None


def pad_assume_nest(plan: _Plan, pad):
    nests = []
    for fv, pred, pk, args in plan.padding_regions(pad):
        if pred is None or (isinstance(pred, E.IntImm) and not pred.value):
            continue
        lv = _fresh(fv)
        vm = dict(zip(fv, lv))
        val = _resolve_pad(plan, pk, [substitute(a, vm) for a in args])
        if val is None or is_call(val, "tir.undef"):
            continue
        cond = substitute(pred, dict(zip(fv, lv)))
        ncond = negate_cond(cond)
        fact = E.logical_or(ncond, E._cmp(E.EQ, E.BufferLoad(plan.new, lv), val))
        ranges = [E.Range.from_min_extent(E.IntImm(0, s.dtype), s) for s in plan.final_shape]
        nests.append(_nest(lv, ranges, S.Evaluate(assume(fact))))
    return S.seq(*nests) if nests else None


_WRAPPERS = (S.BufferRealize, S.AttrStmt, S.LetStmt, S.Allocate)


def insert_after_last_write(stmt, buf, new):
    """Place ``new`` right after the last statement of ``stmt``'s top sequence writing ``buf``."""
    if isinstance(stmt, S.SeqStmt):
        items = list(stmt.seq)
        last = max((k for k, s in enumerate(items) if _writes(s, buf)), default=None)
        if last is None:
            return S.seq(stmt, new)
        child = items[last]
        if isinstance(child, _WRAPPERS) or isinstance(child, S.SeqStmt):
            items[last] = insert_after_last_write(child, buf, new)
        else:
            items.insert(last + 1, new)
        return S.seq(*items)
    if isinstance(stmt, _WRAPPERS):
        body = insert_after_last_write(stmt.body, buf, new)
        vals = [body if f == "body" else getattr(stmt, f) for f in stmt._fields]
        return type(stmt)._make(*vals)
    return S.seq(stmt, new)


class _Rewriter(Mutator):
    def __init__(self, plans, pads):
        self.plans = plans
        self.pads = pads
        self.ana = Analyzer()

    def visit_For(self, s):
        mn, ext = self.visit(s.min), self.visit(s.extent)
        with self.ana.bind_scope(s.loop_var, E.Range.from_min_extent(mn, ext)):
            body = self.visit(s.body)
        return s.replace(min=mn, extent=ext, body=body)

    def visit_BufferLoad(self, x):
        idx = self.visit(x.indices)
        p = self.plans.get(x.buffer)
        if p is None:
            return x if idx is x.indices else E.BufferLoad(x.buffer, idx)
        return E.BufferLoad(p.new, p.map_indices(idx, self.ana))

    def visit_BufferStore(self, s):
        idx = self.visit(s.indices)
        val = self.visit(s.value)
        p = self.plans.get(s.buffer)
        if p is None:
            return s if (idx is s.indices and val is s.value) else S.BufferStore(s.buffer, val, idx)
        return S.BufferStore(p.new, val, p.map_indices(idx, self.ana))

    def visit_AttrStmt(self, s):
        node = s.node
        if isinstance(node, Buffer) and node in self.plans:
            node = self.plans[node].new
        value, body = self.visit(s.value), self.visit(s.body)
        if node is s.node and value is s.value and body is s.body:
            return s
        return S.AttrStmt(node, s.attr_key, value, body)

    def _local_plan(self, p, bounds):
        """A plan for ``p``'s buffer realized over ``bounds`` only (see the module docstring),
        or None when ``bounds`` is the whole shape."""
        whole = all(self.ana.can_prove_equal(r.min, 0) and self.ana.can_prove_equal(r.extent, n)
                    for r, n in zip(bounds, p.key.shape))
        if whole or len(bounds) != len(p.key.shape):
            return None
        key = p.key
        shadow = Buffer([r.extent for r in bounds], key.dtype, key.name, data=key.data,
                        scope=key.scope)
        return _Plan(shadow, p.maps, p.new.axis_separators, key=key,
                     offset=[r.min for r in bounds])

    def visit_BufferRealize(self, s):
        p = self.plans.get(s.buffer)
        bounds = self.visit(s.bounds)
        local = None if p is None else self._local_plan(p, bounds)
        if local is not None:
            self.plans[s.buffer] = local
            try:
                body = self.visit(s.body)
            finally:
                self.plans[s.buffer] = p
            p = local
            new_bounds = [E.Range.from_min_extent(E.IntImm(0, n.dtype), n)
                          for n in p.final_shape]
        else:
            body = self.visit(s.body)
        if p is None:
            if bounds is s.bounds and body is s.body:
                return s
            return S.BufferRealize(s.buffer, bounds, s.condition, body)
        if local is None:
            new_bounds = p.map_ranges(bounds, self.ana)
        pad = self.pads.get(s.buffer)
        if pad is not None and _writes(body, p.new):
            nest = pad_write_nest(p, pad, new_bounds)
            if nest is not None:
                body = insert_after_last_write(body, p.new, nest)
        return S.BufferRealize(p.new, new_bounds, s.condition, body)


@register_pass("ApplyLayoutTransforms")
def apply_buffer_transforms(func: PrimFunc) -> PrimFunc:
    """Apply the layout maps recorded in ``func.attrs`` (see the module docstring)."""
    tmap = func.attrs.get("layout_transform_map") or {}
    if not tmap:
        if any(k in func.attrs for k in ATTR_KEYS):
            attrs = {k: v for k, v in func.attrs.items() if k not in ATTR_KEYS}
            return PrimFunc(func.params, func.body, func.buffer_map, attrs)
        return func
    pads = dict(func.attrs.get("layout_pad_value") or {})
    seps = dict(func.attrs.get("layout_axis_separators") or {})
    plans = {}
    for buf, maps in tmap.items():
        if not isinstance(buf, Buffer):
            raise TepadError(f"layout_transform_map keys must be Buffers, got {buf!r}")
        if isinstance(maps, IndexMap):
            maps = [maps]
        if not maps:
            continue
        plans[buf] = _Plan(buf, maps, seps.get(buf))
    for buf in list(pads) + list(seps):
        if buf not in plans and buf in pads and pads[buf] is not None:
            raise TepadError(f"pad_value given for buffer {getattr(buf, 'name', buf)} which has "
                             "no layout transform")
    rw = _Rewriter(plans, pads)
    body = rw.visit(func.body)

    buffer_map = {}
    arg_layouts = dict(func.attrs.get("arg_layouts") or {})
    prologue = []
    for p_var in func.params:
        buf = func.buffer_map.get(p_var)
        if buf is None:
            continue
        plan = plans.get(buf)
        if plan is None:
            buffer_map[p_var] = buf
            continue
        buffer_map[p_var] = plan.new
        pad = pads.get(buf)
        arg_layouts[p_var] = {"logical_shape": list(buf.shape), "index_maps": list(plan.maps),
                              "pad_value": pad, "axis_separators": list(plan.new.axis_separators)}
        if pad is None:
            continue
        if _writes(body, plan.new):
            ranges = [E.Range.from_min_extent(E.IntImm(0, s.dtype), s) for s in plan.final_shape]
            nest = pad_write_nest(plan, pad, ranges)
            if nest is not None:
                body = insert_after_last_write(body, plan.new, nest)
        else:
            nest = pad_assume_nest(plan, pad)
            if nest is not None:
                prologue.append(nest)
    for k, v in func.buffer_map.items():
        buffer_map.setdefault(k, plans[v].new if v in plans else v)
    if prologue:
        body = S.seq(*prologue, body)
    attrs = {k: v for k, v in func.attrs.items() if k not in ATTR_KEYS}
    if arg_layouts:
        attrs["arg_layouts"] = arg_layouts
    return PrimFunc(func.params, body, buffer_map, attrs)


__all__ = ["apply_buffer_transforms", "PadPerMap", "insert_after_last_write", "pad_write_nest",
           "pad_assume_nest"]
