"""TVMScript-like text for any expression, statement or PrimFunc.

Names are made unique per printed tree (a second, different var called ``i`` prints as ``i_1``),
so the output is deterministic and fit for test diffs.

The IR classes' text forms call it: ``str()`` and ``script()`` of any node and ``repr()`` of
statements and functions are ``to_script``, ``repr()`` of an expression is ``expr_to_str``.
"""
from __future__ import annotations

from . import expr as E
from . import stmt as S
from .function import PrimFunc
from .reduce import Reduce

_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "//": 6, "%": 6,
         "/": 6, "neg": 7, "atom": 9}


class _Names:
    def __init__(self, unique: bool):
        self.unique = unique
        self.by_id: dict[int, str] = {}
        self.used: dict[str, int] = {}

    def get(self, obj, base: str) -> str:
        base = base.replace(".", "_")       # `i.outer` -> `i_outer`: valid Python names
        if not self.unique:
            return base
        key = id(obj)
        if key in self.by_id:
            return self.by_id[key]
        name = base or "v"
        if name in self.used:
            n = self.used[name]
            while f"{name}_{n}" in self.used:
                n += 1
            self.used[name] = n + 1
            name = f"{name}_{n}"
        self.used.setdefault(name, 1)
        self.by_id[key] = name
        return name


class _Printer:
    def __init__(self, unique=True):
        self.names = _Names(unique)
        self.lines: list[str] = []

    # --- expressions -----------------------------------------------------------------------
    def e(self, x) -> str:
        return self._e(x)[0]

    def _obj_name(self, obj) -> str:
        if isinstance(obj, E.Var):
            return self.names.get(obj, obj.name)
        if hasattr(obj, "data") and hasattr(obj, "shape"):      # Buffer
            # Views of one storage (a buffer and its flattened form, an Allocate's var and the
            # buffer over it) print under one name when they carry the storage's name.
            data = obj.data
            key = data if isinstance(data, E.Var) and data.name == obj.name else obj
            return self.names.get(key, obj.name)
        name = getattr(obj, "name", None)
        if name is not None:
            return self.names.get(obj, name)
        return repr(obj)

    def _e(self, x):
        """Return (text, precedence)."""
        if isinstance(x, (int, float, bool)):
            return repr(x), _PREC["atom"]
        if isinstance(x, E.IntImm):
            if x.dtype == "bool":
                return ("True" if x.value else "False"), _PREC["atom"]
            if x.dtype == "int32":
                return str(x.value), (_PREC["atom"] if x.value >= 0 else _PREC["neg"])
            return f"T.{x.dtype}({x.value})", _PREC["atom"]
        if isinstance(x, E.FloatImm):
            return f"T.{x.dtype}({x.value!r})", _PREC["atom"]
        if isinstance(x, E.StringImm):
            return _double_quoted(x.value), _PREC["atom"]
        if isinstance(x, E.Var):
            return self._obj_name(x), _PREC["atom"]
        if isinstance(x, (E.Add, E.Sub, E.Mul, E.FloorDiv, E.FloorMod)) or \
                (isinstance(x, E.Div) and E.dt.is_float(x.dtype)):
            p = _PREC[x.symbol]
            a = self._paren(x.a, p, False)
            b = self._paren(x.b, p, True)
            return f"{a} {x.symbol} {b}", p
        if isinstance(x, E.Div):
            return f"T.truncdiv({self.e(x.a)}, {self.e(x.b)})", _PREC["atom"]
        if isinstance(x, E.Mod):
            return f"T.truncmod({self.e(x.a)}, {self.e(x.b)})", _PREC["atom"]
        if isinstance(x, E.Min):
            return f"T.min({self.e(x.a)}, {self.e(x.b)})", _PREC["atom"]
        if isinstance(x, E.Max):
            return f"T.max({self.e(x.a)}, {self.e(x.b)})", _PREC["atom"]
        if isinstance(x, E.CmpOp):
            p = _PREC["cmp"]
            return f"{self._paren(x.a, p, True)} {x.symbol} {self._paren(x.b, p, True)}", p
        if isinstance(x, E.And):
            p = _PREC["and"]
            return f"{self._paren(x.a, p, False)} and {self._paren(x.b, p, True)}", p
        if isinstance(x, E.Or):
            p = _PREC["or"]
            return f"{self._paren(x.a, p, False)} or {self._paren(x.b, p, True)}", p
        if isinstance(x, E.Not):
            return f"not {self._paren(x.a, _PREC['not'], False)}", _PREC["not"]
        if isinstance(x, E.Select):
            return (f"T.Select({self.e(x.condition)}, {self.e(x.true_value)}, "
                    f"{self.e(x.false_value)})"), _PREC["atom"]
        if isinstance(x, E.Cast):
            return f"T.Cast({x.dtype!r}, {self.e(x.value)})", _PREC["atom"]
        if isinstance(x, E.Call):
            name = x.op[4:] if x.op.startswith("tir.") else x.op
            args = ", ".join(self.e(a) for a in x.args)
            if name in ("undef", "type_annotation"):
                return f"T.{name}({x.dtype!r})", _PREC["atom"]
            return f"T.{name}({args})", _PREC["atom"]
        if isinstance(x, (E.ProducerLoad, E.BufferLoad)):
            obj = x.producer if isinstance(x, E.ProducerLoad) else x.buffer
            idx = ", ".join(self.e(i) for i in x.indices)
            return f"{self._obj_name(obj)}[{idx}]", _PREC["atom"]
        if isinstance(x, E.Ramp):
            return f"T.Ramp({self.e(x.base)}, {self.e(x.stride)}, {x.lanes})", _PREC["atom"]
        if isinstance(x, E.Broadcast):
            return f"T.Broadcast({self.e(x.value)}, {x.lanes})", _PREC["atom"]
        if isinstance(x, E.Shuffle):
            vecs = ", ".join(self.e(v) for v in x.vectors)
            idx = ", ".join(str(i.value) for i in x.indices)
            return f"T.Shuffle([{vecs}], [{idx}])", _PREC["atom"]
        if isinstance(x, E.Let):
            return (f"T.Let({self.e(x.body)}, where={{{self.e(x.var)}: {self.e(x.value)}}})",
                    _PREC["atom"])
        if isinstance(x, Reduce):
            axes = ", ".join(self._obj_name(a.var) for a in x.axis)
            src = ", ".join(self.e(v) for v in x.source)
            cond = "" if (isinstance(x.condition, E.IntImm) and x.condition.value) else \
                f", where={self.e(x.condition)}"
            return f"T.reduce({x.combiner.name}, {src}, axis=[{axes}]{cond})", _PREC["atom"]
        if isinstance(x, E.Range):
            return f"T.Range({self.e(x.min)}, {self.e(x.min + x.extent)})", _PREC["atom"]
        return repr(x), _PREC["atom"]

    def _paren(self, x, p, right):
        s, q = self._e(x)
        if q < p or (right and q == p):
            return f"({s})"
        return s

    # --- statements ------------------------------------------------------------------------
    def line(self, ind, text):
        self.lines.append("    " * ind + text)

    def _region(self, bounds):
        parts = []
        for r in bounds:
            lo = self.e(r.min)
            hi = self.e(r.min + r.extent)
            parts.append(f"{lo}:{hi}")
        return ", ".join(parts)

    def s(self, x, ind):
        if isinstance(x, S.SeqStmt):
            for c in x.seq:
                self.s(c, ind)
        elif isinstance(x, S.For):
            v = self.e(x.loop_var)
            mn, ext = x.min, x.extent
            if x.kind == S.ForKind.SERIAL:
                if isinstance(mn, E.IntImm) and mn.value == 0:
                    rng = f"range({self.e(ext)})"
                else:
                    rng = f"range({self.e(mn)}, {self.e(mn + ext)})"
            else:
                fn = {"parallel": "parallel", "vectorized": "vectorized", "unroll": "unroll",
                      "thread_binding": "thread_binding"}[x.kind.value]
                if isinstance(mn, E.IntImm) and mn.value == 0:
                    rng = f"T.{fn}({self.e(ext)})"
                else:
                    rng = f"T.{fn}({self.e(mn)}, {self.e(mn + ext)})"
            self.line(ind, f"for {v} in {rng}:")
            self.s(x.body, ind + 1)
        elif isinstance(x, S.IfThenElse):
            self.line(ind, f"if {self.e(x.condition)}:")
            self.s(x.then_case, ind + 1)
            if x.else_case is not None:
                self.line(ind, "else:")
                self.s(x.else_case, ind + 1)
        elif isinstance(x, S.While):
            self.line(ind, f"while {self.e(x.condition)}:")
            self.s(x.body, ind + 1)
        elif isinstance(x, S.ProducerStore):
            idx = ", ".join(self.e(i) for i in x.indices)
            self.line(ind, f"{self._obj_name(x.producer)}[{idx}] = {self.e(x.value)}")
        elif isinstance(x, S.BufferStore):
            idx = ", ".join(self.e(i) for i in x.indices)
            self.line(ind, f"{self._obj_name(x.buffer)}[{idx}] = {self.e(x.value)}")
        elif isinstance(x, (S.ProducerRealize, S.BufferRealize)):
            obj = x.producer if isinstance(x, S.ProducerRealize) else x.buffer
            extra = ""
            if not (isinstance(x.condition, E.IntImm) and x.condition.value):
                extra = f", condition={self.e(x.condition)}"
            scope = getattr(x, "storage_scope", None)
            if scope and scope != "global":
                extra += f", scope={scope!r}"
            self.line(ind, f"with T.realize({self._obj_name(obj)}[{self._region(x.bounds)}]"
                           f"{extra}):")
            self.s(x.body, ind + 1)
        elif isinstance(x, S.Allocate):
            ext = ", ".join(self.e(e) for e in x.extents)
            scope = x.annotations.get("scope", "global")
            self.line(ind, f"{self.e(x.buffer_var)} = T.allocate([{ext}], {x.dtype!r}, "
                           f"{scope!r})")
            self.s(x.body, ind)
        elif isinstance(x, S.AttrStmt) and x.attr_key == "thread_extent" and \
                isinstance(getattr(x.node, "var", None), E.Var):
            # a thread launch, as TVMScript writes it: the body follows at the same depth
            self.line(ind, f"{self._obj_name(x.node.var)} = T.launch_thread("
                           f"{x.node.thread_tag or x.node.var.name!r}, {self.e(x.value)})")
            self.s(x.body, ind)
        elif isinstance(x, S.AttrStmt):
            node = x.node
            if isinstance(node, E.PrimExpr):
                n = self.e(node)
            elif isinstance(node, str):
                n = repr(node)
            elif hasattr(node, "var") and hasattr(node, "dom"):   # IterVar
                n = self._obj_name(node.var)
            else:
                n = self._obj_name(node)
            self.line(ind, f"with T.attr({n}, {x.attr_key!r}, {self.e(x.value)}):")
            self.s(x.body, ind + 1)
        elif isinstance(x, S.LetStmt):
            self.line(ind, f"{self.e(x.var)}: T.{x.var.dtype} = {self.e(x.value)}")
            self.s(x.body, ind)
        elif isinstance(x, S.Evaluate):
            self.line(ind, f"T.evaluate({self.e(x.value)})")
        elif isinstance(x, S.AssertStmt):
            self.line(ind, f"assert {self.e(x.condition)}, {self.e(x.message)}")
            self.s(x.body, ind)
        elif isinstance(x, S.BlockRealize):
            self._block(x, ind)
        elif isinstance(x, S.Block):        # a block on its own (no realize around it)
            self._block(S.BlockRealize([v.var for v in x.iter_vars], True, x), ind)
        elif isinstance(x, S.Prefetch):
            self.line(ind, f"T.prefetch({self._obj_name(x.buffer)}[{self._region(x.bounds)}])")
        else:
            self.line(ind, repr(x))

    def buffer_region(self, r) -> str:
        """``A[v_i, 0:16]``: an extent-1 range prints as its index."""
        parts = []
        for rg in r.region:
            if isinstance(rg.extent, E.IntImm) and rg.extent.value == 1:
                parts.append(self.e(rg.min))
            else:
                parts.append(f"{self.e(rg.min)}:{self.e(rg.min + rg.extent)}")
        return f"{self._obj_name(r.buffer)}[{', '.join(parts)}]"

    def _alloc_buffer(self, buf, ind):
        shape = ", ".join(self.e(s) for s in buf.shape) + ("," if len(buf.shape) == 1 else "")
        self.line(ind, f"{self._obj_name(buf)} = T.alloc_buffer(({shape}), {buf.dtype!r})")

    _AXIS_KIND = {0: "spatial", 2: "reduce", 3: "scan", 4: "opaque"}

    def _block(self, realize, ind):
        """``with T.block("name"):`` with its axes, T.where, T.reads/T.writes, buffers,
        ``with T.init():`` and body, as TVMScript prints them; the root block (no iter vars,
        named "root") prints as a comment with its contents at the same depth."""
        b = realize.block
        if b.name_hint == "root" and not b.iter_vars:
            self.line(ind, '# with T.block("root"):')
            inner = ind
        else:
            self.line(ind, f'with T.block("{b.name_hint}"):')
            inner = ind + 1
            for iv, value in zip(b.iter_vars, realize.iter_values):
                kind = self._AXIS_KIND.get(int(iv.iter_type), "opaque")
                dom = iv.dom
                if isinstance(dom.min, E.IntImm) and dom.min.value == 0:
                    d = self.e(dom.extent)
                else:
                    d = f"({self.e(dom.min)}, {self.e(dom.min + dom.extent)})"
                self.line(inner, f"{self.e(iv.var)} = T.axis.{kind}({d}, {self.e(value)})")
            if not (isinstance(realize.predicate, E.IntImm) and realize.predicate.value):
                self.line(inner, f"T.where({self.e(realize.predicate)})")
            self.line(inner, f"T.reads({', '.join(self.buffer_region(r) for r in b.reads)})")
            self.line(inner, f"T.writes({', '.join(self.buffer_region(r) for r in b.writes)})")
        for buf in b.alloc_buffers:
            self._alloc_buffer(buf, inner)
        for m in b.match_buffers:
            self.line(inner, f"{self._obj_name(m.buffer)} = T.match_buffer("
                             f"{self.buffer_region(m.source)})")
        if b.annotations:
            self.line(inner, f"T.block_attr({_fmt_attrs(b.annotations)})")
        if b.init is not None:
            self.line(inner, "with T.init():")
            self.s(b.init, inner + 1)
        self.s(b.body, inner)

    def func(self, f: PrimFunc):
        params = []
        for p in f.params:
            buf = f.buffer_map.get(p)
            if buf is not None:
                shape = ", ".join(self.e(s) for s in buf.shape)
                if len(buf.shape) == 1:
                    shape += ","
                sep = f", axis_separators={list(buf.axis_separators)}" \
                    if buf.axis_separators else ""
                params.append(f"{self._obj_name(buf)}: T.Buffer(({shape}), {buf.dtype!r}{sep})")
            else:
                params.append(f"{self.e(p)}: T.{p.dtype}")
        self.line(0, "@T.prim_func")
        self.line(0, f"def {f.name}({', '.join(params)}):")
        attrs = {k: v for k, v in f.attrs.items() if k != "global_symbol"}
        if attrs:
            self.line(1, f"T.func_attr({_fmt_attrs(attrs)})")
        self.s(f.body, 1)


def _double_quoted(text: str) -> str:
    """``text`` as a double-quoted Python literal, as TVMScript prints a StringImm."""
    r = repr(text)
    if r.startswith("'") and '"' not in text:
        return '"' + r[1:-1].replace("\\'", "'") + '"'
    return r


def _fmt_attrs(attrs):
    parts = []
    for k, v in attrs.items():
        parts.append(f"{k!r}: {v!r}" if not isinstance(v, dict) else f"{k!r}: {{...}}")
    return "{" + ", ".join(parts) + "}"


def to_script(node) -> str:
    """Render a PrimFunc, Stmt or expression as TVMScript-like text."""
    p = _Printer()
    if isinstance(node, S.BufferRegion):
        return p.buffer_region(node)
    if isinstance(node, PrimFunc):
        p.func(node)
    elif isinstance(node, S.Stmt):
        p.s(node, 0)
    else:
        return p.e(node)
    return "\n".join(p.lines)


def expr_to_str(x) -> str:
    return _Printer(unique=False).e(x)

