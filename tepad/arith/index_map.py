"""IndexMap: a map from logical buffer indices to transformed (physical) indices.

``IndexMap([i], [i // 4, i % 4])`` maps element ``i`` of a logical buffer to position
``(i // 4, i % 4)`` of the transformed buffer (RFC 0039). Shapes, padding (RFC 0077), inverses
and injectivity are computed exactly with ISL (islpy) when every output index is quasi-affine
(``+ - *const // % by constants`` over the input indices and free symbolic vars such as shape
vars); other maps fall back to interval arithmetic where that is sound (``map_shape`` /
``map_ranges``) and raise ``TepadError`` where it is not (``inverse``, ``padding_predicate``,
``is_injective``).

Conventions:
- the transformed buffer's index ``k`` ranges over ``[0, max_k + 1)`` where ``max_k`` is the
  largest value output ``k`` takes on the logical domain (the minimal box anchored at 0);
  a map producing negative indices is an error;
- ``final_vars()`` are fresh Vars, one per output index, stable for one IndexMap object; the
  padding predicate and ``inverse`` are written over them;
- symbolic shapes: every free Var of a shape/map is an ISL parameter; shape parameters are
  assumed ``>= 1`` when simplifying (a buffer extent is positive).
"""
from __future__ import annotations

import inspect

from ..errors import TepadError
from ..tir import expr as E
from ..tir.buffer import AXIS_SEPARATOR
from ..tir.functor import substitute, collect_vars
from ..tir.printer import expr_to_str
from .analyzer import Analyzer
from .isl_bridge import (IslWriter, NotAffine, dim_type, isl, pw_aff_to_expr,
                         pw_aff_to_expr_ast, set_to_cond)

def _param_bound_expr(pa, ctx, params, dtype):
    """A parameter-only bound as a tir expression: the affine form itself when it has one
    piece, else isl's AST form (``min``/``max``), else nested selects over the pieces."""
    if pa.n_piece() == 1:
        return pw_aff_to_expr(pa, [], params, dtype)
    try:
        return pw_aff_to_expr_ast(pa, ctx, params, dtype)
    except (isl.Error, NotAffine, TepadError):
        return pw_aff_to_expr(pa, [], params, dtype)


# ----------------------------------------------------------------------------------------------
# IndexMap
# ----------------------------------------------------------------------------------------------

def _mapping_params(fn):
    """(positional names, keyword-only names, *args name or None) of a layout callable."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        raise TepadError(f"layout mapping {fn!r} is not an inspectable callable") from None
    pos, kwonly, var_name = [], [], None
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            pos.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            var_name = p.name
        elif p.kind == p.KEYWORD_ONLY:
            kwonly.append(p.name)
    return pos, kwonly, var_name


class IndexMap:
    """``lambda *initial_indices: final_indices``; see the module docstring."""

    def __init__(self, initial_indices, final_indices):
        self.initial_indices = list(initial_indices)
        self.final_indices = [E.convert(x) for x in final_indices]
        for v in self.initial_indices:
            if not isinstance(v, E.Var):
                raise TepadError(f"IndexMap initial indices must be Vars, got {v!r}")
        self._final_vars = None

    # --- construction ------------------------------------------------------------------------
    @staticmethod
    def from_func(fn, ndim=None, index_dtype="int32"):
        """``(IndexMap, axis_separators)`` from a Python callable (TVM's from_func_with_separators).

        Positional params become Vars in order, ``*args`` expands to the remaining dimensions,
        keyword-only params are appended last. ``AXIS_SEPARATOR`` entries in the returned list
        become axis separators (positions counted in output indices).
        """
        pos, kwonly, var_name = _mapping_params(fn)
        if ndim is None:
            if var_name is not None:
                raise TepadError("IndexMap.from_func: a *args mapping needs ndim")
            ndim = len(pos) + len(kwonly)
        n_var = ndim - len(pos) - len(kwonly)
        if n_var < 0 or (n_var > 0 and var_name is None):
            raise TepadError(
                f"layout mapping takes {len(pos) + len(kwonly)} indices"
                f"{' (+ *args)' if var_name else ''} but the tensor has {ndim} dimensions")
        pos_vars = [E.Var(n, index_dtype) for n in pos]
        var_vars = [E.Var(f"{var_name}_{k}", index_dtype) for k in range(n_var)]
        kw_vars = {n: E.Var(n, index_dtype) for n in kwonly}
        out = fn(*pos_vars, *var_vars, **kw_vars)
        init = pos_vars + var_vars + list(kw_vars.values())
        if not isinstance(out, (list, tuple)):
            out = [out]
        finals, seps = [], []
        for x in out:
            if x is AXIS_SEPARATOR or (type(x).__name__ == type(AXIS_SEPARATOR).__name__
                                       and x == AXIS_SEPARATOR):
                seps.append(len(finals))
            else:
                try:
                    finals.append(E.convert(x))
                except TypeError:
                    raise TepadError(f"layout mapping returned {x!r}, which is not an index "
                                     "expression") from None
        for f in finals:
            if not E.dt.is_int(f.dtype):
                raise TepadError(f"layout mapping output {f!r} is not an integer expression")
        return IndexMap(init, finals), seps

    @staticmethod
    def func_arity(fn):
        """``(n, takes_varargs)``: how many indices the layout callable ``fn`` names (positional
        and keyword-only parameters) and whether it takes ``*args`` for any further ones.
        Raises TepadError when ``fn`` has no inspectable signature."""
        pos, kwonly, var_name = _mapping_params(fn)
        return len(pos) + len(kwonly), var_name is not None

    # --- basic API ---------------------------------------------------------------------------
    @property
    def ndim_in(self):
        return len(self.initial_indices)

    @property
    def ndim_out(self):
        return len(self.final_indices)

    def final_vars(self):
        """Fresh Vars (one per output index), the same objects on every call."""
        if self._final_vars is None:
            names = _default_final_names(self)
            dtype = self.final_indices[0].dtype if self.final_indices else "int32"
            self._final_vars = [E.Var(n, dtype) for n in names]
        return list(self._final_vars)

    def __str__(self):
        args = ", ".join(v.name for v in self.initial_indices)
        outs = ", ".join(expr_to_str(x) for x in self.final_indices)
        return f"lambda {args}: [{outs}]"

    __repr__ = __str__

    def _check_n(self, items, what):
        if len(items) != self.ndim_in:
            raise TepadError(f"index map `{self}` takes {self.ndim_in} indices, got {len(items)} "
                             f"{what}")

    def map_indices(self, indices, analyzer=None):
        """Final indices for the given logical indices (substituted, then simplified)."""
        self._check_n(indices, "indices")
        ana = analyzer if analyzer is not None else Analyzer()
        vmap = {}
        for v, x in zip(self.initial_indices, indices):
            x = E.convert(x)
            if x.dtype != v.dtype and E.dt.lanes(x.dtype) == 1:
                x = E.cast(v.dtype, x)
            vmap[v] = x
        return [ana.simplify(substitute(f, vmap)) for f in self.final_indices]

    def compose(self, other: "IndexMap") -> "IndexMap":
        """``other ∘ self``: apply self, then other."""
        if other.ndim_in != self.ndim_out:
            raise TepadError(f"cannot compose `{self}` ({self.ndim_out} outputs) with "
                             f"`{other}` ({other.ndim_in} inputs)")
        return IndexMap(self.initial_indices, other.map_indices(self.final_indices))

    # --- ISL helpers -------------------------------------------------------------------------
    def _isl_setup(self, shape_or_ranges):
        """Names and strings for the domain (list of (min, extent)) and the map."""
        names = {}
        for k, v in enumerate(self.initial_indices):
            names[v] = f"i{k}"
        params = {}
        free = set()
        for f in self.final_indices:
            free |= collect_vars(f)
        for mn, ext in shape_or_ranges:
            free |= collect_vars(mn) | collect_vars(ext)
        free -= set(self.initial_indices)
        for k, v in enumerate(sorted(free, key=lambda v: v.name)):
            pn = f"p{k}_{''.join(ch for ch in v.name if ch.isalnum())}"
            names[v] = pn
            params[pn] = v
        ins = ", ".join(f"i{k}" for k in range(self.ndim_in))
        w = IslWriter(names)
        outs = ", ".join(w.expr(f) for f in self.final_indices)
        if w.aux:        # a tuple of outputs has no room for existential helpers
            raise NotAffine("if_then_else in a layout map")
        pstr = "[" + ", ".join(params) + "] -> " if params else ""
        nm = dict(names)
        ivs = [E.Var(f"i{k}", mn.dtype) for k, (mn, _) in enumerate(shape_or_ranges)]
        nm.update({iv: f"i{k}" for k, iv in enumerate(ivs)})
        wd, wc = IslWriter(nm), IslWriter(names)
        cons = []
        ctx = []
        for iv, (mn, ext) in zip(ivs, shape_or_ranges):
            cons.append(wd.constraint(mn, "<=", iv))
            cons.append(wd.constraint(iv, "<", E.add(mn, ext)))
            if not isinstance(ext, E.IntImm):
                ctx.append(wc.constraint(ext, ">=", E.IntImm(1, ext.dtype)))
        dom = isl.Set(f"{pstr}{{ L[{ins}] : {wd.wrap(' and '.join(cons) or 'true')} }}")
        mp = isl.Map(f"{pstr}{{ L[{ins}] -> T[{outs}] }}")
        context = isl.Set(f"{pstr}{{ : {wc.wrap(' and '.join(ctx) or 'true')} }}")
        for pn, v in params.items():
            if isinstance(v, E.SizeVar):
                context = context & isl.Set(f"{pstr}{{ : {pn} >= 0 }}")
        return dom, mp, context, params

    @staticmethod
    def _as_ranges(shape):
        out = []
        for s in shape:
            if isinstance(s, E.Range):
                out.append((s.min, s.extent))
            else:
                out.append((E.IntImm(0, E.convert(s).dtype), E.convert(s)))
        return out

    def _image(self, ranges):
        dom, mp, ctx, params = self._isl_setup(ranges)
        img = dom.apply(mp).coalesce()
        return dom, mp, ctx, params, img

    @staticmethod
    def _box_of(img):
        """{ T[o] : 0 <= o_k <= max over img of o_k } (per-dimension upper bounds from img)."""
        n = img.dim(dim_type.set)
        box = None
        for k in range(n):
            o = ", ".join(f"o{j}" for j in range(n))
            q = ", ".join(f"q{j}" for j in range(n))
            rel = isl.Map(f"{{ T[{q}] -> T[{o}] : 0 <= o{k} <= q{k} }}")
            part = img.apply(rel)
            box = part if box is None else box & part
        return box.coalesce()

    # --- shapes ------------------------------------------------------------------------------
    def map_ranges(self, ranges, analyzer=None):
        """Ranges of the transformed indices for logical indices in ``ranges`` (exact box)."""
        ranges = [r if isinstance(r, E.Range) else E.Range.from_min_extent(*r) for r in ranges]
        self._check_n(ranges, "ranges")
        rr = [(r.min, r.extent) for r in ranges]
        dtype = ranges[0].extent.dtype if ranges else "int32"
        try:
            dom, mp, ctx, params, img = self._image(rr)
            out = []
            for k in range(self.ndim_out):
                lo = img.dim_min(k).gist_params(ctx).coalesce()
                hi = img.dim_max(k).gist_params(ctx).coalesce()
                lo_e = _param_bound_expr(lo, ctx, params, dtype)
                hi_e = _param_bound_expr(hi, ctx, params, dtype)
                ana = analyzer or Analyzer()
                out.append(E.Range.from_min_extent(
                    ana.simplify(lo_e), ana.simplify(E.add(E.sub(hi_e, lo_e), 1))))
            return out
        except NotAffine:
            ana = analyzer or Analyzer()
            dom_map = {v: r for v, r in zip(self.initial_indices, ranges)}
            out = []
            for f in self.final_indices:
                s = ana.int_set(f, dom_map)
                if s.is_nothing() or not s.is_bounded() if hasattr(s, "is_bounded") else False:
                    raise TepadError(f"cannot bound output `{f}` of index map `{self}`")
                out.append(E.Range.from_min_extent(
                    ana.simplify(s.min_value),
                    ana.simplify(E.add(E.sub(s.max_value, s.min_value), 1))))
            return out

    def map_shape(self, shape, analyzer=None):
        """Shape of the transformed buffer: index k in ``[0, max_k + 1)``."""
        shape = [E.convert(s) for s in shape]
        self._check_n(shape, "dimensions")
        rngs = self.map_ranges([E.Range.from_min_extent(E.IntImm(0, s.dtype), s)
                                for s in shape], analyzer)
        ana = analyzer or Analyzer()
        out = []
        for k, r in enumerate(rngs):
            if ana.can_prove(r.min < 0):
                raise TepadError(f"index map `{self}` produces negative values for output {k} "
                                 f"on shape {list(shape)}: add an offset")
            out.append(ana.simplify(E.add(r.min, r.extent)))
        return out

    # --- padding / inverse / injectivity -----------------------------------------------------
    def _exact(self, shape, final_shape=None):
        shape = [E.convert(s) for s in shape]
        self._check_n(shape, "dimensions")
        try:
            dom, mp, ctx, params, img = self._image(self._as_ranges(shape))
        except NotAffine as e:
            raise TepadError(f"index map `{self}` is not quasi-affine (`{e}`): cannot analyse "
                             "padding, injectivity or the inverse exactly") from None
        if final_shape is None:
            box = self._box_of(img)
        else:
            fs = [E.convert(x) for x in final_shape]
            n = self.ndim_out
            ovs = [E.Var(f"o{k}", fs[k].dtype) for k in range(n)]
            nmo = {v: pn for pn, v in params.items()}
            nmo.update({v: f"o{k}" for k, v in enumerate(ovs)})
            w = IslWriter(nmo)
            try:
                cons = " and ".join(f"0 <= o{k} and " + w.constraint(ovs[k], "<", fs[k])
                                    for k in range(n))
            except NotAffine:
                raise TepadError(f"final shape {fs} is not affine") from None
            pstr = "[" + ", ".join(params) + "] -> " if params else ""
            box = isl.Set(f"{pstr}{{ T[{', '.join(f'o{k}' for k in range(n))}] : "
                          f"{w.wrap(cons or 'true')} }}")
        return dom, mp, ctx, params, img, box

    def padding_predicate(self, shape, final_shape=None):
        """Bool expr over ``final_vars()``: true exactly at padding points of the box.

        The box is ``map_shape(shape)`` (or ``final_shape`` when several maps were chained);
        the predicate is simplified relative to the box (the loops over the transformed shape
        provide the box bounds)."""
        dom, mp, ctx, params, img, box = self._exact(shape, final_shape)
        pad = (box - img).detect_equalities().coalesce()
        if pad.is_empty():
            return E.IntImm(0, "bool")
        pad = pad.gist(box).gist_params(ctx).coalesce()
        dtype = self.final_indices[0].dtype if self.final_indices else "int32"
        return Analyzer().simplify(set_to_cond(pad, self.final_vars(), params, dtype))

    def has_padding(self, shape) -> bool:
        dom, mp, ctx, params, img, box = self._exact(shape)
        return not (box - img).intersect_params(ctx).is_empty()

    def is_injective(self, shape) -> bool:
        """True when distinct logical indices in ``shape`` map to distinct final indices."""
        dom, mp, ctx, params, img, box = self._exact(shape)
        return mp.intersect_domain(dom).intersect_params(ctx).is_injective()

    def inverse(self, shape) -> "IndexMap":
        """IndexMap from ``final_vars()`` back to the logical indices, valid on the image.

        The common split/reorder maps give the affine inverse (``io*4 + ii``); maps whose
        inverse is not affine give a piecewise expression (``select``)."""
        dom, mp, ctx, params, img, box = self._exact(shape)
        m = mp.intersect_domain(dom).intersect_params(ctx)
        if not m.is_injective():
            raise TepadError(f"index map `{self}` is not injective on shape {list(shape)}: "
                             "two logical elements would share one storage location")
        rev = m.reverse()
        fv = self.final_vars()
        dtype = fv[0].dtype if fv else "int32"
        outs = None
        # Prefer the inverse of the map itself (no domain): it stays right on padding points,
        # which it sends outside the logical shape, so a range check of the result finds them.
        # The image's affine hull can be degenerate (a shape of extent 1 fixes i = 0, and the
        # "inverse" would send the padding point (i + 1) % 2 == 0 to i = 0 as well).
        free = mp.reverse()
        if free.is_single_valued() and box.is_subset(free.domain()):
            pma = isl.PwMultiAff.from_map(free)
            if pma.n_piece() == 1:
                outs = [pw_aff_to_expr(pma.get_pw_aff(k), fv, params, dtype)
                        for k in range(self.ndim_in)]
        hull = isl.Map(rev.affine_hull())
        if outs is None and hull.is_single_valued() and hull.intersect_domain(img) == rev:
            pma = isl.PwMultiAff.from_map(hull)
            if pma.n_piece() == 1:
                outs = [pw_aff_to_expr(pma.get_pw_aff(k), fv, params, dtype)
                        for k in range(self.ndim_in)]
        if outs is None:
            pma = isl.PwMultiAff.from_map(rev)
            outs = []
            for k in range(self.ndim_in):
                pa = pma.get_pw_aff(k).gist(img).coalesce()
                outs.append(pw_aff_to_expr(pa, fv, params, dtype))
        ana = Analyzer()
        return IndexMap(fv, [ana.simplify(o) for o in outs])


def _default_final_names(m: IndexMap):
    """Readable names for the transformed axes: io/ii for a split of i, else axis<k>."""
    names = []
    for k, f in enumerate(m.final_indices):
        nm = None
        if isinstance(f, E.Var):
            nm = f.name
        elif isinstance(f, E.FloorDiv) and isinstance(f.a, E.Var):
            nm = f.a.name + "o"
        elif isinstance(f, E.FloorMod) and isinstance(f.a, E.Var):
            nm = f.a.name + "i"
        if nm is None or nm in names:
            nm = f"axis{k}"
        names.append(nm)
    return names


__all__ = ["IndexMap"]
