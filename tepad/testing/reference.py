"""The numpy oracle: evaluate compute definitions directly, ignoring every schedule.

``reference(outputs, {placeholder: array})`` walks the operation DAG from ``outputs`` and
evaluates each ComputeOp once, vectorized over its whole index grid. It reads only the
definition side (``te.Tensor`` / ``ComputeOp`` / ``PlaceholderOp`` and the ``tir`` expression
nodes) and deliberately shares no code with arith, schedule, bound, lower or codegen, so a
differential test ``build(...)`` vs ``reference(...)`` compares two independent implementations.

Semantics (the IR's, as codegen must implement them):

* every node is computed in its own dtype (``np.dtype(expr.dtype)``): int32 arithmetic wraps,
  float32 stays float32;
* ``FloorDiv``/``FloorMod``: floor semantics (Python ``//``/``%``); ``Div``/``Mod`` on integers
  truncate toward zero (C); ``Div`` on floats is true division; an integer division by zero
  yields 0 (it only happens in untaken branches of well-formed programs);
* ``Select`` and ``tir.if_then_else`` evaluate both branches and pick elementwise; tensor loads
  clip their indices into range, so a load in the untaken branch may be out of bounds;
* ``tir.round`` rounds half to even (numpy ``rint``; codegen uses ``llvm.nearbyint``);
  ``tir.sigmoid(x) = 1 / (1 + exp(-x))``;
* reductions: ``sum``/``max``/``min`` (recognised by name *and* combiner shape) use numpy's
  reductions with ``where=``; other reducers fold ``combine(acc, value)`` over the reduction
  points in row-major order starting from the identity; with ``init`` the result is
  ``combine(init, reduction)``; points where ``where`` is false are skipped.
* ``te.scan``: rows ``[0, T0)`` of each state are its init's; then, one time step ``t`` after
  another, the body (every compute on a path from a state placeholder to an update) is
  evaluated on its whole grid with the state placeholders bound to the states so far, and row
  ``t`` of each update becomes row ``t`` of its state;
* symbolic shapes are bound from the input arrays (a dimension that is a bare Var binds it);
  ``inputs`` may also map a Var to an int. Other shape expressions are checked.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from ..errors import TepadError
from ..tir import expr as E
from ..tir.reduce import CommReducer, Reduce
from ..tensor.scan import ScanOp
from ..tensor.tensor import ComputeOp, PlaceholderOp, Tensor

# Above this many grid x reduction elements a compute is evaluated in chunks of its first axis.
CHUNK_ELEMENTS = 50_000_000


def reference(outputs, inputs):
    """Evaluate ``outputs`` (a Tensor or a list of Tensors) from ``inputs``.

    ``inputs`` maps placeholder Tensors (or their PlaceholderOps) to arrays, and optionally
    Vars to ints. Returns a fresh numpy array for a single Tensor, a list for a list.
    """

    single = isinstance(outputs, Tensor)
    outs = [outputs] if single else list(outputs)
    for t in outs:
        if not isinstance(t, Tensor):
            raise TepadError(f"reference: outputs must be Tensors, got {t!r}")
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 20000))
    try:
        with np.errstate(all="ignore"):
            oracle = _Oracle(inputs)
            oracle.run(outs)
            results = [np.array(oracle.tensor_value(t), copy=True, order="C") for t in outs]
    finally:
        sys.setrecursionlimit(old_limit)
    return results[0] if single else results


# ----------------------------------------------------------------------------------------------
# The DAG walk
# ----------------------------------------------------------------------------------------------

class _Oracle:
    def __init__(self, inputs):

        if not isinstance(inputs, dict):
            raise TepadError(f"reference: inputs must be a dict {{placeholder: array}}, "
                             f"got {type(inputs).__name__}")
        self.values: dict = {}          # op -> list of arrays (one per output)
        self.shape_env: dict = {}       # Var -> 0-d array
        given = []
        for key, arr in inputs.items():
            if isinstance(key, E.Var):
                self._bind(key, arr, "given value")
                continue
            if isinstance(key, PlaceholderOp):
                key = key.output(0)
            if not isinstance(key, Tensor) or not isinstance(key.op, PlaceholderOp):
                raise TepadError(
                    f"reference: input keys must be placeholder tensors (or Vars), got {key!r}; "
                    "computed tensors are evaluated from their definitions")
            given.append((key, arr))

        # Pass 1: convert arrays, check ranks, bind bare-Var dimensions.
        converted = []
        for t, arr in given:
            a = np.asarray(arr)
            want = np.dtype(t.dtype)
            if a.dtype != want:
                if not np.can_cast(a.dtype, want, "same_kind"):
                    raise TepadError(
                        f"reference: input {t.name} has dtype {t.dtype}, got an array of "
                        f"dtype {a.dtype}")
                a = a.astype(want)
            if a.ndim != len(t.shape):
                raise TepadError(
                    f"reference: input {t.name} has {len(t.shape)} dimensions "
                    f"(shape {_shape_str(t.shape)}), got an array of shape {a.shape}")
            for d, s in enumerate(t.shape):
                if isinstance(s, E.Var):
                    self._bind(s, a.shape[d], f"dimension {d} of {t.name}")
            converted.append((t, a))
        # Pass 2: every dimension must now agree with its evaluated shape expression.
        for t, a in converted:
            want_shape = self.shape_of(t.shape, f"input {t.name}")
            if tuple(want_shape) != tuple(a.shape):
                raise TepadError(
                    f"reference: input {t.name} should have shape {tuple(want_shape)} "
                    f"({_shape_str(t.shape)}), got an array of shape {a.shape}")
            self.values[t.op] = [a]

    def _bind(self, var, value, what):
        """Bind a shape Var (or a scalar parameter Var of any dtype) to a value."""
        try:
            v = np.asarray(value)
            if v.ndim != 0:
                raise ValueError
            if np.dtype(var.dtype).kind in "iub" and v.dtype.kind not in "iub":
                raise ValueError
            v = v.astype(np.dtype(var.dtype))
        except (TypeError, ValueError):
            raise TepadError(
                f"reference: variable {var.name} ({var.dtype}) must be bound to a scalar of "
                f"that kind, got {value!r}") from None
        old = self.shape_env.get(var)
        if old is not None and old != v:
            raise TepadError(
                f"reference: inconsistent value for {var.name}: {old} earlier, {v} from "
                f"{what}")
        self.shape_env[var] = v

    # -- helpers --------------------------------------------------------------------------------
    def scalar_int(self, e, what) -> int:
        v = _Eval(self, self.shape_env)(E.convert(e))
        if np.ndim(v) != 0:
            raise TepadError(f"reference: {what} is not a scalar expression: {e!r}")
        return int(v)

    def shape_of(self, shape, what):
        out = []
        for d, s in enumerate(shape):
            v = self.scalar_int(s, f"{what}, dimension {d}")
            if v < 0:
                raise TepadError(f"reference: {what} has a negative extent {v} in dimension {d}")
            out.append(v)
        return out

    def tensor_value(self, t):
        return self.values[t.op][t.value_index]

    # -- topological evaluation -----------------------------------------------------------------
    def run(self, outs):

        order, state = [], {}
        stack = [(t.op, False) for t in reversed(outs)]
        while stack:
            op, done = stack.pop()
            if done:
                state[op] = 2
                order.append(op)
                continue
            if state.get(op):
                continue
            state[op] = 1
            stack.append((op, True))
            if isinstance(op, PlaceholderOp):
                continue
            if isinstance(op, ScanOp):
                needs = _scan_needs(op)
            elif isinstance(op, ComputeOp):
                needs = _input_tensors(op.body)
            else:
                raise TepadError(f"reference: cannot evaluate operation {op!r} "
                                 "(only placeholders, computes and scans)")
            for t in reversed(needs):
                st = state.get(t.op)
                if st == 1:
                    raise TepadError(f"reference: cycle through {t.op!r}")
                if not st:
                    stack.append((t.op, False))
        for op in order:
            if op in self.values:
                continue
            if isinstance(op, PlaceholderOp):
                raise TepadError(
                    f"reference: no array given for placeholder {op.name} "
                    f"(shape {_shape_str(op.shape)}, dtype {op.dtype})")
            if isinstance(op, ScanOp):
                self.values[op] = self._eval_scan(op)
            else:
                self.values[op] = self._eval_compute(op)

    def _eval_scan(self, op):
        """Row ``t < T0`` of state ``i`` is ``init[i][t]``; for ``T0 <= t < T``, the body is
        evaluated on the states as they are after step ``t - 1`` and row ``t`` of
        ``update[i]`` is taken. Rows not yet computed read as zero."""
        body = _scan_body(op)
        t0 = self.scalar_int(op.init[0].shape[0], f"scan {op.name}, init time extent")
        states = []
        for ini, up in zip(op.init, op.update):
            shape = self.shape_of(up.shape, f"scan {op.name}, state {up.name}")
            st = np.zeros(shape, dtype=np.dtype(up.dtype))
            st[:t0] = self.tensor_value(ini)[:t0]
            states.append(st)
        for ph, st in zip(op.state_placeholder, states):
            self.values[ph.op] = [st]
        for t in range(t0, states[0].shape[0] if states[0].ndim else 0):
            for b in body:
                self.values[b] = self._eval_compute(b)
            for st, up in zip(states, op.update):
                st[t] = self.tensor_value(up)[t]
        for ph in op.state_placeholder:
            del self.values[ph.op]
        for b in body:
            self.values.pop(b, None)
        return states

    def _eval_compute(self, op):
        nout = len(op.axis)
        out_shape = self.shape_of([iv.dom.extent for iv in op.axis], f"compute {op.name}")
        mins = [self.scalar_int(iv.dom.min, f"compute {op.name}, axis {iv.var.name} min")
                for iv in op.axis]
        if isinstance(op.body[0], Reduce) and op.body[0].combiner.size > 1:
            return self._eval_tuple_reduce(op, out_shape, mins)
        results = []
        for body in op.body:
            res = np.empty(out_shape, dtype=np.dtype(body.dtype))
            if res.size == 0:
                results.append(res)
                continue
            red = 1
            if isinstance(body, Reduce):
                for iv in body.axis:
                    try:
                        red *= max(1, self.scalar_int(iv.dom.extent, "reduce extent"))
                    except TepadError:
                        pass
            total = math.prod(out_shape) * red
            if nout == 0 or total <= CHUNK_ELEMENTS:
                chunks = [(0, out_shape[0] if nout else None)]
            else:
                per_row = total // out_shape[0]
                rows = max(1, CHUNK_ELEMENTS // max(1, per_row))
                chunks = [(lo, min(lo + rows, out_shape[0]))
                          for lo in range(0, out_shape[0], rows)]
            for lo, hi in chunks:
                val = self._eval_body(op, body, out_shape, mins, lo, hi)
                if nout == 0:
                    res[...] = val
                else:
                    res[lo:hi] = val
            results.append(res)
        return results

    def _eval_tuple_reduce(self, op, out_shape, mins):
        """All outputs of a tuple reduction (argmax), evaluated together."""
        r = op.body[0]
        results = [np.empty(out_shape, dtype=np.dtype(b.dtype)) for b in op.body]
        if math.prod(out_shape) == 0:
            return results
        env = dict(self.shape_env)
        nout = len(op.axis)
        ndim = nout + len(r.axis)
        for d, iv in enumerate(op.axis):
            vals = mins[d] + np.arange(out_shape[d], dtype=np.int64)
            env[iv.var] = _along(vals.astype(np.dtype(iv.var.dtype)), d, ndim)
        outer = _Eval(self, env)
        red_shape = []
        mask = None
        for k, iv in enumerate(r.axis):
            rmin, rext = np.asarray(outer(iv.dom.min)), np.asarray(outer(iv.dom.extent))
            start = int(rmin.min()) if rmin.size else 0
            stop = max(start, int((rmin + rext).max()) if (rmin + rext).size else 0)
            kv = _along(np.arange(start, stop, dtype=np.int64).astype(np.dtype(iv.var.dtype)),
                        nout + k, ndim)
            m = (kv >= rmin) & (kv < rmin + rext)
            mask = m if mask is None else (mask & m)
            env[iv.var] = kv
            red_shape.append(stop - start)
        full = list(out_shape) + red_shape
        ev = _Eval(self, env)
        srcs = [np.broadcast_to(np.asarray(ev(x)).astype(np.dtype(x.dtype), copy=False), full)
                for x in r.source]
        cond = np.asarray(ev(r.condition)).astype(bool, copy=False)
        if mask is not None:
            cond = cond & mask
        cond = np.broadcast_to(cond, full)
        init = None
        if r.init:
            init = [np.broadcast_to(np.asarray(outer(x)).astype(np.dtype(x.dtype), copy=False),
                                    list(out_shape) + [1] * len(r.axis)).reshape(out_shape)
                    for x in r.init]
        axis_env = dict(self.shape_env)
        axis_env.update((iv.var, np.asarray(env[iv.var]).reshape(np.shape(env[iv.var])[:nout]))
                        for iv in op.axis)
        accs = _fold_tuple(self, r, axis_env, srcs, cond, out_shape, red_shape, init)
        for res, acc in zip(results, accs):
            res[...] = acc
        return results

    def _eval_body(self, op, body, out_shape, mins, lo, hi):
        nout = len(op.axis)
        region = list(out_shape)
        if nout:
            region[0] = hi - lo
        is_red = isinstance(body, Reduce)
        nred = len(body.axis) if is_red else 0
        ndim = nout + nred
        env = dict(self.shape_env)
        for d, iv in enumerate(op.axis):
            start = lo if d == 0 else 0
            vals = mins[d] + np.arange(start, start + region[d], dtype=np.int64)
            env[iv.var] = _along(vals.astype(np.dtype(iv.var.dtype)), d, ndim)
        dtype = np.dtype(body.dtype)
        if not is_red:
            v = _Eval(self, env)(body)
            return np.broadcast_to(np.asarray(v).astype(dtype, copy=False), region)
        return self._eval_reduce(op, body, env, region, nout, dtype)

    def _eval_reduce(self, op, r, env, region, nout, dtype):
        nred = len(r.axis)
        ndim = nout + nred
        outer = _Eval(self, env)
        # the combiner and identity may read data-parallel vars: give them the output shape
        axis_env = dict(self.shape_env)
        axis_env.update((iv.var, np.asarray(env[iv.var]).reshape(np.shape(env[iv.var])[:nout]))
                        for iv in op.axis)
        mask = None
        red_shape = []
        for k, iv in enumerate(r.axis):
            rmin = np.asarray(outer(iv.dom.min))
            rext = np.asarray(outer(iv.dom.extent))
            if rmin.ndim == 0 and rext.ndim == 0:
                start, stop = int(rmin), int(rmin) + max(0, int(rext))
            else:
                # A domain that depends on outer axes (triangular): iterate over the hull,
                # mask the points outside each row's own domain.
                hi_arr = rmin + rext
                start, stop = int(rmin.min()), int(hi_arr.max()) if hi_arr.size else 0
                stop = max(start, stop)
            vals = np.arange(start, stop, dtype=np.int64).astype(np.dtype(iv.var.dtype))
            kv = _along(vals, nout + k, ndim)
            if not (rmin.ndim == 0 and rext.ndim == 0):
                m = (kv >= rmin) & (kv < rmin + rext)
                mask = m if mask is None else (mask & m)
            env[iv.var] = kv
            red_shape.append(stop - start)
        full = list(region) + red_shape
        ev = _Eval(self, env)
        src = np.broadcast_to(np.asarray(ev(r.source[r.value_index])).astype(dtype, copy=False),
                              full)
        cond = np.asarray(ev(r.condition)).astype(bool, copy=False)
        if mask is not None:
            cond = cond & mask
        cond = np.broadcast_to(cond, full)
        comb: CommReducer = r.combiner
        lhs, rhs = comb.lhs[r.value_index], comb.rhs[r.value_index]
        result = comb.result[r.value_index]
        ident = np.asarray(_Eval(self, axis_env)(comb.identity_element[r.value_index]))
        ident = np.broadcast_to(ident.astype(dtype, copy=False), region)
        init = None
        if r.init:
            init_v = np.asarray(outer(r.init[r.value_index])).astype(dtype, copy=False)
            init = np.broadcast_to(init_v, list(region) + [1] * nred).reshape(region)
        axes = tuple(range(nout, ndim))
        known = _known_reducer(comb, lhs, rhs, result)
        if known is not None:
            if known == "sum":
                red = np.sum(src, axis=axes, dtype=dtype, where=cond)
                if init is not None:
                    red = np.add(init, red, dtype=dtype)
            else:
                fn = np.max if known == "max" else np.min
                red = fn(src, axis=axes, initial=ident.flat[0], where=cond)
                if init is not None:
                    red = (np.maximum if known == "max" else np.minimum)(init, red)
            return np.asarray(red).astype(dtype, copy=False)
        # Generic reducer: fold combine(acc, value) over the reduction points.
        acc = np.array(np.broadcast_to(init if init is not None else ident, region), dtype=dtype)
        for idx in np.ndindex(*red_shape):
            sel = (Ellipsis,) + idx
            fenv = dict(axis_env)
            fenv[lhs] = acc
            fenv[rhs] = src[sel]
            new = np.asarray(_Eval(self, fenv)(result)).astype(dtype, copy=False)
            acc = np.where(cond[sel], new, acc).astype(dtype, copy=False)
        return acc


def _fold_tuple(oracle, r, axis_env, srcs, cond, region, red_shape, init):
    """Fold a tuple reducer over the reduction points in order: every value updated at once
    from the old accumulators (the same order the lowered loops combine in)."""
    comb = r.combiner
    dtypes = [np.dtype(x.dtype) for x in r.source]
    ident = [np.asarray(_Eval(oracle, axis_env)(x)).astype(d, copy=False)
             for x, d in zip(comb.identity_element, dtypes)]
    start = init if init is not None else ident
    accs = [np.array(np.broadcast_to(a, region), dtype=d) for a, d in zip(start, dtypes)]
    for idx in np.ndindex(*red_shape):
        sel = (Ellipsis,) + idx
        fenv = dict(axis_env)
        fenv.update(zip(comb.lhs, accs))
        fenv.update((v, src[sel]) for v, src in zip(comb.rhs, srcs))
        ev = _Eval(oracle, fenv)
        new = [np.asarray(ev(res)).astype(d, copy=False) for res, d in zip(comb.result, dtypes)]
        accs = [np.where(cond[sel], nv, acc).astype(d, copy=False)
                for nv, acc, d in zip(new, accs, dtypes)]
    return accs


def _known_reducer(comb, lhs, rhs, result):
    kind = {"sum": E.Add, "max": E.Max, "min": E.Min}.get(comb.name)
    if kind is None or type(result) is not kind:
        return None
    if kind is E.Add:
        ident = comb.identity_element[0]
        if not (isinstance(ident, E.ConstExpr) and ident.value == 0):
            return None
    if (result.a is lhs and result.b is rhs) or (result.a is rhs and result.b is lhs):
        return comb.name
    return None


def _along(vals, dim, ndim):
    shape = [1] * ndim
    shape[dim] = -1
    return vals.reshape(shape)


def _shape_str(shape):
    return "(" + ", ".join(repr(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _scan_body(op):
    """The compute operations of a scan's body, producers first: those on a path from a state
    placeholder to an update (own walk, as everything here)."""
    states = {id(t.op) for t in op.state_placeholder}
    reaches, order = {}, []

    def visit(o):
        if id(o) in reaches:
            return reaches[id(o)]
        if id(o) in states:
            return True
        reaches[id(o)] = False
        if not isinstance(o, ComputeOp):
            return False
        r = False
        for t in _input_tensors(o.body):
            r = visit(t.op) or r
        reaches[id(o)] = r
        if r:
            order.append(o)
        return r
    for u in op.update:
        visit(u.op)
    return order


def _scan_needs(op):
    """What must be evaluated before a scan: its inits and every tensor its body reads that is
    neither a state placeholder nor computed in the body."""
    body = _scan_body(op)
    inside = {id(b) for b in body} | {id(t.op) for t in op.state_placeholder}
    needs = list(op.init)
    for b in body:
        for t in _input_tensors(b.body):
            if id(t.op) not in inside and t not in needs:
                needs.append(t)
    return needs


def _input_tensors(exprs):
    """Tensors read by ProducerLoads in ``exprs`` (own walk; no shared visitor code)."""
    seen, out = set(), []
    stack = list(exprs)
    while stack:
        n = stack.pop()
        if isinstance(n, (tuple, list)):
            stack.extend(n)
        elif isinstance(n, CommReducer):
            stack.extend(n.result)
            stack.extend(n.identity_element)
        elif isinstance(n, E.Node):
            if isinstance(n, E.ProducerLoad) and n.producer not in seen:
                seen.add(n.producer)
                out.append(n.producer)
            for f in n._fields:
                stack.append(getattr(n, f))
    return out


# ----------------------------------------------------------------------------------------------
# Expression evaluation
# ----------------------------------------------------------------------------------------------

def _trunc_div(a, b):
    if a.dtype.kind in "iu":
        safe = np.where(b == 0, np.ones_like(b), b)
        r = np.fmod(a, safe)
        q = (a - r) // safe
        return np.where(b == 0, np.zeros_like(q), q)
    return np.true_divide(a, b)


def _trunc_mod(a, b):
    if a.dtype.kind in "iu":
        safe = np.where(b == 0, np.ones_like(b), b)
        return np.where(b == 0, np.zeros_like(a), np.fmod(a, safe))
    return np.fmod(a, b)


def _floor_div(a, b):
    if a.dtype.kind in "iu":
        safe = np.where(b == 0, np.ones_like(b), b)
        return np.where(b == 0, np.zeros_like(a), np.floor_divide(a, safe))
    return np.floor(np.true_divide(a, b))


def _floor_mod(a, b):
    if a.dtype.kind in "iu":
        safe = np.where(b == 0, np.ones_like(b), b)
        return np.where(b == 0, np.zeros_like(a), np.mod(a, safe))
    return a - np.floor(np.true_divide(a, b)) * b


def _round_half_even(x):
    return np.rint(x).astype(x.dtype, copy=False)


def _sigmoid(x):
    one = np.ones((), dtype=x.dtype)
    return one / (one + np.exp(-x))


_BINARY = {
    E.Add: np.add, E.Sub: np.subtract, E.Mul: np.multiply,
    E.Div: _trunc_div, E.Mod: _trunc_mod, E.FloorDiv: _floor_div, E.FloorMod: _floor_mod,
    E.Min: np.minimum, E.Max: np.maximum,
    E.EQ: np.equal, E.NE: np.not_equal, E.LT: np.less, E.LE: np.less_equal,
    E.GT: np.greater, E.GE: np.greater_equal,
    E.And: np.logical_and, E.Or: np.logical_or,
}

def _erf(x):
    x = np.asarray(x)
    return np.vectorize(math.erf, otypes=[x.dtype])(x)


def _popcount(x):
    x = np.asarray(x)
    bits = x.dtype.itemsize * 8
    u = x.astype(f"uint{bits}")
    return np.vectorize(lambda v: bin(int(v)).count("1"), otypes=[x.dtype])(u)


def _clz(x):
    x = np.asarray(x)
    bits = x.dtype.itemsize * 8
    u = x.astype(f"uint{bits}")
    return np.vectorize(lambda v: bits - int(v).bit_length(), otypes=[x.dtype])(u)


_MATH = {
    "tir.exp": np.exp, "tir.log": np.log, "tir.sqrt": np.sqrt, "tir.tanh": np.tanh,
    "tir.fabs": np.abs, "tir.floor": np.floor, "tir.ceil": np.ceil, "tir.pow": np.power,
    "tir.sigmoid": _sigmoid, "tir.round": _round_half_even, "tir.sin": np.sin,
    "tir.cos": np.cos, "tir.exp2": np.exp2, "tir.log2": np.log2, "tir.trunc": np.trunc,
    "tir.log10": np.log10, "tir.log1p": np.log1p, "tir.tan": np.tan, "tir.atan": np.arctan,
    "tir.erf": _erf, "tir.rsqrt": lambda x: 1 / np.sqrt(x), "tir.fmod": np.fmod,
    "tir.isnan": np.isnan, "tir.isinf": np.isinf, "tir.isfinite": np.isfinite,
    "tir.popcount": _popcount,
    "tir.acos": np.arccos, "tir.asin": np.arcsin, "tir.acosh": np.arccosh,
    "tir.asinh": np.arcsinh, "tir.atanh": np.arctanh, "tir.cosh": np.cosh, "tir.sinh": np.sinh,
    "tir.nearbyint": np.rint, "tir.atan2": np.arctan2, "tir.hypot": np.hypot,
    "tir.nextafter": np.nextafter, "tir.copysign": np.copysign, "tir.clz": _clz,
}


class _Eval:
    """Evaluate an expression to a numpy array (broadcastable over the grid) in ``env``."""

    def __init__(self, oracle: _Oracle, env: dict):
        self.oracle = oracle
        self.env = env
        self.memo: dict = {}

    def __call__(self, e):
        key = id(e)
        hit = self.memo.get(key)
        if hit is not None:
            return hit[1]
        v = self._eval(e)
        self.memo[key] = (e, v)      # keep e alive so its id stays unique
        return v

    def _eval(self, e):
        dtype = np.dtype(e.dtype) if e.dtype != "handle" else None
        t = type(e)
        fn = _BINARY.get(t)
        if fn is not None:
            a, b = self(e.a), self(e.b)
            return np.asarray(fn(a, b)).astype(dtype, copy=False)
        if isinstance(e, E.ConstExpr):
            return np.array(e.value, dtype=dtype)
        if isinstance(e, E.Var):
            v = self.env.get(e)
            if v is None:
                raise TepadError(
                    f"reference: the value of variable {e.name} is unknown; shape variables "
                    "are bound from input arrays (a dimension that is exactly the Var) or given "
                    "in the inputs dict as {var: int}")
            return v
        if t is E.Not:
            return np.logical_not(self(e.a))
        if t is E.Select:
            c = self(e.condition)
            return np.asarray(np.where(c, self(e.true_value), self(e.false_value))).astype(
                dtype, copy=False)
        if t is E.Cast:
            return np.asarray(self(e.value)).astype(dtype, copy=False)
        if t is E.ProducerLoad:
            return self._load(e)
        if t is E.Let:
            env = dict(self.env)
            env[e.var] = self(e.value)
            return _Eval(self.oracle, env)(e.body)
        if t is E.Call:
            return self._call(e, dtype)
        if t is Reduce:
            raise TepadError("reference: a reduction may only appear at the top of a compute "
                             f"body, found {e!r}")
        raise TepadError(f"reference: cannot evaluate {type(e).__name__} node {e!r} in a "
                         "compute definition")

    def _call(self, e, dtype):
        op = e.op
        if op == "tir.if_then_else":
            c, a, b = (self(x) for x in e.args)
            return np.asarray(np.where(c, a, b)).astype(dtype, copy=False)
        if op == "tir.likely":
            return self(e.args[0])
        fn = _MATH.get(op)
        if fn is None:
            raise TepadError(f"reference: unsupported intrinsic {op} in {e!r}")
        args = [np.asarray(self(a)).astype(dtype, copy=False) for a in e.args]
        return np.asarray(fn(*args)).astype(dtype, copy=False)

    def _load(self, e):
        t = e.producer
        arr = self.oracle.values.get(t.op)
        if arr is None:
            raise TepadError(f"reference: tensor {t.name} has not been evaluated")
        arr = arr[t.value_index]
        if len(e.indices) != arr.ndim:
            raise TepadError(f"reference: {t.name} has {arr.ndim} dimensions, indexed with "
                             f"{len(e.indices)}")
        if arr.ndim == 0:
            return arr
        idx = np.broadcast_arrays(*[np.asarray(self(i)) for i in e.indices])
        if arr.size == 0:
            return np.zeros(idx[0].shape, dtype=arr.dtype)
        clipped = tuple(np.clip(i.astype(np.int64, copy=False), 0, n - 1)
                        for i, n in zip(idx, arr.shape))
        return arr[clipped]


__all__ = ["reference", "CHUNK_ELEMENTS"]
