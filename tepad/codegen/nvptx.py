"""Device kernels -> LLVM IR for ``nvptx64-nvidia-cuda`` -> PTX, through llvmlite.

The emitter is the CPU emitter's mixins (statements, memory, expressions, calls) with what
differs on the device overridden in ``NVPTXEmitter``:

* the kernel is a ``ptx_kernel`` function returning void; a buffer parameter is a
  ``ptr addrspace(1)`` (global memory), as is a ``handle`` parameter (a buffer's data var the
  kernel uses only through ``tvm_access_ptr``), a scalar parameter its LLVM type;
* a launch attribute ``AttrStmt(iv, "thread_extent", n)`` binds ``iv.var`` to
  ``llvm.nvvm.read.ptx.sreg.{tid,ctaid}.{x,y,z}``; the kernel's ``maxntid`` is the product of
  its constant ``threadIdx`` extents (``nvvm.annotations``);
* ``Allocate`` by scope: ``shared`` is an ``addrspace(3)`` global of the module (per block;
  one of non-constant size is the dynamic shared memory, sized at launch), ``local`` an
  ``alloca`` (per thread; NVPTX puts it in local memory, addrspace 5); an allocation without a
  scope gets TVM's default (``local`` under ``threadIdx``, ``shared`` under ``blockIdx``);
* ``tir.tvm_storage_sync("shared")`` is ``llvm.nvvm.barrier0`` (``bar.sync 0``), ``"warp"``
  is ``llvm.nvvm.bar.warp.sync`` (all lanes);
* TVM's ``tvm_warp_shuffle`` / ``_up`` / ``_down`` are ``shfl.sync`` (as CUDA's
  ``__shfl*_sync``), ``tvm_warp_activemask`` is ``activemask``; ``warp`` buffers are lowered
  first (``lower_warp_memory``: per-lane registers, reads of other lanes by shuffles);
* ``call_extern`` / ``call_pure_extern`` of a C math function is libdevice's function of that
  name (``expf``, ``__expf``); any other C function is refused;
* math functions without an NVPTX instruction (exp, log, pow, tanh, erf, sin, cos, ...) call
  libdevice's ``__nv_*``, linked into the module and internalized so only what is called
  stays; sqrt, fabs, floor, ceil, trunc and fma stay LLVM intrinsics;
* tensor-core fragments (``wmma.*`` scopes) and TVM's wmma intrinsics are NVVM's
  ``llvm.nvvm.wmma.m16n16k16.*`` (nvptx_wmma.py);
* a contiguous vector access claims the alignment its index proves (``ld.global.v4.f32``
  needs 16 bytes), a failed device assert traps.

``compile_ptx(kernels, arch)`` emits, links and optimizes the kernels into one PTX module;
``tepad.backend.cuda.ptx_of(func, target)`` does so for a lowered (unsplit) GPU function.
"""
from __future__ import annotations

import math
import threading

import llvmlite.ir as ir

from .._lazy import lazy_module
from .. import tir
from ..errors import InternalError, TepadError
from ..tir.storage_scope import storage_rank
from ..tir.wmma import is_wmma_call
from ..tir.launch import THREAD_EXTENT, launch_tag
from .emitter import EmitterBase
from .expressions import ExprEmitter
from .intrinsics import CallEmitter
from .jit import optimize
from .lltypes import I32, VOID, ident, ll_type
from .memory import MemoryEmitter
from .nvptx_wmma import WmmaEmitter
from .nvptx_target import (DEFAULT_ARCH, TRIPLE, libdevice_function,
                           load_libdevice, target_machine)
from .statements import StatementEmitter

llvm = lazy_module("llvmlite.binding")

GLOBAL, SHARED = 1, 3
GLOBAL_PTR = ir.PointerType(addrspace=GLOBAL)
SHARED_PTR = ir.PointerType(addrspace=SHARED)
SHARED_ALIGN = 16
LOCAL_ALIGN = 16
MAX_VECTOR_ALIGN = 16     # the widest PTX load/store: 16 bytes (ld.v4.f32, ld.v2.f64)

_SREG = {"threadIdx": "tid", "blockIdx": "ctaid"}

# LLVM intrinsics NVPTX has no instruction for -> libdevice's base name
LIBDEVICE_OF_INTRINSIC = {
    "llvm.exp": "exp", "llvm.log": "log", "llvm.pow": "pow", "llvm.sin": "sin",
    "llvm.cos": "cos", "llvm.exp2": "exp2", "llvm.log2": "log2", "llvm.log10": "log10",
    "llvm.tanh": "tanh", "llvm.nearbyint": "nearbyint",
}


# TVM's warp shuffles -> the shfl.sync mode
_SHUFFLES = {"tir.tvm_warp_shuffle": "idx", "tir.tvm_warp_shuffle_up": "up",
             "tir.tvm_warp_shuffle_down": "down"}


def _sreg_name(tag: str) -> str:
    kind, _, axis = tag.partition(".")
    return f"llvm.nvvm.read.ptx.sreg.{_SREG[kind]}.{axis}"


def known_multiple(e) -> int:
    """A positive integer that provably divides the integer expression ``e`` (1 when nothing
    is known)."""
    if isinstance(e, tir.IntImm):
        return abs(int(e.value)) or 1 << 30
    if isinstance(e, tir.Mul):
        return known_multiple(e.a) * known_multiple(e.b)
    if isinstance(e, (tir.Add, tir.Sub)):
        return math.gcd(known_multiple(e.a), known_multiple(e.b))
    if isinstance(e, tir.Cast):
        return known_multiple(e.value)
    if isinstance(e, (tir.Min, tir.Max, tir.Select)):
        a, b = (e.a, e.b) if not isinstance(e, tir.Select) else (e.true_value, e.false_value)
        return math.gcd(known_multiple(a), known_multiple(b))
    return 1


class NVPTXEmitter(WmmaEmitter, StatementEmitter, MemoryEmitter, CallEmitter, ExprEmitter, EmitterBase):
    """Emits one device kernel PrimFunc (see ``split_host_device``) into a fresh LLVM module.

    ``libdevice`` collects the libdevice functions called; ``block_dims`` the constant thread
    extents met, by tag."""

    def __init__(self, func: tir.PrimFunc, name: str):
        super().__init__(func, name, 1, False)
        self.module.triple = TRIPLE
        self.libdevice: set = set()
        self.block_dims: dict = {}
        self.launch_stack: list = []
        self._sreg_values: dict = {}
        self.fragments: dict = {}           # tensor-core fragment var -> (scope, register type)
        self.fragment_layout: dict = {}     # fragment var -> "row" / "col"

    # ------------------------------------------------------------------ the kernel
    def run(self) -> str:
        func = self.func
        types, names = [], []
        for p in func.params:
            if p in func.buffer_map:
                types.append(GLOBAL_PTR)
                names.append(func.buffer_map[p].name)
            elif isinstance(p, tir.Var) and p.dtype != "handle":
                types.append(ll_type(p.dtype))
                names.append(p.name)
            elif isinstance(p, tir.Var):     # a buffer's data var used only by address
                types.append(GLOBAL_PTR)     # (tvm_access_ptr of a tensor-core store)
                names.append(p.name)
            else:
                raise TepadError(f"kernel {self.name}: parameter {p!r} is neither a buffer nor "
                                 "a scalar; a device kernel takes global buffers and numbers")
        fn = ir.Function(self.module, ir.FunctionType(VOID, types), name=self.name)
        fn.calling_convention = "ptx_kernel"
        fn.attributes.add("nounwind")
        self.ctx = self.new_ctx(fn, in_parallel=False)
        seen = set()
        for k, p in enumerate(func.params):
            a = fn.args[k]
            a.name = ident(names[k])
            buf = func.buffer_map.get(p)
            if buf is not None:
                if buf.data not in seen:
                    a.add_attribute("noalias")
                seen.add(buf.data)
                self.ctx.vars[buf.data] = a
            self.ctx.vars[p] = a
        self.stmt(func.body)
        if not self.b.block.is_terminated:
            self.b.ret_void()
        self._annotate(fn)
        return str(self.module)

    def _annotate(self, fn):
        """``maxntid`` from the constant ``threadIdx`` extents (all three known)."""
        dims = [self.block_dims.get(f"threadIdx.{a}", 1) for a in "xyz"]
        if any(d is None for d in dims):
            return
        md = self.module.add_named_metadata("nvvm.annotations")
        for axis, d in zip("xyz", dims):
            md.add(self.module.add_metadata([fn, ir.MetaDataString(self.module, f"maxntid{axis}"),
                                             I32(d)]))

    # ------------------------------------------------------------------ launch attributes
    def stmt_AttrStmt(self, s):
        if s.attr_key == "virtual_thread":
            raise TepadError(f"kernel {self.name}: a virtual thread ({launch_tag(s)}) reached "
                             "the code generator; inject_virtual_thread must lower it first")
        if s.attr_key != THREAD_EXTENT:
            self.stmt(s.body)
            return
        tag = launch_tag(s)
        if tag.partition(".")[0] not in _SREG or tag[-1] not in "xyz":
            raise TepadError(f"kernel {self.name}: launch attribute {tag!r} is not a GPU "
                             "thread index (blockIdx.x/y/z, threadIdx.x/y/z)")
        ext = s.value
        const = int(ext.value) if isinstance(ext, tir.IntImm) else None
        if tag.startswith("threadIdx"):
            old = self.block_dims.get(tag, const)
            self.block_dims[tag] = const if old == const else None
        var = s.node.var
        self.ctx.vars[var] = self.cast_to(self._sreg(tag), "int32", var.dtype)
        self.launch_stack.append(tag)
        self.stmt(s.body)
        self.launch_stack.pop()

    def _sreg(self, tag: str) -> ir.Value:
        """The special register of ``tag``, read once in the entry block."""
        v = self._sreg_values.get(tag)
        if v is None:
            fn = self.declare(_sreg_name(tag), I32, [])
            eb = ir.IRBuilder(self.ctx.entry)
            eb.position_before(self.ctx.entry.terminator)
            v = eb.call(fn, [], name=tag.replace(".", "_"))
            self._sreg_values[tag] = v
        return v

    # ------------------------------------------------------------------ memory
    def stmt_Allocate(self, s):
        raw = s.annotations.get("scope") or ""
        if isinstance(raw, str) and raw.startswith("wmma.") and self.wmma_allocate(s, raw):
            self.stmt(s.body)
            return
        scope = storage_rank(raw or self._default_scope())
        elem_t = ll_type(s.dtype, memory=True)
        count = 1
        for e in s.extents:
            count = count * int(e.value) if isinstance(e, tir.IntImm) and count is not None \
                else None
        name = ident(s.buffer_var.name)
        if scope == "shared":
            if count is None:
                g = self.module.globals.get("__tepad_dyn_shmem")
                if g is None:
                    g = ir.GlobalVariable(self.module, ir.ArrayType(ir.IntType(8), 0),
                                          "__tepad_dyn_shmem", addrspace=SHARED)
                    g.type = SHARED_PTR
                    g.linkage = "external"
                    g.align = SHARED_ALIGN
            else:
                at = ir.ArrayType(elem_t, max(count, 1))
                g = ir.GlobalVariable(self.module, at, self.module.get_unique_name(name),
                                      addrspace=SHARED)
                g.type = SHARED_PTR
                g.linkage = "internal"
                g.initializer = ir.Constant(at, ir.Undefined)
                g.align = SHARED_ALIGN
            self.ctx.vars[s.buffer_var] = g
        elif scope == "local":
            if count is None:
                raise TepadError(f"kernel {self.name}: local buffer {s.buffer_var.name} has "
                                 f"non-constant size {list(s.extents)}; a thread's local "
                                 "memory needs a size known when compiling")
            a = self.entry_alloca(ir.ArrayType(elem_t, max(count, 1)), name=name)
            a.align = LOCAL_ALIGN
            self.ctx.vars[s.buffer_var] = a
        else:
            raise TepadError(f"kernel {self.name}: buffer {s.buffer_var.name} of scope "
                             f"{scope!r} is allocated inside the kernel; only 'shared' and "
                             "'local' memory can be (global scratch is allocated by the host)")
        self.stmt(s.body)

    def _default_scope(self) -> str:
        if any(t.startswith("threadIdx") for t in self.launch_stack):
            return "local"
        if self.launch_stack:
            return "shared"
        return "global"

    def vector_align(self, ramp, elem_align: int) -> int:
        lanes = ramp.lanes
        mult = math.gcd(known_multiple(ramp.base), lanes)
        return max(elem_align, min(elem_align * (mult & -mult), MAX_VECTOR_ALIGN))

    # ------------------------------------------------------------------ control
    def stmt_AssertStmt(self, s):
        cond = self.expr(s.condition)
        ok = self.ctx.fn.append_basic_block("assert.ok")
        fail = self.ctx.fn.append_basic_block("assert.fail")
        self.b.cbranch(cond, ok, fail)
        self.b.position_at_end(fail)
        self.emit_return_status(None)
        self.b.position_at_end(ok)
        self.stmt(s.body)

    def emit_return_status(self, code):
        """A device kernel cannot return a status: it traps (the launch fails)."""
        self.b.call(self.declare("llvm.trap", VOID, []), [])
        self.b.unreachable()

    # ------------------------------------------------------------------ calls
    def expr_Call(self, e):
        op = e.op if e.op.startswith("tir.") else "tir." + e.op
        if op == "tir.tvm_storage_sync":
            scope = e.args[0].value if e.args and isinstance(e.args[0], tir.StringImm) else ""
            if scope not in ("shared", "warp", ""):
                raise TepadError(f"kernel {self.name}: tvm_storage_sync({scope!r}) is not a "
                                 "barrier a kernel can take; use 'shared'")
            if scope == "warp":        # threads of a warp may diverge (Volta and later)
                self.b.call(self.declare("llvm.nvvm.bar.warp.sync", VOID, [I32]), [I32(-1)])
            else:
                self.b.call(self.declare("llvm.nvvm.barrier0", VOID, []), [])
            return I32(0)
        if op == "tir.prefetch":
            return ir.Constant(ll_type(e.dtype), 0)
        if is_wmma_call(e):
            return self.wmma_call(e)
        if op in _SHUFFLES:
            return self.warp_shuffle(_SHUFFLES[op], e)
        if op == "tir.tvm_warp_activemask":
            return self.b.call(self.declare("llvm.nvvm.activemask", I32, []), [])
        if op in ("tir.tvm_call_packed", "tir.tvm_call_cpacked"):
            raise TepadError(f"kernel {self.name}: calls the packed function "
                             f"{e.args[0]!r}; device code cannot call Python or host "
                             "functions (call them on the host, outside the launch)")
        if op == "tir.tvm_thread_allreduce":
            raise TepadError(f"kernel {self.name}: a cross-thread reduction reached the code "
                             "generator; lower_thread_allreduce must lower it first")
        if op == "tir.fma":
            return super().call_intrinsic("llvm.fma", [self.expr(a) for a in e.args])
        return super().expr_Call(e)

    def call_extern(self, e):
        """A C function called by name: on the device, libdevice's function of that name
        (``expf``, ``__nv_expf``, CUDA's ``__expf``); anything else cannot be linked."""
        name = e.args[0].value if e.args and isinstance(e.args[0], tir.StringImm) else None
        fname = libdevice_function(name) if name else None
        if fname is None:
            raise TepadError(f"kernel {self.name}: calls the C function {name!r}, which a CUDA "
                             "kernel cannot call; device code can call libdevice's functions "
                             "(expf, __nv_expf, __expf, ...) when libdevice is installed "
                             "(pip install nvidia-cuda-nvcc-cu12)")
        vals = [self.expr(a) for a in e.args[1:]]
        self.libdevice.add(fname)
        return self.b.call(self.declare(fname, ll_type(e.dtype), [v.type for v in vals]), vals)

    def warp_shuffle(self, mode: str, e) -> ir.Value:
        """TVM's ``tvm_warp_shuffle[_up|_down](mask, value, lane_or_delta, width,
        warp_size)``: ``shfl.sync.<mode>`` (CUDA's ``__shfl*_sync``) of a 32-bit value, a
        64-bit one as two halves."""
        mask, value, lane, width, warp = [self.expr(a) for a in e.args]
        i32 = lambda v, a: self.cast_to(v, a.dtype, "int32")      # noqa: E731
        mask, lane = i32(mask, e.args[0]), i32(lane, e.args[2])
        width, warp = i32(width, e.args[3]), i32(warp, e.args[4])
        # the clamp word: lanes outside the segment of ``width`` (and, up, below it) keep theirs
        c = self.b.shl(self.b.sub(warp, width), I32(8))
        if mode != "up":
            c = self.b.or_(c, I32(0x1F))
        t = value.type
        bits = t.width if isinstance(t, ir.IntType) else {ir.HalfType: 16, ir.FloatType: 32,
                                                           ir.DoubleType: 64}.get(type(t))
        if isinstance(t, ir.VectorType) or bits is None or bits > 64:
            raise TepadError(f"kernel {self.name}: warp shuffle of {e.args[1].dtype} is not "
                             "supported (scalars of up to 64 bits)")
        fn = self.declare(f"llvm.nvvm.shfl.sync.{mode}.i32", I32, [I32, I32, I32, I32])
        raw = self.b.bitcast(value, ir.IntType(bits)) if not isinstance(t, ir.IntType) else value
        if bits <= 32:
            x = self.b.zext(raw, I32) if bits < 32 else raw
            r = self.b.call(fn, [mask, x, lane, c])
            r = self.b.trunc(r, ir.IntType(bits)) if bits < 32 else r
        else:
            i64 = ir.IntType(64)
            lo = self.b.call(fn, [mask, self.b.trunc(raw, I32), lane, c])
            hi = self.b.call(fn, [mask, self.b.trunc(self.b.lshr(raw, i64(32)), I32), lane, c])
            r = self.b.or_(self.b.shl(self.b.zext(hi, i64), i64(32)), self.b.zext(lo, i64))
        return r if isinstance(t, ir.IntType) else self.b.bitcast(r, t)

    def call_intrinsic(self, base, args):
        lib = LIBDEVICE_OF_INTRINSIC.get(base)
        if lib is not None:
            return self.call_libdevice(lib, args)
        return super().call_intrinsic(base, args)

    def call_libm(self, name, x):
        return self.call_libdevice(name, [x])

    def fmod(self, x, y):
        return self.call_libdevice("fmod", [x, y])

    def call_libdevice(self, base: str, args: list) -> ir.Value:
        """libdevice's ``__nv_<base>f`` (float32) or ``__nv_<base>`` (float64) of ``args``;
        float16 computes in float32; a vector lane by lane."""
        t = args[0].type
        if isinstance(t, ir.VectorType):
            out = ir.Constant(t, ir.Undefined)
            for k in range(t.count):
                lane = self.call_libdevice(base, [self.b.extract_element(a, I32(k))
                                                  for a in args])
                out = self.b.insert_element(out, lane, I32(k))
            return out
        if isinstance(t, ir.HalfType):
            f32 = ir.FloatType()
            r = self.call_libdevice(base, [self.b.fpext(a, f32) for a in args])
            return self.b.fptrunc(r, t)
        if isinstance(t, ir.FloatType):
            fname = f"__nv_{base}f"
        elif isinstance(t, ir.DoubleType):
            fname = f"__nv_{base}"
        else:
            raise InternalError(f"codegen: libdevice {base} of {t}")
        self.libdevice.add(fname)
        return self.b.call(self.declare(fname, t, [a.type for a in args]), args)


def emit_kernel_ir(func: tir.PrimFunc, name: str | None = None) -> tuple[str, set]:
    """``(LLVM IR text, libdevice functions called)`` of one device kernel PrimFunc."""
    em = NVPTXEmitter(func, name or func.attrs.get("global_symbol", "kernel"))
    return em.run(), em.libdevice


_lock = threading.Lock()


def compile_ptx(kernels, arch: str = DEFAULT_ARCH, opt: int = 3) -> tuple[str, str]:
    """``(PTX text, optimized LLVM IR)`` of the device kernel PrimFuncs ``kernels``, in one
    module for ``arch`` (warp memory already lowered: ``tepad.backend.cuda``), emitted, linked with
    libdevice when they call it (a TepadError saying how to install it when missing),
    non-kernel functions internalized, optimized at ``opt`` and verified."""
    tm = target_machine(arch, opt)
    names = [k.attrs.get("global_symbol", f"kernel{i}") for i, k in enumerate(kernels)]
    with _lock:
        mod, needed = None, set()
        for k, name in zip(kernels, names):
            text, lib = emit_kernel_ir(k, name)
            needed |= lib
            try:
                m = llvm.parse_assembly(text)
            except RuntimeError as err:
                raise InternalError(f"nvptx codegen produced invalid IR for {name}: {err}\n"
                                    f"{text}") from None
            m.triple = TRIPLE
            m.data_layout = str(tm.target_data)
            if mod is None:
                mod = m
            else:
                mod.link_in(m)
        if needed:
            lib = load_libdevice(sorted(needed))
            lib.triple = TRIPLE
            lib.data_layout = str(tm.target_data)
            mod.link_in(lib)
        keep = set(names)
        for f in mod.functions:
            if not f.is_declaration and f.name not in keep:
                f.linkage = llvm.Linkage.internal
        try:
            mod.verify()
        except RuntimeError as err:
            raise InternalError(f"nvptx codegen: LLVM rejected the kernels: {err}") from None
        if needed:      # drop the ~570 libdevice functions not called before optimizing
            dce = llvm.create_new_module_pass_manager()
            dce.add_global_dead_code_eliminate_pass()
            dce.run(mod, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options()))
        optimize(mod, tm, opt)
        return tm.emit_assembly(mod), str(mod)


__all__ = ["NVPTXEmitter", "emit_kernel_ir", "compile_ptx",
           "known_multiple", "LIBDEVICE_OF_INTRINSIC"]
