"""Flattened TIR -> LLVM IR (``llvmlite.ir``, opaque pointers): the kernel's signature and
``emit_llvm_module``.

Input: a ``PrimFunc`` after storage flattening (see ``emit_llvm_module``). Output: the text of
an LLVM module whose kernel is ``i32 @<global_symbol>(ptr A, ptr B, ..., <shape vars>)``:

* one ``ptr noalias nocapture`` per argument buffer, in ``func.params`` order (also
  ``nonnull dereferenceable(bytes)`` when its shape is constant: Module checks the shapes);
* then one integer per symbolic shape variable, in order of first appearance when scanning the
  argument buffers' physical shapes (argument order, then axis order);
* the return value is a status: 0 on success, ``k > 0`` for ``messages[k - 1]``
  (failed ``AssertStmt`` or out-of-memory), returned after freeing every live heap buffer.

The body is emitted by the mixins of ``KernelEmitter``: ``statements`` (control flow),
``memory`` (loads, stores, allocations), ``expressions``, ``intrinsics`` (calls) and
``parallel`` (parallel loops through libgomp).
"""
from __future__ import annotations

import llvmlite.ir as ir

from ..errors import TepadError
from .. import tir
from ..tir.free_vars import FreeVars
from .analysis import shape_vars, static_bytes
from .emitter import EmitterBase
from .expressions import ExprEmitter
from .intrinsics import CallEmitter
from .packed import PackedCallEmitter
from .lltypes import I32, PTR, ident, ll_type
from .memory import MemoryEmitter
from .outline import NestOutliner
from .parallel import ParallelEmitter
from .statements import StatementEmitter
from .threads import default_num_threads
from .vector_math import expf_vector


class KernelEmitter(NestOutliner, StatementEmitter, MemoryEmitter, ParallelEmitter, CallEmitter,
                    PackedCallEmitter, ExprEmitter, EmitterBase):
    """Emits one ``PrimFunc`` as the kernel function of a fresh LLVM module (``run``)."""

    def call_intrinsic(self, base, args):
        """As the base emitter, except that ``exp`` of a float32 vector is computed inline
        (``vector_math``) rather than as one C library call per lane."""
        t = args[0].type
        if base == "llvm.exp" and isinstance(t, ir.VectorType) and \
                isinstance(t.element, ir.FloatType):
            return expf_vector(self.b, args[0],
                               lambda v: super(KernelEmitter, self).call_intrinsic(
                                   "llvm.rint", [v]))
        return super().call_intrinsic(base, args)

    def run(self) -> str:
        """The module's text: the kernel's signature (see the module doc), its arguments
        bound to the buffers and shape variables, then the body."""
        func = self.func
        arg_types, arg_names = [], []
        for p in func.params:
            if p in func.buffer_map:
                arg_types.append(PTR)
                arg_names.append(func.buffer_map[p].name)
            elif isinstance(p, tir.Var):    # a scalar argument, or a raw pointer (handle)
                arg_types.append(ll_type(p.dtype))
                arg_names.append(p.name)
            else:
                raise TepadError(f"kernel {self.name}: parameter {p!r} is neither a buffer "
                                 "nor a variable")
        svars = shape_vars(func)
        for v in svars:
            arg_types.append(ll_type(v.dtype))
            arg_names.append(v.name)
        fn = ir.Function(self.module, ir.FunctionType(I32, arg_types), name=self.name)
        fn.attributes.add("nounwind")
        self.ctx = self.new_ctx(fn, in_parallel=False)
        self._bind_buffer_args(fn, arg_names)
        for k, v in enumerate(svars):
            a = fn.args[len(func.params) + k]
            a.name = ident(v.name)
            self.ctx.vars[v] = a
        self._check_free_vars()
        self.stmt(func.body)
        if not self.b.block.is_terminated:
            self.b.ret(I32(0))
        return str(self.module)

    def _bind_buffer_args(self, fn: ir.Function, arg_names: list):
        """Name the pointer arguments, give them their attributes, and bind each to its
        buffer's data var (and its param var)."""
        func = self.func
        seen_data = set()
        for k, p in enumerate(func.params):
            a = fn.args[k]
            a.name = ident(arg_names[k])
            buf = func.buffer_map.get(p)
            if buf is None:
                self.ctx.vars[p] = a
                continue
            if buf.data not in seen_data:  # the same buffer twice must not claim noalias
                a.add_attribute("noalias")
            seen_data.add(buf.data)
            a.add_attribute("captures(none)")
            nbytes = static_bytes(buf)
            if nbytes:   # Module checks every array's shape: the whole buffer is there
                a.add_attribute("nonnull")
                a.attributes.dereferenceable = nbytes
            self.ctx.vars[buf.data] = a
            self.ctx.vars[p] = a

    def _check_free_vars(self):
        fv = FreeVars()
        fv.visit(self.func.body)
        known = set(self.ctx.vars)
        missing = [v for v in fv.order if v not in known]
        if missing:
            names = ", ".join(v.name for v in missing)
            raise TepadError(
                f"kernel {self.name}: variables {names} are used in the body but bound by no "
                "argument buffer's shape (symbolic sizes must appear in some argument shape)")


def emit_llvm_module(func: tir.PrimFunc, name: str | None = None, num_threads: int | None = None,
                     use_pool: bool = True) -> tuple[str, list[str], list]:
    """Emit ``func`` as LLVM IR text.

    Returns ``(ir_text, messages, shape_vars)``: ``messages[k-1]`` explains status ``k``;
    ``shape_vars`` are the trailing scalar arguments of the kernel, in order.
    """
    name = name or func.attrs.get("global_symbol", "main")
    cg = KernelEmitter(func, name, num_threads or default_num_threads(), use_pool)
    text = cg.run()
    return text, cg.messages, shape_vars(func)
