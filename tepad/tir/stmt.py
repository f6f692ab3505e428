"""Statement nodes of the IR. Constructor arguments follow ``_fields`` order."""
from __future__ import annotations

import enum

from ..errors import TepadError
from . import dtype as dt
from .expr import (ConstExpr, Node, PrimExpr, Range, Var, _structurally_equal, convert,
                   structural_hash)


class ForKind(str, enum.Enum):
    """How a For loop runs: in order, in parallel threads, as vector lanes, unrolled, or
    bound to a thread axis."""

    SERIAL = "serial"
    PARALLEL = "parallel"
    VECTORIZED = "vectorized"
    UNROLLED = "unroll"
    THREAD_BINDING = "thread_binding"


class Stmt(Node):
    """Base of statements. Hashed and compared (``==``) structurally; ``repr`` is the
    script text."""
    __slots__ = ()

    def __hash__(self):
        return structural_hash(self)

    def __eq__(self, other):
        return isinstance(other, Stmt) and _structurally_equal(self, other)

    __repr__ = Node.__str__

    def replace(self, **changes) -> "Stmt":
        """This statement with the fields named in ``changes`` set to the given values.

        Every other field is kept as it is (for a ``For``: ``thread_binding`` and
        ``annotations`` too), so rebuilding a node through ``replace`` cannot drop one.
        Returns ``self`` when each given value is the current one (the same object), so it
        can be called unconditionally; otherwise a new node of the same class, built by its
        constructor (which checks and converts the values as usual). A name that is not a
        field of the class raises ``TepadError``.
        """
        unknown = [k for k in changes if k not in self._fields]
        if unknown:
            raise TepadError(f"{type(self).__name__} has no field {unknown[0]!r}; "
                             f"its fields are {', '.join(self._fields)}")
        if all(getattr(self, k) is v for k, v in changes.items()):
            return self
        return self._make(*(changes[f] if f in changes else getattr(self, f)
                            for f in self._fields))


def _set(obj, **kw):
    for k, v in kw.items():
        object.__setattr__(obj, k, v)


#: TVM's integer ForKind codes (also 0.6/0.7's for_type), in order
_KIND_CODES = {0: ForKind.SERIAL, 1: ForKind.PARALLEL, 2: ForKind.VECTORIZED,
               3: ForKind.UNROLLED, 4: ForKind.THREAD_BINDING}


class For(Stmt):
    __slots__ = ("loop_var", "min", "extent", "kind", "body", "thread_binding", "annotations")
    _fields = ("loop_var", "min", "extent", "kind", "body", "thread_binding", "annotations")

    # TVM 0.6's for_type codes (``tvm.stmt.For.Vectorized``), as ``tvm.make.For`` takes them
    Serial, Parallel, Vectorized, Unrolled = 0, 1, 2, 3

    def __init__(self, loop_var: Var, min, extent, kind=ForKind.SERIAL, body=None,
                 thread_binding=None, annotations=None):
        """``kind``: a ForKind, its value (``"vectorized"``) or TVM's code (0 serial,
        1 parallel, 2 vectorized, 3 unrolled, 4 thread binding). TVM 0.7's argument order
        ``For(loop_var, min, extent, for_type, device_api, body)`` (an int device_api before
        the body) is taken too."""
        if isinstance(body, int) and not isinstance(body, bool) and \
                isinstance(thread_binding, Stmt) and annotations is None:
            body, thread_binding = thread_binding, None      # device_api: unused
        if isinstance(kind, int) and not isinstance(kind, bool):
            if kind not in _KIND_CODES:
                raise TepadError(f"For: kind code {kind} is not one of TVM's 0 (serial), "
                                 "1 (parallel), 2 (vectorized), 3 (unrolled), 4 (thread "
                                 "binding)")
            kind = _KIND_CODES[kind]
        if not isinstance(body, Stmt):
            raise TepadError(f"For body must be a Stmt, got {type(body).__name__}")
        _set(self, loop_var=loop_var, min=convert(min), extent=convert(extent),
             kind=ForKind(kind), body=body, thread_binding=thread_binding,
             annotations=dict(annotations or {}))

    @property
    def for_type(self) -> int:
        """TVM 0.6-0.7's ``For.for_type``: the kind's code (``For.Serial`` 0, ``Parallel`` 1,
        ``Vectorized`` 2, ``Unrolled`` 3, thread binding 4)."""
        return next(code for code, kind in _KIND_CODES.items() if kind == self.kind)


class SeqStmt(Stmt):
    __slots__ = ("seq",)
    _fields = ("seq",)

    def __init__(self, seq):
        _set(self, seq=tuple(seq))

    def __getitem__(self, k):
        """``seq_stmt[k]``: the k-th statement (TVM's SeqStmt indexing)."""
        return self.seq[k]

    def __len__(self):
        return len(self.seq)

    def __bool__(self):
        return True

    @property
    def first(self):
        """TVM 0.6's ``Block.first``: the first statement."""
        return self.seq[0]

    @property
    def rest(self):
        """TVM 0.6's ``Block.rest``: the statements after the first (one statement alone,
        not wrapped)."""
        return self.seq[1] if len(self.seq) == 2 else SeqStmt(self.seq[1:])


class IfThenElse(Stmt):
    __slots__ = ("condition", "then_case", "else_case")
    _fields = ("condition", "then_case", "else_case")

    def __init__(self, condition, then_case, else_case=None):
        _set(self, condition=convert(condition), then_case=then_case, else_case=else_case)


class While(Stmt):
    """``while condition: body`` (TVM's ``tir.While``): ``body`` runs as long as the bool
    ``condition`` holds, tested before each iteration; the body must change what the
    condition reads (a buffer element) or the loop does not end."""
    __slots__ = ("condition", "body")
    _fields = ("condition", "body")

    def __init__(self, condition, body):
        if not isinstance(body, Stmt):
            raise TepadError(f"While body must be a Stmt, got {type(body).__name__}")
        condition = convert(condition)
        if not dt.is_bool(condition.dtype) or dt.lanes(condition.dtype) != 1:
            raise TepadError(f"While condition must be a scalar bool expression, got "
                             f"`{condition!r}` of dtype {condition.dtype}")
        _set(self, condition=condition, body=body)


class ProducerStore(Stmt):
    """``producer[indices] = value`` for a te.Tensor (before buffers exist)."""
    __slots__ = ("producer", "value", "indices")
    _fields = ("producer", "value", "indices")

    def __init__(self, producer, value, indices):
        _set(self, producer=producer, value=convert(value), indices=tuple(indices))


class ProducerRealize(Stmt):
    """Storage for ``producer`` covering ``bounds`` (a tuple of Range) is live in ``body``."""
    __slots__ = ("producer", "bounds", "condition", "body", "storage_scope")
    _fields = ("producer", "bounds", "condition", "body", "storage_scope")

    def __init__(self, producer, bounds, condition, body, storage_scope="global"):
        _set(self, producer=producer, bounds=tuple(bounds), condition=convert(condition),
             body=body, storage_scope=storage_scope)


class BufferStore(Stmt):
    __slots__ = ("buffer", "value", "indices")
    _fields = ("buffer", "value", "indices")

    def __init__(self, buffer, value, indices):
        _set(self, buffer=buffer, value=convert(value),
             indices=tuple(convert(i) if isinstance(i, int) else i for i in indices))


class BufferRealize(Stmt):
    __slots__ = ("buffer", "bounds", "condition", "body")
    _fields = ("buffer", "bounds", "condition", "body")

    def __init__(self, buffer, bounds, condition, body):
        _set(self, buffer=buffer, bounds=tuple(bounds), condition=convert(condition), body=body)


class Allocate(Stmt):
    """Allocate ``prod(extents)`` elements of ``dtype`` bound to ``buffer_var`` inside ``body``."""
    __slots__ = ("buffer_var", "dtype", "extents", "condition", "body", "annotations")
    _fields = ("buffer_var", "dtype", "extents", "condition", "body", "annotations")

    def __init__(self, buffer_var, dtype, extents, condition, body, annotations=None):
        dt.parse(dtype)
        _set(self, buffer_var=buffer_var, dtype=dtype,
             extents=tuple(convert(e) for e in extents), condition=convert(condition),
             body=body, annotations=dict(annotations or {}))


class AttrStmt(Stmt):
    """Annotation ``attr_key`` on ``node`` (any object) with ``value``, scoped over ``body``."""
    __slots__ = ("node", "attr_key", "value", "body")
    _fields = ("node", "attr_key", "value", "body")

    def __init__(self, node, attr_key, value, body):
        _set(self, node=node, attr_key=str(attr_key), value=convert(value), body=body)


class LetStmt(Stmt):
    __slots__ = ("var", "value", "body")
    _fields = ("var", "value", "body")

    def __init__(self, var, value, body):
        _set(self, var=var, value=convert(value), body=body)


class Evaluate(Stmt):
    __slots__ = ("value",)
    _fields = ("value",)

    def __init__(self, value):
        _set(self, value=convert(value))


class AssertStmt(Stmt):
    __slots__ = ("condition", "message", "body")
    _fields = ("condition", "message", "body")

    def __init__(self, condition, message, body):
        _set(self, condition=convert(condition), message=message, body=body)


class Prefetch(Stmt):
    """Hint that ``buffer``'s region ``bounds`` (a tuple of Range, one per axis) is read soon
    (TVM's ``tir.Prefetch``). storage_flatten lowers it to loops of ``tir.prefetch`` calls,
    one per cache line; it reads and writes nothing."""
    __slots__ = ("buffer", "bounds")
    _fields = ("buffer", "bounds")

    def __init__(self, buffer, bounds):
        _set(self, buffer=buffer, bounds=tuple(bounds))


class BufferRegion(Node):
    """The part ``region`` (a tuple of Range, one per axis) of ``buffer`` a block reads or
    writes (TVM's ``tir.BufferRegion``)."""
    __slots__ = ("buffer", "region")
    _fields = ("buffer", "region")

    def __init__(self, buffer, region):
        region = tuple(r if isinstance(r, Range) else Range.from_min_extent(r, 1)
                       for r in region)
        if len(region) != len(buffer.shape):
            raise TepadError(f"BufferRegion of {buffer.name}: {len(region)} ranges for a "
                             f"buffer of {len(buffer.shape)} dimensions")
        _set(self, buffer=buffer, region=region)

    @staticmethod
    def full_region(buffer) -> "BufferRegion":
        """The whole of ``buffer``."""
        return BufferRegion(buffer, [Range.from_min_extent(0, e) for e in buffer.shape])

    def __hash__(self):
        return structural_hash(self)

    def __eq__(self, other):
        return isinstance(other, BufferRegion) and _structurally_equal(self, other)


class MatchBufferRegion(Node):
    """``buffer`` is a view of ``source`` (a BufferRegion) inside a block (TVM's
    ``tir.MatchBufferRegion``; T.match_buffer in a block)."""
    __slots__ = ("buffer", "source")
    _fields = ("buffer", "source")

    def __init__(self, buffer, source):
        if not isinstance(source, BufferRegion):
            raise TepadError(f"MatchBufferRegion source must be a BufferRegion, got "
                             f"{type(source).__name__}")
        _set(self, buffer=buffer, source=source)

    def __hash__(self):
        return structural_hash(self)

    def __eq__(self, other):
        return isinstance(other, MatchBufferRegion) and _structurally_equal(self, other)


class Block(Stmt):
    """A unit of computation with declared iteration and data accesses (TVM's ``tir.Block``).

    ``iter_vars``: block IterVars (domain and kind: data-parallel, reduction, ...), bound to
    values by the enclosing ``BlockRealize``; ``reads`` / ``writes``: BufferRegions in terms
    of the iter vars; ``init``: the statement a reduction block runs at the first point of
    its reduction iter vars (None without); ``alloc_buffers``: buffers live inside the block;
    ``match_buffers``: MatchBufferRegions. The body reads the iter vars, never the loops
    around it (that is what lets TVM's schedules move blocks)."""
    __slots__ = ("iter_vars", "reads", "writes", "name_hint", "body", "init", "alloc_buffers",
                 "match_buffers", "annotations")
    _fields = ("iter_vars", "reads", "writes", "name_hint", "body", "init", "alloc_buffers",
               "match_buffers", "annotations")

    def __init__(self, iter_vars, reads, writes, name_hint, body, init=None, alloc_buffers=(),
                 match_buffers=(), annotations=None):
        if not isinstance(body, Stmt):
            raise TepadError(f"Block {name_hint!r}: body must be a Stmt, got "
                             f"{type(body).__name__}")
        if init is not None and not isinstance(init, Stmt):
            raise TepadError(f"Block {name_hint!r}: init must be a Stmt or None")
        for r in (*reads, *writes):
            if not isinstance(r, BufferRegion):
                raise TepadError(f"Block {name_hint!r}: reads and writes are BufferRegions, "
                                 f"got {type(r).__name__}")
        _set(self, iter_vars=tuple(iter_vars), reads=tuple(reads), writes=tuple(writes),
             name_hint=str(name_hint), body=body, init=init,
             alloc_buffers=tuple(alloc_buffers or ()), match_buffers=tuple(match_buffers or ()),
             annotations=dict(annotations or {}))


class BlockRealize(Stmt):
    """Run ``block`` with its iter vars bound to ``iter_values`` (one per iter var) when
    ``predicate`` holds (TVM's ``tir.BlockRealize``)."""
    __slots__ = ("iter_values", "predicate", "block")
    _fields = ("iter_values", "predicate", "block")

    def __init__(self, iter_values, predicate, block):
        if not isinstance(block, Block):
            raise TepadError(f"BlockRealize realizes a Block, got {type(block).__name__}")
        iter_values = tuple(convert(v) for v in iter_values)
        if len(iter_values) != len(block.iter_vars):
            raise TepadError(f"BlockRealize of block {block.name_hint!r}: "
                             f"{len(iter_values)} values for {len(block.iter_vars)} iter vars")
        _set(self, iter_values=iter_values, predicate=convert(predicate), block=block)


def seq(*stmts) -> Stmt:
    """Sequence of statements, flattening nested SeqStmts and dropping ``None``/no-ops."""
    flat = []
    for s in stmts:
        if s is None:
            continue
        if isinstance(s, (list, tuple)):
            s = seq(*s)
        if isinstance(s, SeqStmt):
            flat.extend(s.seq)
        elif is_no_op(s):
            continue
        else:
            flat.append(s)
    if not flat:
        return Evaluate(0)
    return flat[0] if len(flat) == 1 else SeqStmt(flat)


def is_no_op(s) -> bool:
    """Whether ``s`` is ``Evaluate`` of a constant (a statement that does nothing)."""
    return isinstance(s, Evaluate) and isinstance(s.value, ConstExpr)


__all__ = ["ForKind", "Stmt", "For", "SeqStmt", "IfThenElse", "While", "ProducerStore", "ProducerRealize",
           "BufferStore", "BufferRealize", "Allocate", "AttrStmt", "LetStmt", "Evaluate",
           "AssertStmt", "Prefetch", "BufferRegion", "MatchBufferRegion", "Block", "BlockRealize",
           "seq", "is_no_op", "Range", "PrimExpr"]
