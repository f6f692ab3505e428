"""Hybrid script -> TIR: the Python body of a ``@te.hybrid.script`` function, called with
te.Tensors, becomes the statement of a ``HybridOp`` (TVM's hybrid parser, written anew).

What a body may contain (TVM's hybrid subset):

* ``c = output_tensor(shape, dtype)``: an output (returned with ``return c`` / ``return c, d``);
  ``t = allocate(shape, dtype="float32", scope="global")``: a temporary array;
* ``x[i, j]`` reads and ``x[i, j] = v`` / ``x[i] += v`` writes of inputs, outputs and
  temporaries; ``x.shape``, ``x.dtype``, ``len(x)`` of arrays;
* scalar variables: a name assigned once, directly in a loop or function body, is a ``let``;
  any other (reassigned, ``+=``, assigned under an ``if``) is a one-element local array of
  the innermost loop (or the function), as TVM allocates it;
* ``for i in range(n)`` / ``range(a, b)`` / ``unroll`` / ``parallel`` / ``vectorize`` (loop
  kinds), ``const_range`` (unrolled by the parser: ``i`` is a Python int), ``bind(tag, n)``
  (the index of a thread launch that encloses the whole script, one per tag, as in TVM: the
  script's other statements run in every thread); ``while cond:`` (a ``tir.While``); ``if``/``elif``/``else`` (a condition
  the simplifier proves is dropped, as TVM does), ``a if c else b``, ``and``/``or``/``not``,
  chained comparisons, ``assert cond, "msg"``, ``pass``;
* calls: the math intrinsics (``sqrt``, ``exp``, ``log``, ``tanh``, ``sigmoid``, ``power``,
  ``popcount``, ``round``, ``floor``, ``ceil``, ``sin``, ``cos``, ``abs``, ...), ``min``/``max``,
  casts (``float32(x)``, ``int32(x)``, ...), ``ceil_div``, ``likely``, ``inf``/``ninf``,
  ``max_num_threads`` (of the current target); another ``@script`` function, whose body is
  inlined (``c = other(a, b)``; its outputs become temporaries);
* names of the function's globals and closure holding numbers, strings or expressions.

Anything else is a ``TepadError`` naming the function, its line and what is allowed.
"""
from __future__ import annotations

import ast
import inspect
import operator
import textwrap

import numpy as np

from ...arith import Analyzer
from ...errors import TepadError
from ...tir import dtype as dt
from ...tir import op as tirop
from ...tir.buffer import Buffer
from ...tir.expr import (BufferLoad, ConstExpr, IntImm, PrimExpr, Range, StringImm, Var, cast,
                         const, convert, logical_and, logical_not, logical_or)
from ...tir.functor import Mutator
from ...tir.itervar import IterVar, IterVarType
from ...tir.stmt import (Allocate, AssertStmt, AttrStmt, BufferStore, Evaluate, For, ForKind,
                         IfThenElse, LetStmt, While, seq)
from ...tensor.hybrid import HybridOp, outer_loop_axes
from ...tensor.operation import placeholder
from ...tensor.tensor import Tensor
from .intrinsics import call_intrinsic
from .values import Array, constant, literal

LOOP_KINDS = {"range": ForKind.SERIAL, "unroll": ForKind.UNROLLED,
              "parallel": ForKind.PARALLEL, "vectorize": ForKind.VECTORIZED}

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_CMPOPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
           ast.GtE: operator.ge, ast.Eq: lambda a, b: convert(a).equal(b),
           ast.NotEq: lambda a, b: convert(a) != b}


class _Frame:
    """The names declared in a function or loop body, and the temporaries allocated there."""

    def __init__(self):
        self.names = {}
        self.allocs = []      # (data var, dtype, extents, scope)


class HybridParser:
    """One parse of a script function for one set of arguments."""

    def __init__(self, func, args):
        self.func = func
        self.fname = func.__name__
        try:
            src = textwrap.dedent(inspect.getsource(func))
        except (OSError, TypeError) as e:
            raise TepadError(f"hybrid script {self.fname}: its source is not available "
                             f"({e})") from e
        tree = ast.parse(src)
        fdefs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        if not fdefs:
            raise TepadError(f"hybrid script {self.fname}: no function definition in its source")
        self.fdef = fdefs[0]
        self.line0 = func.__code__.co_firstlineno - 1
        self.source = src
        self.args = list(args)
        self.env = dict(func.__globals__)
        self.env.update(inspect.getclosurevars(func).nonlocals)
        self.frames = []
        self.analyzer = Analyzer()
        self.inputs = {}          # Tensor -> Array (one buffer per distinct input tensor)
        self.outputs = []         # Arrays from output_tensor, in declaration order
        self.returned = None
        self.assigns = _count_assignments(self.fdef)
        self.node = self.fdef
        self.binds = {}           # thread tag -> IterVar, one per tag (TVM's hybrid binds)

    # --- errors -------------------------------------------------------------------------------
    def where(self, node=None):
        node = node or self.node
        return f"hybrid script {self.fname}, line {self.line0 + getattr(node, 'lineno', 1)}"

    def fail(self, msg, node=None):
        raise TepadError(f"{self.where(node)}: {msg}")

    # --- entry --------------------------------------------------------------------------------
    def parse(self):
        params = [a.arg for a in self.fdef.args.args]
        if len(params) != len(self.args) or self.fdef.args.vararg or self.fdef.args.kwarg:
            self.fail(f"takes {len(params)} arguments ({', '.join(params)}), called with "
                      f"{len(self.args)}")
        self.frames.append(_Frame())
        for name, a in zip(params, self.args):
            self.frames[-1].names[name] = ("value", self._argument(name, a))
        body = self.block(self.fdef.body, top=True)
        body = self._launch(self._close_frame(body))
        if self.returned is None:
            self.fail("no `return` of its output tensors (end the function with `return c` "
                      "or `return c, d`)")
        missing = [o.name for o in self.outputs if o not in self.returned]
        if missing:
            self.fail(f"output_tensor {', '.join(missing)} is not returned")
        inputs = list(self.inputs)
        op = HybridOp(self.fname, "HybridOp", None, inputs,
                      [self.inputs[t].buffer for t in inputs],
                      [o.buffer for o in self.returned], body, source=self.source,
                      axis=outer_loop_axes(body))
        outs = [op.output(k) for k in range(op.num_outputs)]
        return outs[0] if len(outs) == 1 else outs

    def _launch(self, body):
        """``body`` inside one launch of every thread tag the script binds, as TVM's hybrid
        parser does: each ``bind`` loop is that launch's thread index, the script's other
        statements (and its allocations) run in every thread. Block indices enclose thread
        indices."""
        order = sorted(self.binds.items(), key=lambda kv: (not kv[0].startswith("blockIdx"),
                                                           kv[0]))
        for _, iv in reversed(order):
            body = AttrStmt(iv, "thread_extent", iv.dom.extent, body)
        return body

    def _argument(self, name, a):
        if isinstance(a, Tensor):
            if a not in self.inputs:
                buf = Buffer([convert(d) for d in a.shape], a.dtype, a.op.name)
                self.inputs[a] = Array(name, buf, a.shape, a.dtype, "input")
            return self.inputs[a]
        if isinstance(a, (list, tuple)):
            return [self._argument(f"{name}[{k}]", x) for k, x in enumerate(a)]
        if isinstance(a, (PrimExpr, bool, int, float, np.generic)):
            return literal(a)
        if hasattr(a, "as_expr"):
            return a.as_expr()
        self.fail(f"argument {name} is a {type(a).__name__}; a hybrid script is called with "
                  "te.Tensors, expressions (te.var) and numbers (or all numpy arrays to run "
                  "it as Python)")

    # --- scopes -------------------------------------------------------------------------------
    def lookup(self, name, node):
        for fr in reversed(self.frames):
            if name in fr.names:
                return fr.names[name]
        if name in self.env:
            v = self.env[name]
            if isinstance(v, str):
                return ("value", v)
            c = constant(v)
            if c is not None:
                return ("value", c)
            self.fail(f"name {name} refers to a {type(v).__name__}; only numbers, strings, "
                      "expressions, the arguments and the names assigned in the body are "
                      "usable", node)
        self.fail(f"unknown name {name}", node)

    def _close_frame(self, body):
        fr = self.frames.pop()
        for data, dtype, extents, scope in reversed(fr.allocs):
            body = Allocate(data, dtype, extents, const(1, "bool"), body, {"scope": scope})
        return body

    def _declare_array(self, name, shape, dtype, scope, node):
        shape = [convert(d) for d in shape]
        total = convert(1)
        for d in shape:
            total = total * d
        data = Var(name, "handle")
        buf = Buffer([total], dtype, name, data=data, scope=scope)
        self.frames[-1].allocs.append((data, dtype, [total], scope))
        return Array(name, buf, shape, dtype, "temp", flat=True)

    # --- statements ---------------------------------------------------------------------------
    def block(self, stmts, top=False):
        out = []
        for k, s in enumerate(stmts):
            self.node = s
            if k == 0 and isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and \
                    isinstance(s.value.value, str):
                continue        # a docstring
            if self.returned is not None:
                self.fail("statements after `return`", s)
            if isinstance(s, ast.Assign) and self._is_let(s):
                name = s.targets[0].id
                value = self.expr(s.value)
                if not isinstance(value, PrimExpr) or isinstance(value, ConstExpr):
                    self.frames[-1].names[name] = ("value", value)   # TVM's ConstVar
                    continue
                var = Var(name, value.dtype)
                self.frames[-1].names[name] = ("value", var)
                rest = self.block(stmts[k + 1:], top)
                return seq(*out, LetStmt(var, value, rest))
            if isinstance(s, ast.Return):
                if not top:
                    self.fail("`return` inside a loop or branch; return the outputs at the "
                              "end of the function", s)
                self._return(s)
                continue
            st = self.stmt(s)
            if st is not None:
                out.append(st)
        return seq(*out)

    def _is_let(self, s):
        if len(s.targets) != 1 or not isinstance(s.targets[0], ast.Name) or \
                self._script_called(s.value) is not None:
            return False
        name = s.targets[0].id
        if isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name) and \
                s.value.func.id in ("output_tensor", "allocate"):
            return False
        return self.assigns.get(name) == (1, True) and not any(
            name in fr.names for fr in self.frames)

    def stmt(self, s):
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            self.fail(f"`{type(s).__name__}` statements are not part of hybrid script", s)
        return method(s)

    def stmt_Pass(self, s):
        return None

    def stmt_Expr(self, s):
        v = self.expr(s.value)
        if isinstance(v, PrimExpr):
            return Evaluate(v)
        return None

    def stmt_Assign(self, s):
        if len(s.targets) != 1:
            self.fail("chained assignment (a = b = ...); assign one target", s)
        t = s.targets[0]
        script = self._script_called(s.value)
        if script is not None:
            names = t.elts if isinstance(t, ast.Tuple) else [t]
            if not all(isinstance(n, ast.Name) for n in names):
                self.fail("bind the outputs of a hybrid script call to names", s)
            return self._inline_script(script, [n.id for n in names], s.value)
        if isinstance(t, ast.Name):
            call = s.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
                    call.func.id in ("output_tensor", "allocate"):
                return self._declare(t.id, call)
            return self._assign_scalar(t.id, self.expr(s.value), s)
        if isinstance(t, ast.Subscript):
            arr, idx = self.target(t)
            return self._store(arr, idx, self.expr(s.value), s)
        self.fail("only a name or an element (x[i, j]) can be assigned", s)

    def stmt_AugAssign(self, s):
        op = _BINOPS.get(type(s.op))
        if op is None:
            self.fail(f"augmented assignment {type(s.op).__name__} is not supported", s)
        if isinstance(s.target, ast.Name):
            cur = self.expr(s.target)
            return self._assign_scalar(s.target.id, op(cur, self.expr(s.value)), s)
        arr, idx = self.target(s.target)
        cur = BufferLoad(arr.buffer, arr.index(idx, self.where(s)))
        return self._store(arr, idx, op(cur, self.expr(s.value)), s)

    def _script_called(self, e):
        """The Python function of the hybrid script ``e`` calls, or None."""
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                not any(e.func.id in fr.names for fr in self.frames):
            return getattr(self.env.get(e.func.id), "hybrid_function", None)
        return None

    def _inline_script(self, fn, names, call):
        """``c = other_script(args)``: the other script parsed for these arguments and its
        body inlined here (as TVM does), its outputs temporaries named ``names``."""
        if call.keywords:
            self.fail(f"{fn.__name__}: pass the script's arguments by position", call)
        args, stand_in = [], {}
        for a in (self.expr(x) for x in call.args):
            if isinstance(a, Array):
                t = placeholder([d for d in a.shape], a.dtype, name=a.name)
                stand_in[t] = a
                a = t
            elif isinstance(a, list) and any(isinstance(x, Array) for x in a):
                self.fail(f"{fn.__name__}: a list of arrays cannot be passed to a script "
                          "called from a script", call)
            args.append(a)
        outs = HybridParser(fn, args).parse()
        outs = outs if isinstance(outs, list) else [outs]
        op = outs[0].op
        if len(names) != len(outs):
            self.fail(f"{fn.__name__} returns {len(outs)} tensor(s), assigned to "
                      f"{len(names)} name(s)", call)
        amap = {}
        for t, buf in zip(op.inputs, op.input_placeholders):
            amap[buf] = stand_in[t] if t in stand_in else self._argument(t.name, t)
        for name, t, buf in zip(names, outs, op.output_placeholders):
            if any(name in fr.names for fr in self.frames):
                self.fail(f"{name} is already defined; a script's output gets a new name",
                          call)
            arr = self._declare_array(name, t.shape, t.dtype, "global", call)
            self.frames[-1].names[name] = ("value", arr)
            amap[buf] = arr
        return _Rebind(amap, self.where(call)).visit(op.body)

    def _declare(self, name, call):
        if any(name in fr.names for fr in self.frames):
            self.fail(f"{name} is already defined; an array is declared once", call)
        kind = call.func.id
        args = [self.expr(a) for a in call.args]
        kw = {k.arg: self.expr(k.value) for k in call.keywords}
        shape = kw.pop("shape", args[0] if args else None)
        dtype = kw.pop("dtype", args[1] if len(args) > 1 else "float32")
        scope = kw.pop("scope", args[2] if len(args) > 2 else "global")
        if kw or len(args) > 3:
            self.fail(f"{kind}(shape, dtype, scope) got unexpected arguments", call)
        if isinstance(shape, PrimExpr):
            shape = [shape]
        if not isinstance(shape, (list, tuple)) or not shape or \
                not all(isinstance(d, PrimExpr) and dt.is_int(d.dtype) for d in shape):
            self.fail(f"{kind}: the shape must be a tuple of integer expressions, got "
                      f"{shape!r}", call)
        if not isinstance(dtype, str):
            self.fail(f"{kind}: the dtype must be a string, got {dtype!r}", call)
        dtype = dt.canonical(dtype)
        if kind == "output_tensor":
            if len(args) > 2:
                self.fail("output_tensor takes no scope (an output lives in global memory)",
                          call)
            if len(self.frames) > 1:
                self.fail(f"output_tensor {name} must be declared in the function body, "
                          "not inside a loop", call)
            arr = Array(name, Buffer(list(shape), dtype, name), shape, dtype, "output")
            self.outputs.append(arr)
            self.frames[0].names[name] = ("value", arr)
        else:
            arr = self._declare_array(name, shape, dtype, scope, call)
            self.frames[-1].names[name] = ("value", arr)
        return None

    def _assign_scalar(self, name, value, node):
        if isinstance(value, (Array, list, str)):
            self.fail(f"{name} = ...: only expressions are assigned to a name", node)
        value = convert(value)
        sym = None
        for fr in reversed(self.frames):
            if name in fr.names:
                sym = fr.names[name]
                break
        if sym is None:
            arr = self._declare_array(name, [1], value.dtype, "local", node)
            arr.kind = "scalar"
            self.frames[-1].names[name] = ("scalar", arr)
            sym = self.frames[-1].names[name]
        kind, arr = sym
        if kind != "scalar":
            what = "loop variable" if kind == "loop" else "argument, array or constant"
            self.fail(f"{name} is a {what} and cannot be assigned", node)
        return self._store(arr, [const(0)], value, node)

    def _store(self, arr, idx, value, node):
        if not isinstance(arr, Array):
            self.fail("only arrays (inputs, outputs, allocations) are stored to", node)
        if arr.kind == "input":
            self.fail(f"{arr.name} is an input of the script and is read-only", node)
        value = convert(value)
        if value.dtype != arr.dtype:
            value = cast(arr.dtype, value)
        return BufferStore(arr.buffer, value, arr.index(idx, self.where(node)))

    def _return(self, s):
        v = s.value
        elts = v.elts if isinstance(v, ast.Tuple) else [v]
        outs = []
        for e in elts:
            if not isinstance(e, ast.Name):
                self.fail("return the output tensors by name (`return c` or `return c, d`)", s)
            sym = self.lookup(e.id, s)
            arr = sym[1]
            if not isinstance(arr, Array) or arr.kind != "output":
                self.fail(f"returns {e.id}, which is not an output_tensor", s)
            if arr in outs:
                self.fail(f"returns {e.id} twice", s)
            outs.append(arr)
        self.returned = outs

    def stmt_For(self, s):
        if s.orelse:
            self.fail("for ... else is not supported", s)
        if not isinstance(s.target, ast.Name):
            self.fail("the loop variable must be a name", s)
        it = s.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
                it.func.id in ("range", "unroll", "parallel", "vectorize", "const_range",
                               "bind")):
            self.fail("loops iterate over range / unroll / parallel / vectorize / const_range "
                      "/ bind", s)
        kind = it.func.id
        args = [self.expr(a) for a in it.args]
        name = s.target.id
        if kind == "bind":
            if len(args) != 2 or not isinstance(args[0], str):
                self.fail('bind takes a thread tag and an extent: bind("threadIdx.x", n)', s)
            ext = convert(args[1])
            iv = self.binds.get(args[0])
            if iv is None:
                iv = IterVar(Range.from_min_extent(0, ext), Var(name, ext.dtype),
                             IterVarType.ThreadIndex, args[0])
                self.binds[args[0]] = iv
            elif not self.analyzer.can_prove_equal(iv.dom.extent, ext):
                self.fail(f"{args[0]} is bound with extent {iv.dom.extent!r} and {ext!r}; "
                          "every bind of one thread tag takes the same extent", s)
            # the launch wraps the whole script (``_launch``): the loop is the thread index
            return self._loop_body(name, iv.var, s.body)
        if len(args) == 1:
            lo, hi = const(0), convert(args[0])
        elif len(args) == 2:
            lo, hi = convert(args[0]), convert(args[1])
        else:
            self.fail(f"{kind} takes 1 or 2 arguments (extent, or begin and end)", s)
        if not dt.is_int(lo.dtype) or not dt.is_int(hi.dtype):
            self.fail(f"{kind} bounds must be integers, got {lo!r} and {hi!r}", s)
        ext = self.analyzer.simplify(hi - lo) if not _is_zero(lo) else hi
        if kind == "const_range":
            lo_c, ext_c = self.analyzer.simplify(lo), self.analyzer.simplify(ext)
            if not isinstance(lo_c, IntImm) or not isinstance(ext_c, IntImm):
                self.fail("const_range needs constant bounds (it is unrolled by the parser)", s)
            bodies = []
            for k in range(lo_c.value, lo_c.value + ext_c.value):
                bodies.append(self._loop_body(name, const(k), s.body))
            return seq(*bodies)
        var = Var(name, ext.dtype)
        index = var if _is_zero(lo) else var + lo
        body = self._loop_body(name, index, s.body)
        return For(var, const(0, ext.dtype), ext, LOOP_KINDS[kind], body)

    def _loop_body(self, name, index, stmts):
        self.frames.append(_Frame())
        self.frames[-1].names[name] = ("loop", index)
        body = self.block(stmts)
        return self._close_frame(body)

    def stmt_While(self, s):
        if s.orelse:
            self.fail("while ... else is not supported", s)
        cond = self._cond(self.expr(s.test), s)
        self.frames.append(_Frame())
        body = self._close_frame(self.block(s.body))
        return While(cond, body)

    def stmt_If(self, s):
        cond = self._cond(self.expr(s.test), s)
        c = self.analyzer.simplify(cond)
        if isinstance(c, ConstExpr):        # proven: keep only the branch taken (as TVM)
            taken = s.body if c.value else s.orelse
            return self.block(taken) if taken else None
        then = self.block(s.body)
        other = self.block(s.orelse) if s.orelse else None
        return IfThenElse(cond, then, other)

    def stmt_Assert(self, s):
        cond = self._cond(self.expr(s.test), s)
        msg = self.expr(s.msg) if s.msg is not None else "assertion failed"
        if not isinstance(msg, str):
            self.fail("an assert message must be a string", s)
        return AssertStmt(cond, StringImm(msg), Evaluate(0))

    def _cond(self, c, node):
        if isinstance(c, (bool, np.bool_)):
            return const(bool(c))
        if not isinstance(c, PrimExpr):
            self.fail(f"a condition must be an expression, got {c!r}", node)
        if not dt.is_bool(c.dtype):
            c = c != const(0, c.dtype)
        return c

    # --- expressions --------------------------------------------------------------------------
    def expr(self, e):
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            self.fail(f"`{type(e).__name__}` expressions are not part of hybrid script", e)
        return method(e)

    def expr_Constant(self, e):
        if isinstance(e.value, str):
            return e.value
        if e.value is None or not isinstance(e.value, (bool, int, float)):
            self.fail(f"constant {e.value!r} is not a number or a string", e)
        return literal(e.value)

    def expr_Name(self, e):
        if e.id in ("True", "False"):
            return const(e.id == "True")
        kind, v = self.lookup(e.id, e)
        if kind == "scalar":
            return BufferLoad(v.buffer, [const(0)])
        return v

    def expr_Tuple(self, e):
        return tuple(self.expr(x) for x in e.elts)

    expr_List = expr_Tuple

    def expr_Attribute(self, e):
        v = self.expr(e.value)
        if isinstance(v, Array) and e.attr in ("shape", "dtype", "name"):
            return getattr(v, e.attr)
        if isinstance(v, PrimExpr) and e.attr == "dtype":
            return v.dtype
        self.fail(f"attribute .{e.attr} is not available here (arrays have .shape, .dtype)", e)

    def target(self, t):
        arr = self.expr(t.value)
        idx = self.expr(t.slice)
        idx = list(idx) if isinstance(idx, tuple) else [idx]
        if not isinstance(arr, Array):
            self.fail("only arrays are indexed in an assignment", t)
        return arr, idx

    def expr_Subscript(self, e):
        v = self.expr(e.value)
        idx = self.expr(e.slice)
        if isinstance(v, (list, tuple)):          # b[i, j] of a nested list is b[i][j]
            for i in (idx if isinstance(idx, tuple) else (idx,)):
                k = self.analyzer.simplify(convert(i)) if isinstance(i, PrimExpr) or \
                    isinstance(i, int) else None
                if not isinstance(k, IntImm) or not isinstance(v, (list, tuple)) or \
                        not -len(v) <= k.value < len(v):
                    self.fail("a tuple (a shape, a list argument) is indexed with constants "
                              "within its length", e)
                v = v[k.value]
            return v
        if not isinstance(v, Array):
            self.fail("only arrays, shapes and list arguments are indexed", e)
        idx = list(idx) if isinstance(idx, tuple) else [idx]
        return BufferLoad(v.buffer, v.index(idx, self.where(e)))

    def expr_BinOp(self, e):
        a, b = self.expr(e.left), self.expr(e.right)
        op = _BINOPS.get(type(e.op))
        if op is None:
            if isinstance(e.op, (ast.BitAnd, ast.BitOr)) and _is_bool(a) and _is_bool(b):
                return (logical_and if isinstance(e.op, ast.BitAnd) else logical_or)(a, b)
            self.fail(f"operator {type(e.op).__name__} is not supported (tepad's TIR has no "
                      "bitwise operators)", e)
        self._scalars(e, a, b)
        return op(a, b)

    def _scalars(self, e, *vals):
        for v in vals:
            if not isinstance(v, PrimExpr):
                self.fail(f"operand {v!r} is not a scalar expression", e)

    def expr_UnaryOp(self, e):
        v = self.expr(e.operand)
        self._scalars(e, v)
        if isinstance(e.op, ast.USub):
            return -v
        if isinstance(e.op, ast.UAdd):
            return v
        if isinstance(e.op, ast.Not):
            return logical_not(self._cond(v, e))
        self.fail(f"unary operator {type(e.op).__name__} is not supported", e)

    def expr_BoolOp(self, e):
        vals = [self._cond(self.expr(v), e) for v in e.values]
        return tirop.all(*vals) if isinstance(e.op, ast.And) else tirop.any(*vals)

    def expr_Compare(self, e):
        vals = [self.expr(e.left)] + [self.expr(c) for c in e.comparators]
        self._scalars(e, *vals)
        out = []
        for op, a, b in zip(e.ops, vals, vals[1:]):
            f = _CMPOPS.get(type(op))
            if f is None:
                self.fail(f"comparison {type(op).__name__} is not supported", e)
            out.append(f(a, b))
        return out[0] if len(out) == 1 else tirop.all(*out)

    def expr_IfExp(self, e):
        cond = self._cond(self.expr(e.test), e)
        a, b = self.expr(e.body), self.expr(e.orelse)
        self._scalars(e, a, b)
        return tirop.if_then_else(cond, a, b)

    def expr_Call(self, e):
        return call_intrinsic(self, e)


class _Rebind(Mutator):
    """Accesses of an inlined script's buffers moved to the caller's arrays."""

    def __init__(self, amap, where):
        self.amap, self.where = amap, where

    def visit_BufferLoad(self, e):
        idx = [self.visit(i) for i in e.indices]
        arr = self.amap.get(e.buffer)
        if arr is None:
            return BufferLoad(e.buffer, idx)
        return BufferLoad(arr.buffer, arr.index(idx, self.where))

    def visit_BufferStore(self, s):
        idx = [self.visit(i) for i in s.indices]
        value = self.visit(s.value)
        arr = self.amap.get(s.buffer)
        if arr is None:
            return BufferStore(s.buffer, value, idx)
        if arr.kind == "input":
            raise TepadError(f"{self.where}: the script called stores into {arr.name}, an "
                             "input of the caller (read-only)")
        return BufferStore(arr.buffer, value, arr.index(idx, self.where))


def _count_assignments(fdef):
    """``{name: (number of assignments, first assignment directly in a loop or function
    body)}``; an augmented assignment counts twice (it reads the name)."""
    counts = {}

    def walk(stmts, direct):
        for s in stmts:
            if isinstance(s, ast.Assign):
                for t in s.targets:
                    if isinstance(t, ast.Name):
                        n, d = counts.get(t.id, (0, direct))
                        counts[t.id] = (n + 1, d if n else direct)
            elif isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                n, d = counts.get(s.target.id, (0, False))
                counts[s.target.id] = (n + 2, d)
            if isinstance(s, (ast.For, ast.While)):
                walk(s.body, isinstance(s, ast.For))
                walk(s.orelse, False)
            elif isinstance(s, ast.If):
                walk(s.body, False)
                walk(s.orelse, False)
            elif isinstance(s, (ast.With, ast.Try)):
                walk(s.body, False)
    walk(fdef.body, True)
    return counts


def _is_zero(e):
    return isinstance(e, IntImm) and e.value == 0


def _is_bool(v):
    return isinstance(v, PrimExpr) and dt.is_bool(v.dtype)


def parse(func, args):
    """The output tensor(s) of the HybridOp that ``func`` describes for ``args``."""
    return HybridParser(func, args).parse()


__all__ = ["HybridParser", "Array", "parse", "LOOP_KINDS"]
