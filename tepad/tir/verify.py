"""The IR verifier: is a PrimFunc well formed?

``verify(func)`` returns a list of problems (empty when the function is well formed);
``verify_well_formed(func, after=...)`` raises ``InternalError`` naming the pass after which
the IR broke. Checked:

* variables: every Var an expression reads is defined where it is read -- a parameter, a size
  variable of an argument buffer's shape/strides/offset, or bound by an enclosing ``For``,
  ``LetStmt``, ``Let``, ``Allocate`` or thread ``AttrStmt`` -- and no Var is bound again
  inside its own scope or bound once more anywhere (loop and let variables bound once);
* buffers: every load and store touches a buffer that is declared where it is used (an
  argument buffer, an enclosing ``BufferRealize`` / ``ProducerRealize``, an ``Allocate`` of
  its data variable, or a ``Block``'s alloc / match buffers), with as many indices as the
  buffer has dimensions; a block's read / write regions name declared buffers;
* blocks: a ``Block`` binds its iter vars (once, like loops), a ``BlockRealize`` predicate is
  ``bool``;
* dtypes: operands of arithmetic agree with each other and with the result, comparisons give
  ``bool``, conditions are ``bool``, a stored value has the buffer's element type with as many
  lanes as its index, a load gives the buffer's element type, ``Let`` values match their Var,
  loop bounds are integers of the loop variable's type.

The verifier reads only; it never changes the function.
"""
from __future__ import annotations

from ..errors import InternalError
from . import dtype as dt
from .expr import BinaryOp, CmpOp, LogicOp, PrimExpr, Var
from .function import PrimFunc
from .functor import Visitor, post_order_visit
from .stmt import AttrStmt
from .structural import structural_equal

# AttrStmt keys whose ``node`` is a Var that the statement binds (a thread index).
_BINDING_ATTRS = ("thread_extent", "virtual_thread")


def _index_lanes(indices) -> int:
    return max((dt.lanes(i.dtype) for i in indices if isinstance(i, PrimExpr)), default=1)


# PrimFunc attribute: Vars the body may read though nothing defines them (what ``tepad.lower``
# leaves free, as TVM's lower does; ``verify`` accepts them, ``undefined_vars`` still lists
# them, so building such a function is refused)
FREE_VARS_ATTR = "tepad.free_vars"


class _Verifier(Visitor):
    def __init__(self, func: PrimFunc, allow_free: bool = False):
        self.problems: list[str] = []
        self.undefined: dict = {}           # Vars read where nothing defines them (ordered)
        self.in_scope: set = set()
        self.bound_once: dict = {}          # Var -> where it was first bound
        self.buffer_data: set = set()       # data Vars of buffers usable here
        self.realized: set = set()          # Buffers / producers realized around here
        for p in func.params:
            self.in_scope.add(p)
            if p.dtype == "handle" and p not in func.buffer_map:
                self.buffer_data.add(p)     # a pointer parameter: buffers over its memory
        for buf in func.buffer_map.values():
            self.buffer_data.add(buf.data)
            for e in (*buf.shape, *buf.strides, buf.elem_offset):
                self._declare_free_vars(e)
        # a thread index launched anywhere in a kernel is that kernel's (TVM: the region of a
        # stage attached inside a bound loop may be written in the thread index)
        self.launched: dict = {}     # thread var -> its innermost launch
        for node in _launched_threads(func.body):
            self.in_scope.add(node.var)
        if allow_free:
            self.in_scope.update(func.attrs.get(FREE_VARS_ATTR) or ())

    def _declare_free_vars(self, e):
        stack = [e]
        while stack:
            n = stack.pop()
            if isinstance(n, Var):
                self.in_scope.add(n)
            elif isinstance(n, PrimExpr):
                stack.extend(v for v in n.field_values() if isinstance(v, PrimExpr))

    def visit(self, node):
        # Visitor dispatches on the exact class name; every arithmetic, comparison and logic
        # node shares one check.
        if isinstance(node, BinaryOp):
            return self.visit_BinaryOp(node)
        return super().visit(node)

    def fail(self, msg):
        self.problems.append(msg)

    # --- binding -------------------------------------------------------------------------------
    def _bind(self, var, where):
        if var in self.in_scope:
            self.fail(f"{var.name} is bound by {where} inside a scope where it is already "
                      "defined")
        elif var in self.bound_once:
            self.fail(f"{var.name} is bound twice: by {self.bound_once[var]} and by {where}")
        self.bound_once.setdefault(var, where)
        self.in_scope.add(var)

    def _scoped(self, var, where, body):
        self._bind(var, where)
        self.visit(body)
        self.in_scope.discard(var)

    # --- statements ----------------------------------------------------------------------------
    def visit_For(self, s):
        self.visit(s.min)
        self.visit(s.extent)
        for e, what in ((s.min, "min"), (s.extent, "extent")):
            if not dt.is_int(e.dtype) or e.dtype != s.loop_var.dtype:
                self.fail(f"loop {s.loop_var.name}: {what} has dtype {e.dtype}, the loop "
                          f"variable {s.loop_var.dtype}")
        self._scoped(s.loop_var, f"the loop over {s.loop_var.name}", s.body)

    def visit_LetStmt(self, s):
        self.visit(s.value)
        self._check_let(s.var, s.value)
        self._scoped(s.var, f"let {s.var.name}", s.body)

    def visit_Let(self, e):
        self.visit(e.value)
        self._check_let(e.var, e.value)
        self._scoped(e.var, f"let {e.var.name} (expression)", e.body)

    def _check_let(self, var, value):
        if var.dtype != value.dtype:
            self.fail(f"let {var.name}: value has dtype {value.dtype}, the variable "
                      f"{var.dtype}")

    def visit_Allocate(self, s):
        for e in s.extents:
            self.visit(e)
        if s.condition is not None:
            self.visit(s.condition)
        self._bind(s.buffer_var, f"the allocation of {s.buffer_var.name}")
        self.buffer_data.add(s.buffer_var)
        self.visit(s.body)
        self.buffer_data.discard(s.buffer_var)
        self.in_scope.discard(s.buffer_var)

    def visit_AttrStmt(self, s):
        self.visit(s.value)
        if s.attr_key in _BINDING_ATTRS and isinstance(s.node, Var):
            self._scoped(s.node, f"{s.attr_key} {s.node.name}", s.body)
        elif s.attr_key in _BINDING_ATTRS and isinstance(getattr(s.node, "var", None), Var):
            # a thread IterVar (as TVM's lowering emits it): its index may be launched again
            # in a sibling scope (two stages bound to the same thread), and inside itself only
            # with the same extent (TVM's opt_conv_cuda binds a shared stage attached inside
            # the kernel to the kernel's own thread axes: the same hardware index)
            var = s.node.var
            outer = self.launched.get(var)
            if outer is not None and not (outer.attr_key == s.attr_key == "thread_extent" and
                                          structural_equal(outer.value, s.value)):
                self.fail(f"{var.name} is launched by {s.attr_key} inside its own launch")
            self.launched[var] = s
            self.visit(s.body)
            if outer is None:
                del self.launched[var]
            else:
                self.launched[var] = outer
        else:
            self.visit(s.body)

    def visit_BufferRealize(self, s):
        for r in s.bounds:
            self.visit(r)
        self._realize(s.buffer, s.buffer.data, s.body)

    def visit_ProducerRealize(self, s):
        for r in s.bounds:
            self.visit(r)
        self._realize(s.producer, None, s.body)

    def _realize(self, key, data, body):
        fresh = key not in self.realized
        self.realized.add(key)
        # the realized buffer's pointer may be used inside (an extern op passes it on)
        new_ptr = data is not None and data not in self.in_scope
        if data is not None:
            self.buffer_data.add(data)
            self.in_scope.add(data)
        self.visit(body)
        if fresh:
            self.realized.discard(key)
            if data is not None:
                self.buffer_data.discard(data)
        if new_ptr:
            self.in_scope.discard(data)

    def visit_BlockRealize(self, s):
        self.visit(s.iter_values)
        self.visit(s.predicate)
        self._check_cond(s.predicate, f"predicate of block {s.block.name_hint}")
        self.visit(s.block)

    def visit_Block(self, b):
        """A block binds its iter vars and declares its allocated and matched buffers for
        its regions, init and body."""
        for iv in b.iter_vars:
            if iv.dom is not None:
                self.visit(iv.dom)
        for iv in b.iter_vars:
            self._bind(iv.var, f"block {b.name_hint}")
        declared = [buf for buf in (*b.alloc_buffers, *(m.buffer for m in b.match_buffers))
                    if buf not in self.realized]
        for m in b.match_buffers:
            self.visit(m.source.region)
            self._check_region(m.source, b)
        for buf in declared:
            self.realized.add(buf)
        for r in (*b.reads, *b.writes):
            self.visit(r.region)
            self._check_region(r, b)
        if b.init is not None:
            self.visit(b.init)
        self.visit(b.body)
        for buf in declared:
            self.realized.discard(buf)
        for iv in b.iter_vars:
            self.in_scope.discard(iv.var)

    def _check_region(self, r, b):
        if r.buffer.data not in self.buffer_data and r.buffer not in self.realized:
            self.fail(f"block {b.name_hint} names a region of {r.buffer.name}, which is not "
                      "declared here")

    def visit_IfThenElse(self, s):
        self.visit(s.condition)
        self._check_cond(s.condition, "if condition")
        self.visit(s.then_case)
        if s.else_case is not None:
            self.visit(s.else_case)

    def visit_While(self, s):
        self.visit(s.condition)
        self._check_cond(s.condition, "while condition")
        self.visit(s.body)

    def visit_AssertStmt(self, s):
        self.visit(s.condition)
        self._check_cond(s.condition, "assert condition")
        self.visit(s.body)

    def visit_BufferStore(self, s):
        self.visit(s.value)
        self.visit(s.indices)
        self._check_access(s.buffer, s.indices, "store to")
        lanes = _index_lanes(s.indices)
        if dt.element_of(s.value.dtype) != dt.element_of(s.buffer.dtype):
            self.fail(f"store to {s.buffer.name}: value has dtype {s.value.dtype}, the buffer "
                      f"{s.buffer.dtype}")
        elif dt.lanes(s.value.dtype) != lanes * dt.lanes(s.buffer.dtype):
            self.fail(f"store to {s.buffer.name}: {dt.lanes(s.value.dtype)} value lanes for "
                      f"{lanes} index lanes")

    def visit_ProducerStore(self, s):
        self.visit(s.value)
        self.visit(s.indices)
        if s.producer not in self.realized:
            self.fail(f"store to {s.producer.name} outside its realize")

    # --- expressions ---------------------------------------------------------------------------
    def visit_Var(self, v):
        # a realized buffer's data var is defined inside its realize (a pointer to it:
        # tvm_access_ptr of a tensorized stage)
        if v not in self.in_scope and v not in self.buffer_data:
            self.undefined.setdefault(v, None)
            self.fail(f"{v.name} is used where no parameter, argument shape, loop or let "
                      "defines it")

    def visit_BufferLoad(self, e):
        self.visit(e.indices)
        self._check_access(e.buffer, e.indices, "load from")
        if dt.element_of(e.dtype) != dt.element_of(e.buffer.dtype):
            self.fail(f"load from {e.buffer.name}: dtype {e.dtype}, the buffer "
                      f"{e.buffer.dtype}")

    def visit_ProducerLoad(self, e):
        self.visit(e.indices)

    def _check_access(self, buf, indices, what):
        if buf.data not in self.buffer_data and buf not in self.realized:
            self.fail(f"{what} {buf.name}, which is not declared here (no argument, realize "
                      "or allocation of it encloses the access)")
        if len(indices) != len(buf.shape):
            self.fail(f"{what} {buf.name}: {len(indices)} indices for a buffer of "
                      f"{len(buf.shape)} dimensions")

    def visit_BinaryOp(self, e):
        self.visit(e.a)
        self.visit(e.b)
        if e.a.dtype != e.b.dtype:
            self.fail(f"operands of {type(e).__name__} have dtypes {e.a.dtype} and "
                      f"{e.b.dtype}: `{e}`")
        elif isinstance(e, CmpOp):
            if not dt.is_bool(e.dtype) or dt.lanes(e.dtype) != dt.lanes(e.a.dtype):
                self.fail(f"comparison gives {e.dtype} for {e.a.dtype} operands: `{e}`")
        elif isinstance(e, LogicOp):
            if not dt.is_bool(e.a.dtype):
                self.fail(f"{type(e).__name__} of non-bool operands ({e.a.dtype}): `{e}`")
        elif e.dtype != e.a.dtype:
            self.fail(f"{type(e).__name__} gives {e.dtype} for {e.a.dtype} operands: `{e}`")

    def visit_Not(self, e):
        self.visit(e.a)
        self._check_cond(e.a, "operand of not")

    def visit_Select(self, e):
        self.visit(e.condition)
        self.visit(e.true_value)
        self.visit(e.false_value)
        self._check_cond(e.condition, "select condition")
        if not (e.true_value.dtype == e.false_value.dtype == e.dtype):
            self.fail(f"select arms have dtypes {e.true_value.dtype} and "
                      f"{e.false_value.dtype}, the select {e.dtype}")

    def visit_Ramp(self, e):
        self.visit(e.base)
        self.visit(e.stride)
        if e.base.dtype != e.stride.dtype:
            self.fail(f"ramp base {e.base.dtype} and stride {e.stride.dtype} differ")

    def _check_cond(self, c, what):
        if not dt.is_bool(c.dtype):
            self.fail(f"{what} has dtype {c.dtype}, expected bool: `{c}`")

    # Calls, casts and broadcasts convert freely; their operands are still walked.
    def visit_Call(self, e):
        self.visit(e.args)

    def visit_Cast(self, e):
        self.visit(e.value)

    def visit_Broadcast(self, e):
        self.visit(e.value)


def _launched_threads(body) -> list:
    """The thread IterVars of the thread-binding AttrStmts in ``body``."""
    out = []

    def visit(n):
        if isinstance(n, AttrStmt) and n.attr_key in _BINDING_ATTRS and \
                isinstance(getattr(n.node, "var", None), Var):
            out.append(n.node)
    post_order_visit(body, visit)
    return out


def verify(func: PrimFunc) -> list:
    """Every well-formedness problem of ``func`` as a sentence; empty when well formed."""
    if not isinstance(func, PrimFunc):
        raise TypeError(f"verify expects a PrimFunc, got {type(func).__name__}")
    v = _Verifier(func, allow_free=True)
    v.visit(func.body)
    return v.problems


def undefined_vars(func: PrimFunc) -> list:
    """The Vars ``func`` reads where no parameter, argument shape, loop or let defines them,
    in the order first read (symbolic sizes that no argument's shape binds end up here)."""
    v = _Verifier(func)
    v.visit(func.body)
    return list(v.undefined)


def verify_well_formed(func: PrimFunc, after: str | None = None) -> PrimFunc:
    """``func`` unchanged when well formed; else ``InternalError`` listing the problems and
    naming the pass (``after``) whose output broke the IR."""
    problems = verify(func)
    if problems:
        where = f" after pass {after}" if after else ""
        shown = "\n  ".join(problems[:10])
        more = f"\n  ... and {len(problems) - 10} more" if len(problems) > 10 else ""
        raise InternalError(f"ill-formed IR in {func.name}{where}:\n  {shown}{more}")
    return func


__all__ = ["verify", "verify_well_formed", "undefined_vars", "FREE_VARS_ATTR"]
