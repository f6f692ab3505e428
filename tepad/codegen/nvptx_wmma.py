"""Tensor-core fragments and TVM's wmma intrinsics for the NVPTX emitter (m16n16k16, float16
inputs, float32 accumulators).

A ``wmma.*`` allocation used only through the intrinsics (``tepad.lower.passes.
wmma_fragments`` says what they compute) holds, per thread, its share of each 16 x 16
fragment: 8 registers, ``<2 x half>`` for ``wmma.matrix_a`` / ``wmma.matrix_b`` and ``float``
for ``wmma.accumulator``, in an alloca of ``8 * fragments`` that LLVM promotes to registers
when the fragment indices are constant. The intrinsics become NVVM's:

* ``tvm_load_matrix_sync`` -> ``llvm.nvvm.wmma.m16n16k16.load.{a,b,c}.<layout>.stride.
  {f16,f32}.p<addrspace>`` (``wmma.load.*.sync`` in PTX);
* ``tvm_mma_sync`` -> ``llvm.nvvm.wmma.m16n16k16.mma.<a layout>.<b layout>.f32.f32``, the
  layouts those of the loads of its A and B fragments (one per fragment buffer);
* ``tvm_store_matrix_sync`` -> ``llvm.nvvm.wmma.m16n16k16.store.d.<layout>.stride.f32``;
* ``tvm_fill_fragment`` -> the value in all 8 registers (an accumulator's elements are
  spread evenly over the lanes, so every lane's share is that value).

A ``wmma.*`` allocation accessed element by element (an untensorized schedule) stays a
per-thread local array of its elements; mixing the two is a TepadError.
"""
from __future__ import annotations

import llvmlite.ir as ir

from .. import tir
from ..errors import TepadError
from ..tir.wmma import FRAGMENT, check_wmma_call, is_wmma_call
from .lltypes import I32, VOID, ll_type

REGS = 8
HALF2 = ir.VectorType(ir.HalfType(), 2)
F32 = ir.FloatType()
_PART = {"wmma.matrix_a": "a", "wmma.matrix_b": "b", "wmma.accumulator": "c"}
_REG_TYPE = {"wmma.matrix_a": (HALF2, "float16"), "wmma.matrix_b": (HALF2, "float16"),
             "wmma.accumulator": (F32, "float32")}
_LAYOUT = {"row_major": "row", "col_major": "col"}


def _uses(body, var):
    """``(element accesses, intrinsic uses)`` of data var ``var`` in ``body``."""
    elem, calls = [], []

    def f(n):
        if isinstance(n, (tir.BufferLoad, tir.BufferStore)) and n.buffer.data is var:
            elem.append(n)
        elif is_wmma_call(n) and any(a is var for a in n.args):
            calls.append(n)
    tir.stmt_functor.post_order_visit(body, f)
    return elem, calls


class WmmaEmitter:
    """Mixin of NVPTXEmitter: ``wmma_allocate`` and ``wmma_call``."""

    def wmma_allocate(self, s, scope: str) -> bool:
        """Allocate the fragments of ``s`` (scope ``scope``, a ``wmma.*`` scope) as registers
        when only the intrinsics use it (True); False leaves it to the local-array path."""
        elem, calls = _uses(s.body, s.buffer_var)
        if not calls:
            return False
        name = s.buffer_var.name
        if elem:
            raise TepadError(f"kernel {self.name}: fragment {name} ({scope}) is used both by "
                             "tensor-core intrinsics and element by element; tensorize every "
                             "stage of the fragment or none")
        if scope not in _REG_TYPE:
            raise TepadError(f"kernel {self.name}: fragment {name} has scope {scope!r}; "
                             f"valid: {', '.join(_REG_TYPE)}")
        reg_t, want = _REG_TYPE[scope]
        if s.dtype != want:
            raise TepadError(f"kernel {self.name}: fragment {name} ({scope}) of {s.dtype}; "
                             f"tepad's tensor cores take {want} there (m16n16k16, float16 "
                             "inputs, float32 accumulators)")
        size = 1
        for e in s.extents:
            if not isinstance(e, tir.IntImm):
                raise TepadError(f"kernel {self.name}: fragment {name} has non-constant size")
            size *= int(e.value)
        frags = max(1, -(-size // (FRAGMENT * FRAGMENT)))
        a = self.entry_alloca(ir.ArrayType(reg_t, frags * REGS), name=name)
        a.align = 16
        self.ctx.vars[s.buffer_var] = a
        self.fragments[s.buffer_var] = (scope, reg_t)
        layouts = {}
        for c in calls:
            op = c.op if c.op.startswith("tir.") else "tir." + c.op
            if op == "tir.tvm_load_matrix_sync" and isinstance(c.args[7], tir.StringImm):
                layouts.setdefault(c.args[7].value, c)
        if len(layouts) > 1:
            raise TepadError(f"kernel {self.name}: fragment {name} is loaded both row- and "
                             "column-major; one mma needs one layout per operand")
        self.fragment_layout[s.buffer_var] = _LAYOUT[next(iter(layouts), "row_major")]
        return True

    # ------------------------------------------------------------------ helpers
    def _frag(self, var, what):
        info = self.fragments.get(var)
        if info is None:
            raise TepadError(f"kernel {self.name}: {what}: {getattr(var, 'name', var)} is not "
                             "a fragment allocated in a wmma.* scope inside the kernel")
        return info

    def _reg_ptr(self, var, index, k):
        _, reg_t = self.fragments[var]
        i = self.b.add(self.b.mul(index, I32(REGS)), I32(k))
        return self.b.gep(self.ctx.vars[var], [i], inbounds=True, source_etype=reg_t)

    def _regs(self, var, index):
        _, reg_t = self.fragments[var]
        return [self.b.load(self._reg_ptr(var, index, k), typ=reg_t) for k in range(REGS)]

    def _set_regs(self, var, index, values):
        for k, v in enumerate(values):
            self.b.store(v, self._reg_ptr(var, index, k))

    def _i32(self, e):
        return self.cast_to(self.expr(e), e.dtype, "int32")

    def _access_ptr(self, e):
        """The element address a ``tvm_access_ptr(type, data, offset, extent, mask)`` names."""
        elem_t = ll_type(e.args[0].dtype, memory=True)
        base = self.ctx.vars.get(e.args[1])
        if base is None:
            raise TepadError(f"kernel {self.name}: access_ptr of {e.args[1]}, which is not a "
                             "buffer of the kernel")
        return self.b.gep(base, [self.expr(e.args[2])], inbounds=True, source_etype=elem_t)

    # ------------------------------------------------------------------ the intrinsics
    def wmma_call(self, e) -> ir.Value:
        op = e.op if e.op.startswith("tir.") else "tir." + e.op
        check_wmma_call(e, f"kernel {self.name}")
        a = e.args
        if op == "tir.tvm_fill_fragment":
            scope, reg_t = self._frag(a[0], op)
            if scope != "wmma.accumulator":
                raise TepadError(f"kernel {self.name}: tvm_fill_fragment of {scope} fragment "
                                 f"{a[0].name}; tepad fills accumulators")
            v = self.cast_to(self.expr(a[5]), a[5].dtype, "float32")
            self._set_regs(a[0], self._i32(a[4]), [v] * REGS)
        elif op == "tir.tvm_mma_sync":
            roles = ("wmma.accumulator", "wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator")
            for k, role in enumerate(roles):
                scope, _ = self._frag(a[2 * k], op)
                if scope != role:
                    raise TepadError(f"kernel {self.name}: tvm_mma_sync operand {k} "
                                     f"({a[2 * k].name}) is a {scope} fragment, {role} wanted")
            la, lb = self.fragment_layout[a[2]], self.fragment_layout[a[4]]
            args = (self._regs(a[2], self._i32(a[3])) + self._regs(a[4], self._i32(a[5])) +
                    self._regs(a[6], self._i32(a[7])))
            fn = self.declare(f"llvm.nvvm.wmma.m{FRAGMENT}n{FRAGMENT}k{FRAGMENT}.mma.{la}.{lb}"
                              ".f32.f32", ir.LiteralStructType([F32] * REGS),
                              [v.type for v in args])
            r = self.b.call(fn, args)
            self._set_regs(a[0], self._i32(a[1]),
                           [self.b.extract_value(r, k) for k in range(REGS)])
        else:
            scope, reg_t = self._frag(a[0], op)
            ptr = self._access_ptr(a[5])
            stride = self._i32(a[6])
            layout = _LAYOUT[a[7].value]
            shape = f"m{FRAGMENT}n{FRAGMENT}k{FRAGMENT}"
            space = f"p{ptr.type.addrspace}"
            if op == "tir.tvm_load_matrix_sync":
                part = _PART[scope]
                et = "f32" if reg_t is F32 else "f16"
                fn = self.declare(f"llvm.nvvm.wmma.{shape}.load.{part}.{layout}.stride.{et}."
                                  f"{space}", ir.LiteralStructType([reg_t] * REGS),
                                  [ptr.type, I32])
                r = self.b.call(fn, [ptr, stride])
                self._set_regs(a[0], self._i32(a[4]),
                               [self.b.extract_value(r, k) for k in range(REGS)])
            else:
                if scope != "wmma.accumulator":
                    raise TepadError(f"kernel {self.name}: tvm_store_matrix_sync of {scope} "
                                     f"fragment {a[0].name}; only accumulators are stored")
                regs = self._regs(a[0], self._i32(a[4]))
                fn = self.declare(f"llvm.nvvm.wmma.{shape}.store.d.{layout}.stride.f32.{space}",
                                  VOID, [ptr.type] + [F32] * REGS + [I32])
                self.b.call(fn, [ptr] + regs + [stride])
        return I32(0)


__all__ = ["WmmaEmitter"]
