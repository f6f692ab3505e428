"""``tir.ir_builder``: build TIR statements imperatively (TVM's ``tvm.tir.ir_builder``).

::

    ib = tir.ir_builder.create()
    A = ib.buffer_ptr(buf)                       # element access through a buffer
    t = ib.allocate("float32", (4,), name="t")   # an Allocate around what follows
    with ib.for_range(0, n, name="i", kind="parallel") as i:
        with ib.if_scope(i % 2 == 0):
            A[i] = A[i] + 1.0
        with ib.else_scope():
            A[i] = t[0]
    stmt = ib.get()

Statements are tepad's own (``For``, ``IfThenElse``, ``While``, ``BufferStore``, ``Allocate``,
``LetStmt``, ``AttrStmt``, ``Evaluate``). A ``BufferVar`` (what ``pointer``, ``buffer_ptr``
and ``allocate`` return) reads and writes one flat buffer: a tuple index is linearized with
the shape it was made with, and a vector content type (``"float32x4"``) reads ``lanes``
consecutive elements at ``index * lanes``.
"""
from __future__ import annotations

from ..errors import TepadError, warn_deprecated
from . import dtype as dt
from .buffer import Buffer
from .expr import BufferLoad, IntImm, PrimExpr, Ramp, StringImm, Var, const, convert
from .op import assume as _assume, likely as _likely
from .stmt import (Allocate, AttrStmt, BufferStore, Evaluate, For, ForKind, IfThenElse,
                   LetStmt, SeqStmt, Stmt, While)

# The extent given to a raw pointer's buffer (``ib.pointer``): its size is not known.
UNKNOWN_EXTENT = 2 ** 31 - 1

_KINDS = {"serial": ForKind.SERIAL, "parallel": ForKind.PARALLEL,
          "vectorize": ForKind.VECTORIZED, "vectorized": ForKind.VECTORIZED,
          "unroll": ForKind.UNROLLED}


class WithScope:
    """A ``with`` block: ``__enter__`` returns ``value``; leaving it calls ``on_exit``."""

    def __init__(self, value, on_exit):
        self._value, self._on_exit = value, on_exit

    def __enter__(self):
        return self._value

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self._on_exit()


class BufferVar:
    """Element access to one buffer for an ``IRBuilder``: ``x[i]`` is a load, ``x[i] = v``
    emits a store. ``asobject()`` is the flat ``Buffer`` (``.data``: its pointer var)."""

    def __init__(self, builder, buffer: Buffer, shape, content_type: str):
        self._builder = builder
        self._buffer = buffer
        self._shape = shape
        self._content_type = content_type

    def asobject(self) -> Buffer:
        return self._buffer

    def asnode(self) -> Buffer:
        """TVM 0.6's name of ``asobject()`` (warns once)."""
        warn_deprecated("BufferVar.asnode", "BufferVar.asobject")
        return self._buffer

    @property
    def dtype(self) -> str:
        return self._content_type

    @property
    def data(self) -> Var:
        return self._buffer.data

    @property
    def param_var(self) -> Var:
        """What ``PrimFunc([x, ...], body)`` takes this as: its pointer (a handle Var)."""
        return self._buffer.data

    def _index(self, index) -> PrimExpr:
        if isinstance(index, tuple):
            if self._shape is None:
                if len(index) != 1:
                    raise TepadError(f"{self._buffer.name}: a pointer takes one (flat) index, "
                                     f"got {len(index)}")
                index = index[0]
            else:
                if len(index) != len(self._shape):
                    raise TepadError(f"{self._buffer.name}: {len(index)} indices for a shape "
                                     f"of {len(self._shape)} dimensions")
                flat, stride = convert(0), convert(1)
                for d, i in zip(reversed(self._shape), reversed(index)):
                    flat = flat + convert(i) * stride
                    stride = stride * convert(d)
                index = flat
        index = convert(index)
        lanes = dt.lanes(self._content_type)
        if lanes > 1:
            index = Ramp(index * lanes, const(1, index.dtype), lanes)
        return index

    def __getitem__(self, index) -> PrimExpr:
        return BufferLoad(self._buffer, [self._index(index)])

    def __setitem__(self, index, value):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and \
                dt.lanes(self._content_type) == 1:
            value = const(value, self._content_type)
        value = convert(value)
        if value.dtype != self._content_type:
            raise TepadError(f"store to {self._buffer.name}: value dtype {value.dtype} does not "
                             f"match its content type {self._content_type}")
        self._builder.emit(BufferStore(self._buffer, value, [self._index(index)]))


class IRBuilder:
    """Collects statements; ``get()`` returns them as one statement. Scopes (loops, ifs,
    allocations, lets, attributes) wrap everything emitted after them in their block."""

    def __init__(self):
        self._seq_stack = [[]]
        self._nidx = 0

    def _pop_seq(self) -> Stmt:
        seq = self._seq_stack.pop()
        if not seq or callable(seq[-1]):
            seq.append(Evaluate(0))
        out = [seq[-1]]
        for s in reversed(seq[:-1]):
            if callable(s):
                out = [s(out[0] if len(out) == 1 else SeqStmt(list(reversed(out))))]
            else:
                out.append(s)
        return out[0] if len(out) == 1 else SeqStmt(list(reversed(out)))

    def emit(self, stmt):
        """Append a statement (a Call is wrapped in ``Evaluate``), or a function that builds
        a statement around everything emitted after it in this scope."""
        if isinstance(stmt, PrimExpr):
            stmt = Evaluate(stmt)
        if not isinstance(stmt, Stmt) and not callable(stmt):
            raise TepadError(f"ir_builder.emit takes a Stmt, an expression or a callable, got "
                             f"{type(stmt).__name__}")
        self._seq_stack[-1].append(stmt)

    def scope_attr(self, node, attr_key, value):
        """An ``AttrStmt(node, attr_key, value)`` around the rest of this scope."""
        if isinstance(node, str):
            node = StringImm(node)
        if isinstance(value, str):
            value = StringImm(value)
        self.emit(lambda body: AttrStmt(node, attr_key, value, body))

    def for_range(self, begin, end, name="i", dtype=None, kind="serial", for_type=None):
        """``with ib.for_range(begin, end, name, kind=...) as i``: a loop over ``[begin, end)``
        (kind ``serial``, ``parallel``, ``vectorize`` or ``unroll``; ``for_type`` is its name
        before TVM 0.7). The loop variable is ``dtype``; by default int64 when ``begin`` or
        ``end`` is an int64 expression, else int32 (as TVM)."""
        if for_type is not None:
            warn_deprecated("ir_builder.for_range(for_type=...)", "for_range(kind=...)")
            kind = for_type
        if kind not in _KINDS:
            raise TepadError(f"for_range: unknown kind {kind!r}; use one of {sorted(_KINDS)}")
        if name == "i":
            name = chr(ord("i") + self._nidx) if self._nidx < 3 else f"i_{self._nidx - 3}"
            self._nidx += 1
        self._seq_stack.append([])
        begin, end = convert(begin), convert(end)
        if dtype is None:
            dtype = "int64" if "int64" in (begin.dtype, end.dtype) else "int32"
        loop_var = Var(name, dtype)
        extent = end if isinstance(begin, IntImm) and begin.value == 0 else end - begin

        def done():
            self.emit(For(loop_var, begin, extent, _KINDS[kind], self._pop_seq()))
        return WithScope(loop_var, done)

    def while_loop(self, condition):
        """``with ib.while_loop(cond):`` statements repeated while ``cond`` holds (a
        ``tir.While``; the condition is re-evaluated before every iteration, so it reads
        something the body stores, e.g. ``n[0] < 10``)."""
        self._seq_stack.append([])

        def done():
            self.emit(While(condition, self._pop_seq()))
        return WithScope(None, done)

    def if_scope(self, cond):
        """``with ib.if_scope(cond):`` statements run when ``cond`` holds."""
        self._seq_stack.append([])

        def done():
            self.emit(IfThenElse(cond, self._pop_seq(), None))
        return WithScope(None, done)

    def else_scope(self):
        """``with ib.else_scope():`` right after an ``if_scope``: its else branch."""
        seq = self._seq_stack[-1]
        prev = seq[-1] if seq else None
        if not isinstance(prev, IfThenElse) or prev.else_case is not None:
            raise TepadError("else_scope can only follow an if_scope")
        seq.pop()
        self._seq_stack.append([])

        def done():
            self.emit(IfThenElse(prev.condition, prev.then_case, self._pop_seq()))
        return WithScope(None, done)

    def new_scope(self):
        """``with ib.new_scope():`` a block that bounds the allocations and attributes in it."""
        self._seq_stack.append([])

        def done():
            self.emit(self._pop_seq())
        return WithScope(None, done)

    def let(self, var_name, value) -> Var:
        """A new Var bound to ``value`` for the rest of this scope."""
        value = convert(value)
        var = Var(var_name, value.dtype)
        self.emit(lambda body: LetStmt(var, value, body))
        return var

    def allocate(self, dtype, shape, name="buf", scope="") -> BufferVar:
        """Storage of ``shape`` elements of ``dtype`` for the rest of this scope."""
        dtype = dt.canonical(dtype)
        if not isinstance(shape, (list, tuple)):
            shape = [shape]
        shape = [convert(d) for d in shape]
        data = Var(name, "handle")
        total = convert(1)
        for d in shape:
            total = total * d
        buf = Buffer([total], dtype, name, data=data, scope=scope or "global")
        self.emit(lambda body: Allocate(data, dtype, shape, const(1, "bool"), body,
                                        {"scope": scope or "global"}))
        return BufferVar(self, buf, shape, dtype)

    def pointer(self, content_type, name="ptr", scope="") -> BufferVar:
        """A pointer to ``content_type`` elements (a ``handle`` Var, e.g. a PrimFunc
        parameter); its extent is unknown."""
        content_type = dt.canonical(content_type)
        scalar = dt.element_of(content_type)
        buf = Buffer([UNKNOWN_EXTENT], scalar, name, data=Var(name, "handle"),
                     scope=scope or "global")
        return BufferVar(self, buf, None, content_type)

    def buffer_ptr(self, buf: Buffer, shape=None) -> BufferVar:
        """Flat element access to ``buf``'s memory (indexed with ``shape``, default its own)."""
        if not isinstance(buf, Buffer):
            raise TepadError(f"buffer_ptr takes a Buffer, got {type(buf).__name__}")
        shape = list(buf.shape if shape is None else shape)
        total = convert(1)
        for d in shape:
            total = total * convert(d)
        # a vector-typed buffer is viewed as its scalar elements, as a vector pointer is
        lanes = dt.lanes(buf.dtype)
        if lanes > 1:
            total = total * lanes
        flat = Buffer([total], dt.element_of(buf.dtype), buf.name, data=buf.data,
                      scope=buf.scope)
        return BufferVar(self, flat, shape, buf.dtype)

    def likely(self, expr) -> PrimExpr:
        return _likely(expr)

    def assume(self, cond):
        """Emit ``tir.assume(cond)``: a fact later passes may rely on."""
        self.emit(Evaluate(_assume(cond)))

    def get(self) -> Stmt:
        """The statement built (every scope must be closed)."""
        seq = self._pop_seq()
        if self._seq_stack:
            raise TepadError("ir_builder.get() called inside an open scope")
        return seq


def create() -> IRBuilder:
    """A new ``IRBuilder``."""
    return IRBuilder()


__all__ = ["IRBuilder", "BufferVar", "WithScope", "create", "UNKNOWN_EXTENT"]
