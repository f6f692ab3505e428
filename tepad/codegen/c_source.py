"""Device kernels as C-dialect source: CUDA C and OpenCL C, for reading, printing and grepping.

``kernel_source(kernels, "cuda")`` / ``kernel_source(kernels, "opencl")`` print the device
kernels the host/device split made (``SplitFunc.kernels``, after warp lowering) the way TVM's
source code generators do: what ``mod.imported_modules[0].get_source()`` shows. tepad runs
CUDA kernels as PTX (``nvptx``) or through the CPU emulator, never from this text; it is not
compiled here and is meant to say exactly what the IR says:

* a kernel is ``extern "C" __global__ void [__launch_bounds__(n)] name(float* __restrict__ A,
  ..., int n)`` (CUDA; ``n`` the block's thread count when it is a constant) or ``__kernel
  void name(__global float* restrict A, ..., int n)`` (OpenCL); a launch's thread index is
  ``((int)threadIdx.x)`` / ``((int)get_local_id(0))``, a block index ``((int)blockIdx.x)``
  / ``((int)get_group_id(0))``;
* an allocation by its scope: ``__shared__ float X[64];`` / ``__local float X[64];``,
  ``float X[4];`` (local), tensor-core fragments as ``nvcuda::wmma::fragment<...> X[n];``
  (CUDA only); no scope is ``local`` under a thread index and ``shared`` under a block index
  only (TVM's default, as the NVPTX back end reads it);
* loops (``#pragma unroll`` for unrolled ones), if / else, while, lets (a ``LetStmt`` is a
  declaration, a ``Let`` expression one hoisted before the statement that holds it);
* vectors: ``float4`` types, a contiguous vector access ``((float4*)(A + i))[0]`` (CUDA) or
  ``vload4(0, A + i)`` / ``vstore4`` (OpenCL), broadcasts and ramps ``make_float4(...)`` /
  ``((float4)(...))``, other index vectors lane by lane; CUDA has no vector operators, so
  vector arithmetic, comparisons, selects, casts and math are written lane by lane into
  ``make_float4(...)``, each loaded vector held once in a declared temporary;
* calls: math intrinsics by the names TVM's rules give them (CUDA: ``__expf`` for float32
  ``exp``, TVM's fast-math rule, ``expf`` style otherwise, ``hexp`` for half; OpenCL:
  ``exp``; tepad's own PTX takes libdevice's functions, and a rule registered with
  ``register_intrin_lowering`` has been applied before printing),
  ``call_extern`` / ``call_pure_extern`` by the name given, barriers (``__syncthreads()`` /
  ``barrier(CLK_LOCAL_MEM_FENCE)``), warp shuffles (``__shfl_sync``, ``__shfl_up_sync``,
  ``__shfl_down_sync``, ``__activemask()``; OpenCL's sub-group shuffles), atomics
  (``atomicAdd`` / ``atomic_add``) and TVM's wmma intrinsics as the ``nvcuda::wmma`` calls.

A statement or call with no C meaning for the dialect (a tensor-core call in OpenCL, a block
that lowering should have removed) is a TepadError naming the kernel.
"""
from __future__ import annotations

import math
import re

from .. import tir
from ..errors import TepadError
from ..arith import Analyzer
from ..tir import dtype as dt
from ..tir.expr import Range
from ..tir.launch import THREAD_EXTENT, launch_tag
from ..tir.storage_scope import storage_rank
from ..tir.wmma import wmma_op

# the math calls both dialects know by a C name (float32 gets CUDA's ``f`` suffix)
_MATH = ("exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin",
         "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
         "acosh", "atanh", "floor", "ceil", "trunc", "round", "nearbyint", "fabs", "pow", "erf",
         "fmod", "copysign", "hypot", "nextafter", "ldexp", "fma")
_CUDA_FAST = {"exp": "__expf", "exp10": "__exp10f", "log": "__logf", "log2": "__log2f",
              "log10": "__log10f", "tan": "__tanf", "cos": "__cosf", "sin": "__sinf",
              "pow": "__powf"}
_CUDA_HALF = {"exp": "hexp", "exp2": "hexp2", "exp10": "hexp10", "log": "hlog", "log2": "hlog2",
              "log10": "hlog10", "sqrt": "hsqrt", "rsqrt": "hrsqrt", "sin": "hsin",
              "cos": "hcos", "floor": "hfloor", "ceil": "hceil", "trunc": "htrunc",
              "nearbyint": "hrint", "round": "hrint", "fabs": "__habs"}
_BINARY = {tir.Add: "+", tir.Sub: "-", tir.Mul: "*", tir.LT: "<", tir.LE: "<=", tir.GT: ">",
           tir.GE: ">=", tir.EQ: "==", tir.NE: "!=", tir.And: "&&", tir.Or: "||"}
_BITWISE = {"tir.bitwise_and": "&", "tir.bitwise_or": "|", "tir.bitwise_xor": "^",
            "tir.shift_left": "<<", "tir.shift_right": ">>"}
_LANES = "xyzw"
_WMMA = ("tir.tvm_fill_fragment", "tir.tvm_load_matrix_sync", "tir.tvm_mma_sync",
         "tir.tvm_store_matrix_sync")
# C / CUDA / OpenCL words a variable cannot be named
_RESERVED = frozenset(
    "auto bool break case char const continue default do double else enum extern float for "
    "goto half if inline int long register restrict return short signed sizeof static struct "
    "switch typedef union unsigned void volatile while uchar ushort uint ulong kernel global "
    "local constant private threadIdx blockIdx blockDim gridDim warpSize min max".split())
_SHUFFLES = {"tir.tvm_warp_shuffle": "", "tir.tvm_warp_shuffle_up": "_up",
             "tir.tvm_warp_shuffle_down": "_down"}


class Dialect:
    """What differs between the C dialects: names of types, indices, memories and calls."""

    name = ""
    lane_by_lane = False        # vector arithmetic written lane by lane (no vector operators)

    def scalar_type(self, d) -> str:
        if d.scalar == "handle":
            return "void*"
        if d.is_bool:
            return "bool"
        if d.is_float:
            return {16: "half", 32: "float", 64: "double"}[d.bits] if d.scalar != "bfloat16" \
                else self.bfloat16
        base = {8: "char", 16: "short", 32: "int", 64: self.int64}[d.bits]
        return ("u" + base if base != "char" else "uchar") if d.is_uint else \
            ("signed char" if base == "char" and d.lanes == 1 else base)

    bfloat16 = "bfloat16"
    int64 = "long"

    def type_name(self, dtype) -> str:
        d = dt.parse(dtype)
        if d.lanes == 1:
            return self.scalar_type(d)
        base = self.scalar_type(dt.parse(d.scalar))
        base = {"signed char": "char", "int64_t": "long", "uint64_t": "ulong"}.get(base, base)
        return f"{base}{d.lanes}"


class CudaDialect(Dialect):
    name = "cuda"
    lane_by_lane = True
    int64 = "int64_t"
    bfloat16 = "nv_bfloat16"

    def kernel_head(self, name, params, threads) -> str:
        bounds = f"__launch_bounds__({threads}) " if threads else ""
        return f'extern "C" __global__ void {bounds}{name}({", ".join(params)})'

    def pointer_param(self, elem, name) -> str:
        return f"{elem}* __restrict__ {name}"

    def index(self, tag) -> str:
        return f"((int){tag})"

    def memory(self, scope) -> str:
        return "__shared__ " if scope == "shared" else ""

    def sync(self, scope) -> str:
        return {"shared": "__syncthreads()", "warp": "__syncwarp()",
                "global": "__threadfence(); __syncthreads()"}.get(scope, "__syncthreads()")

    def math(self, op, dtype) -> str:
        d = dt.parse(dtype)
        if d.bits == 16 and d.is_float:
            return _CUDA_HALF.get(op, op + "f")
        if d.bits == 32 and d.is_float:
            return _CUDA_FAST.get(op, op + "f")
        return op

    def vector(self, dtype, parts) -> str:
        return f"make_{self.type_name(dtype)}({', '.join(parts)})"

    def broadcast(self, dtype, value, lanes) -> str:
        return self.vector(dtype, [value] * lanes)

    def lane(self, vec, k, lanes) -> str:
        return f"({vec}).{_LANES[k]}" if lanes <= 4 else f"((({vec})).s{k:x})"

    def vload(self, elem_t, vec_t, ptr, lanes) -> str:
        return f"(({vec_t}*)({ptr}))[0]"

    def vstore(self, elem_t, vec_t, ptr, value, lanes) -> str:
        return f"(({vec_t}*)({ptr}))[0] = {value};"

    def cast(self, to, value, src) -> str:
        lanes = dt.lanes(to)
        if lanes == 1:
            return f"(({self.type_name(to)}){value})"
        # CUDA has no vector casts: lane by lane into make_<type>
        elem = self.type_name(dt.element_of(to))
        return self.vector(to, [f"(({elem}){self.lane(value, k, lanes)})" for k in range(lanes)])

    def shuffle(self, kind, mask, value, lane, width) -> str:
        return f"__shfl{kind}_sync({mask}, {value}, {lane}, {width})"

    activemask = "__activemask()"

    def atomic_add(self, ptr, value) -> str:
        return f"atomicAdd({ptr}, {value})"

    def header(self, text) -> list:
        lines = ["// CUDA C made by tepad from the device kernels' TIR (for reading; tepad "
                 "runs the PTX)"]
        if "half" in text:
            lines.append("#include <cuda_fp16.h>")
        if "nv_bfloat16" in text:
            lines.append("#include <cuda_bf16.h>")
        if "int64_t" in text:
            lines.append("#include <cstdint>")
        if "uchar" in text:
            lines.append("typedef unsigned char uchar;")
        for t in ("ushort", "uint"):
            if re.search(rf"\b{t}\b", text):
                lines.append(f"typedef unsigned {t[1:]} {t};")
        if "nvcuda::wmma" in text:
            lines.append("#include <mma.h>")
        return lines


class OpenCLDialect(Dialect):
    name = "opencl"

    def kernel_head(self, name, params, threads) -> str:
        return f"__kernel void {name}({', '.join(params)})"

    def pointer_param(self, elem, name) -> str:
        return f"__global {elem}* restrict {name}"

    def index(self, tag) -> str:
        kind, _, axis = tag.partition(".")
        fn = "get_local_id" if kind == "threadIdx" else "get_group_id"
        return f"((int){fn}({'xyz'.index(axis)}))"

    def memory(self, scope) -> str:
        return "__local " if scope == "shared" else ""

    def sync(self, scope) -> str:
        return {"shared": "barrier(CLK_LOCAL_MEM_FENCE)", "warp": "sub_group_barrier("
                "CLK_LOCAL_MEM_FENCE)", "global": "barrier(CLK_GLOBAL_MEM_FENCE)"}.get(
            scope, "barrier(CLK_LOCAL_MEM_FENCE)")

    def math(self, op, dtype) -> str:
        return op

    def vector(self, dtype, parts) -> str:
        return f"(({self.type_name(dtype)})({', '.join(parts)}))"

    def broadcast(self, dtype, value, lanes) -> str:
        return f"(({self.type_name(dtype)})({value}))"

    def lane(self, vec, k, lanes) -> str:
        return f"(({vec})).s{k:x}"

    def vload(self, elem_t, vec_t, ptr, lanes) -> str:
        return f"vload{lanes}(0, {ptr})"

    def vstore(self, elem_t, vec_t, ptr, value, lanes) -> str:
        return f"vstore{lanes}({value}, 0, {ptr});"

    def cast(self, to, value, src) -> str:
        if dt.lanes(to) > 1:
            return f"convert_{self.type_name(to)}({value})"
        return f"(({self.type_name(to)}){value})"

    def shuffle(self, kind, mask, value, lane, width) -> str:
        fn = {"": "sub_group_shuffle", "_up": "sub_group_shuffle_up",
              "_down": "sub_group_shuffle_down"}[kind]
        return f"{fn}({value}, {lane})"

    activemask = "0xffffffffu"

    def atomic_add(self, ptr, value) -> str:
        return f"atomic_add({ptr}, {value})"

    def header(self, text) -> list:
        lines = ["// OpenCL C made by tepad from the device kernels' TIR"]
        if "half" in text:
            lines.append("#pragma OPENCL EXTENSION cl_khr_fp16 : enable")
        if "double" in text:
            lines.append("#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
        if "sub_group" in text:
            lines.append("#pragma OPENCL EXTENSION cl_khr_subgroups : enable")
        return lines


DIALECTS = {"cuda": CudaDialect(), "opencl": OpenCLDialect()}


class _KernelPrinter:
    """One kernel as C text in ``dialect``."""

    def __init__(self, func: tir.PrimFunc, dialect: Dialect):
        self.func, self.d, self.name = func, dialect, func.name
        self.lines: list = []
        self.pending: list = []         # declarations of Let expressions of the statement
        self.names: dict = {}           # var -> C identifier
        self.taken: set = set()
        self.launch: list = []          # thread tags of the enclosing launches
        self.threads: dict = {}         # threadIdx tag -> constant extent (None: varies)
        self.elem_of: dict = {}         # data var -> element dtype
        self.fragments: dict = {}       # fragment data var -> scope
        self.an = Analyzer()            # ranges of loops, launches, lets: C division where
        #                                 floor division is provably the same

    # ------------------------------------------------------------------ names and types
    def ident(self, var) -> str:
        got = self.names.get(var)
        if got is not None:
            return got
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in var.name) or "v"
        if base[0].isdigit():
            base = "v" + base
        if base in _RESERVED:
            base += "_"
        name, k = base, 0
        while name in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name)
        self.names[var] = name
        return name

    def ty(self, dtype) -> str:
        return self.d.type_name(dtype)

    def fail(self, what) -> TepadError:
        return TepadError(f"kernel {self.name}: {what} has no {self.d.name} C form")

    # ------------------------------------------------------------------ kernel
    def run(self) -> str:
        body = self.func.body
        self._element_types(body)
        params = []
        for p in self.func.params:
            buf = self.func.buffer_map.get(p)
            if buf is not None:
                self.names[buf.data] = self.ident(p)
                self.names[p] = self.names[buf.data]
                params.append(self.d.pointer_param(self.ty(buf.dtype), self.ident(p)))
            elif p.dtype == "handle":
                elem = self.elem_of.get(p)
                params.append(self.d.pointer_param(self.ty(elem) if elem else "void",
                                                   self.ident(p)))
            else:
                params.append(f"{self.ty(p.dtype)} {self.ident(p)}")
        self.indent = 1
        self.stmt(body)
        dims = [self.threads.get(f"threadIdx.{a}", 1) for a in "xyz"]
        threads = math.prod(dims) if all(isinstance(x, int) for x in dims) else None
        head = self.d.kernel_head(self.name, params, threads)
        return "\n".join([head + " {"] + self.lines + ["}"])

    def _element_types(self, body):
        def see(n):
            if isinstance(n, (tir.BufferLoad, tir.BufferStore)):
                self.elem_of.setdefault(n.buffer.data, n.buffer.dtype)
            elif isinstance(n, tir.Call) and wmma_op(n) == "tir.tvm_access_ptr" and \
                    len(n.args) > 1 and isinstance(n.args[1], tir.Var):
                self.elem_of.setdefault(n.args[1], n.args[0].dtype)
        tir.stmt_functor.post_order_visit(body, see)

    def emit(self, text):
        pad = "  " * self.indent
        for decl in self.pending:
            self.lines.append(pad + decl)
        self.pending = []
        self.lines.append(pad + text)

    # ------------------------------------------------------------------ statements
    def stmt(self, s):
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            raise self.fail(f"statement {type(s).__name__} (lowering should have removed it)")
        method(s)

    def block(self, s):
        self.indent += 1
        self.stmt(s)
        self.indent -= 1

    def stmt_SeqStmt(self, s):
        for x in s.seq:
            self.stmt(x)

    def stmt_AttrStmt(self, s):
        if s.attr_key != THREAD_EXTENT:
            self.stmt(s.body)
            return
        tag = launch_tag(s)
        kind, _, axis = tag.partition(".")
        if kind not in ("threadIdx", "blockIdx") or axis not in ("x", "y", "z"):
            raise self.fail(f"launch attribute {tag!r} (not blockIdx/threadIdx .x/.y/.z)")
        var = s.node.var if hasattr(s.node, "var") else s.node
        self.names[var] = self.d.index(tag)
        if kind == "threadIdx":
            ext = int(s.value.value) if isinstance(s.value, tir.IntImm) else None
            old = self.threads.get(tag, ext)
            self.threads[tag] = ext if old == ext else None
        self.launch.append(tag)
        with self.an.bind_scope(var, Range.from_min_extent(0, s.value)):
            self.stmt(s.body)
        self.launch.pop()

    def stmt_For(self, s):
        v = self.ident(s.loop_var)
        t = self.ty(s.loop_var.dtype)
        lo, ext = self.expr(s.min), self.expr(s.extent)
        end = ext if _is_zero(s.min) else f"({lo} + {ext})"
        if s.kind == tir.ForKind.UNROLLED:
            self.emit("#pragma unroll")
        self.emit(f"for ({t} {v} = {lo}; {v} < {end}; ++{v}) {{")
        with self.an.bind_scope(s.loop_var, Range.from_min_extent(s.min, s.extent)):
            self.block(s.body)
        self.emit("}")

    def stmt_While(self, s):
        self.emit(f"while ({self.expr(s.condition)}) {{")
        self.block(s.body)
        self.emit("}")

    def stmt_IfThenElse(self, s):
        self.emit(f"if ({self.expr(s.condition)}) {{")
        with self.an.constraint_scope(s.condition):
            self.block(s.then_case)
        if s.else_case is not None and not tir.is_no_op(s.else_case):
            self.emit("} else {")
            self.block(s.else_case)
        self.emit("}")

    def stmt_LetStmt(self, s):
        value = self.expr(s.value)
        self.emit(f"{self.ty(s.var.dtype)} {self.ident(s.var)} = {value};")
        with self.an.bind_scope(s.var, s.value):
            self.stmt(s.body)

    def stmt_AssertStmt(self, s):
        self.stmt(s.body)

    def stmt_Evaluate(self, s):
        if isinstance(s.value, tir.ConstExpr):
            return
        self.emit(self.expr(s.value) + ";")

    def stmt_Allocate(self, s):
        raw = s.annotations.get("scope") or ""
        name = self.ident(s.buffer_var)
        self.elem_of[s.buffer_var] = s.dtype
        count = 1
        for e in s.extents:
            count = count * int(e.value) if isinstance(e, tir.IntImm) and count is not None \
                else None
        if isinstance(raw, str) and raw.startswith("wmma.") and self._by_intrinsics(s):
            self._fragment(s, raw, name, count)
        else:
            scope = storage_rank(raw or self._default_scope())
            if scope not in ("shared", "local", "warp"):
                raise self.fail(f"an allocation of {name} in {scope!r} memory inside the kernel")
            if count is None:
                if scope != "shared":
                    raise self.fail(f"local buffer {name} of non-constant size")
                if self.d.name == "cuda":
                    self.emit(f"extern __shared__ {self.ty(s.dtype)} {name}[];")
                else:
                    size = " * ".join(self.expr(e) for e in s.extents)
                    self.emit(f"__local {self.ty(s.dtype)} {name}[{size}];")
            else:
                self.emit(f"{self.d.memory(scope)}{self.ty(s.dtype)} {name}[{max(count, 1)}];")
        self.stmt(s.body)

    def _default_scope(self) -> str:
        if any(t.startswith("threadIdx") for t in self.launch):
            return "local"
        return "shared" if self.launch else "global"

    def _fragment(self, s, scope, name, count):
        if self.d.name != "cuda":
            raise self.fail(f"tensor-core fragment {name} ({scope})")
        if count is None:
            raise self.fail(f"fragment {name} of non-constant size")
        role = scope[len("wmma."):]
        layout = self._fragment_layout(s)
        parts = [f"nvcuda::wmma::{role}", "16", "16", "16", self.ty(s.dtype)]
        if role != "accumulator":
            parts.append(f"nvcuda::wmma::{layout}")
        self.fragments[s.buffer_var] = scope
        frags = max(1, -(-count // 256))
        self.emit(f"nvcuda::wmma::fragment<{', '.join(parts)}> {name}[{frags}];")

    @staticmethod
    def _by_intrinsics(s) -> bool:
        """Whether the tensor-core intrinsics use allocation ``s`` (a fragment); one used
        element by element only (an untensorized schedule) is a per-thread local array, as
        the NVPTX back end makes it."""
        found = []

        def see(n):
            if isinstance(n, tir.Call) and wmma_op(n) in _WMMA and \
                    any(a is s.buffer_var for a in n.args):
                found.append(n)
        tir.stmt_functor.post_order_visit(s.body, see)
        return bool(found)

    def _fragment_layout(self, s) -> str:
        found = []

        def see(n):
            if isinstance(n, tir.Call) and wmma_op(n) == "tir.tvm_load_matrix_sync" and \
                    n.args and n.args[0] is s.buffer_var and isinstance(n.args[7], tir.StringImm):
                found.append(n.args[7].value)
        tir.stmt_functor.post_order_visit(s.body, see)
        return found[0] if found else "row_major"

    def stmt_BufferStore(self, s):
        buf = self.ident(s.buffer.data)
        (index,) = _flat(s, s.indices)
        value = self.expr(s.value)
        lanes = dt.lanes(s.value.dtype)
        if lanes == 1:
            self.emit(f"{buf}[{self.expr(index)}] = {value};")
        elif _contiguous(index):
            ptr = f"{buf} + {self.expr(index.base)}"
            self.emit(self.d.vstore(self.ty(s.buffer.dtype), self.ty(s.value.dtype), ptr, value,
                                    lanes))
        else:
            vec, idx = self.temp(s.value.dtype, value), self.temp(index.dtype, self.expr(index))
            for k in range(lanes):
                self.emit(f"{buf}[{self.d.lane(idx, k, lanes)}] = {self.d.lane(vec, k, lanes)};")

    def temp(self, dtype, value) -> str:
        name = self.ident(tir.Var("vec", dtype))
        self.emit(f"{self.ty(dtype)} {name} = {value};")
        return name

    # ------------------------------------------------------------------ expressions
    def expr(self, e) -> str:
        if isinstance(e, (bool, int, float)):       # a Python number an index list kept
            e = tir.const(e)
        lanes = dt.lanes(e.dtype) if isinstance(e, tir.PrimExpr) else 1
        if lanes > 1 and self.d.lane_by_lane and _lanewise(e):
            return self.d.vector(e.dtype, self._lanes(e, lanes))
        if isinstance(e, tir.BinaryOp):
            return self._binary(e)
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            raise self.fail(f"expression {type(e).__name__}")
        return method(e)

    def _lanes(self, e, lanes) -> list:
        """The C of each lane of the vector ``e``, for a dialect without vector operators
        (CUDA): arithmetic, comparisons, selects, casts and math calls lane by lane, a
        broadcast as its scalar, a ramp as its lanes; any other vector (a load) is held
        once in a declared temporary and read by lane."""
        if isinstance(e, tir.Broadcast):
            return [self.expr(e.value)] * lanes
        if isinstance(e, tir.Ramp):
            return self._ramp_lanes(e)
        if _lanewise(e):
            elem = dt.element_of(e.dtype)
            if isinstance(e, tir.BinaryOp):
                c_div = isinstance(e, (tir.FloorDiv, tir.FloorMod)) and \
                    self._vector_c_division(e)
                a, b = self._lanes(e.a, lanes), self._lanes(e.b, lanes)
                return [self._binary_text(type(e), dt.element_of(e.a.dtype), x, y, c_div)
                        for x, y in zip(a, b)]
            if isinstance(e, tir.Not):
                return [f"(!{x})" for x in self._lanes(e.a, lanes)]
            if isinstance(e, tir.Select):
                parts = zip(self._lanes(e.condition, lanes), self._lanes(e.true_value, lanes),
                            self._lanes(e.false_value, lanes))
                return [f"({c} ? {t} : {f})" for c, t, f in parts]
            if isinstance(e, tir.Cast):
                return [f"(({self.ty(elem)}){x})" for x in self._lanes(e.value, lanes)]
            # a math call or if_then_else: the scalar call on each lane's arguments
            args = [self._lanes(a, lanes) if dt.lanes(a.dtype) == lanes else
                    [self.expr(a)] * lanes for a in e.args]
            return [self._call_text(_op(e), elem, [a[k] for a in args])
                    for k in range(lanes)]
        text = self.expr(e)
        if not re.fullmatch(r"\w+", text):
            text = self.temp(e.dtype, text)
        return [self.d.lane(text, k, lanes) for k in range(lanes)]

    def expr_IntImm(self, e):
        d = dt.parse(e.dtype)
        if d.is_bool:
            return "true" if e.value else "false"
        if d.bits == 32 and d.is_int:
            return str(e.value)
        return f"(({self.ty(e.dtype)}){e.value}{'u' if d.is_uint else ''})"

    def expr_FloatImm(self, e):
        v = float(e.value)
        if math.isnan(v):
            text = "NAN"
        elif math.isinf(v):
            text = "INFINITY" if v > 0 else "-INFINITY"
        else:
            text = repr(v)          # the shortest text that reads back as the same double
        if e.dtype == "float32":
            return text + ("f" if text[-1].isdigit() else "")
        if e.dtype == "float64":
            return text
        return f"(({self.ty(e.dtype)}){text}f)"

    def expr_StringImm(self, e):
        return '"' + e.value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def expr_Var(self, e):
        return self.ident(e)

    expr_SizeVar = expr_Var

    def _c_division(self, e) -> bool:
        """Whether C's truncating division gives ``e``'s floor division (both sides >= 0)."""
        return self.an.can_prove(e.b > 0) and self.an.can_prove(e.a >= 0)

    def _vector_c_division(self, e) -> bool:
        """``_c_division`` of a vector floor division: a ramp (or broadcast) of non-negative
        lanes by a broadcast positive divisor."""
        a, b = e.a, e.b
        if dt.is_float(e.dtype) or not isinstance(b, tir.Broadcast):
            return False
        if isinstance(a, tir.Broadcast):
            lo = a.value
        elif isinstance(a, tir.Ramp) and isinstance(a.stride, tir.IntImm) and \
                a.stride.value >= 0:
            lo = a.base
        else:
            return False
        return self.an.can_prove(b.value > 0) and self.an.can_prove(lo >= 0)

    def _binary(self, e) -> str:
        c_div = isinstance(e, (tir.FloorDiv, tir.FloorMod)) and not dt.is_float(e.dtype) and \
            self._c_division(e)
        return self._binary_text(type(e), e.dtype, self.expr(e.a), self.expr(e.b), c_div)

    def _binary_text(self, cls, dtype, a, b, c_division=False) -> str:
        """The C of the binary operation ``cls`` of scalar type ``dtype`` on printed operands
        (``c_division``: floor division / modulo proved to be C's)."""
        if cls in _BINARY:
            return f"({a} {_BINARY[cls]} {b})"
        if cls in (tir.Min, tir.Max):
            return f"{'min' if cls is tir.Min else 'max'}({a}, {b})"
        is_float = dt.is_float(dtype)
        if cls is tir.Div:
            return f"({a} / {b})"
        if cls is tir.Mod:
            return f"{self.d.math('fmod', dtype)}({a}, {b})" if is_float else f"({a} % {b})"
        if cls is tir.FloorDiv:
            if is_float:
                return f"{self.d.math('floor', dtype)}(({a} / {b}))"
            if c_division:
                return f"({a} / {b})"
            # the floor of the quotient for either sign (what was not proved non-negative)
            return f"(({a} / {b}) - ((({a} % {b}) != 0) && ((({a} < 0)) != (({b} < 0)))))"
        if cls is tir.FloorMod:
            if is_float:
                return f"({a} - {self.d.math('floor', dtype)}(({a} / {b})) * {b})"
            return f"({a} % {b})" if c_division else f"(((({a} % {b}) + {b}) % {b}))"
        raise self.fail(f"expression {cls.__name__}")

    def expr_Not(self, e):
        return f"(!{self.expr(e.a)})"

    def expr_Select(self, e):
        return f"({self.expr(e.condition)} ? {self.expr(e.true_value)} : " \
               f"{self.expr(e.false_value)})"

    def expr_Cast(self, e):
        return self.d.cast(e.dtype, self.expr(e.value), e.value.dtype)

    def expr_Let(self, e):
        self.pending.append(f"{self.ty(e.var.dtype)} {self.ident(e.var)} = "
                            f"{self.expr(e.value)};")
        return self.expr(e.body)

    def _ramp_lanes(self, e) -> list:
        base = self.expr(e.base)
        if isinstance(e.stride, tir.IntImm):
            return [base] + [f"({base} + {e.stride.value * k})" for k in range(1, e.lanes)]
        stride = self.expr(e.stride)
        return [base] + [f"({base} + ({stride} * {k}))" for k in range(1, e.lanes)]

    def expr_Ramp(self, e):
        return self.d.vector(e.dtype, self._ramp_lanes(e))

    def expr_Broadcast(self, e):
        return self.d.broadcast(e.dtype, self.expr(e.value), e.lanes)

    def expr_Shuffle(self, e):
        lanes = []
        for v in e.vectors:
            n = dt.lanes(v.dtype)
            text = self.expr(v)
            lanes += [text] if n == 1 else [self.d.lane(text, k, n) for k in range(n)]
        if not all(isinstance(i, tir.IntImm) for i in e.indices):
            raise self.fail("a shuffle with a non-constant index")
        parts = [lanes[int(i.value)] for i in e.indices]
        return parts[0] if len(parts) == 1 else self.d.vector(e.dtype, parts)

    def expr_BufferLoad(self, e):
        buf = self.ident(e.buffer.data)
        (index,) = _flat(e, e.indices)
        lanes = dt.lanes(e.dtype)
        if lanes == 1:
            return f"{buf}[{self.expr(index)}]"
        if _contiguous(index):
            return self.d.vload(self.ty(e.buffer.dtype), self.ty(e.dtype),
                                f"{buf} + {self.expr(index.base)}", lanes)
        idx = self.expr(index)
        return self.d.vector(e.dtype, [f"{buf}[{self.d.lane(idx, k, lanes)}]"
                                       for k in range(lanes)])

    def expr_Call(self, e):
        op = e.op if e.op.startswith("tir.") else "tir." + e.op
        args = e.args
        short = op[len("tir."):]
        if op in ("tir.call_extern", "tir.call_pure_extern"):
            return f"{args[0].value}({', '.join(self.expr(a) for a in args[1:])})"
        if op in ("tir.call_llvm_intrin", "tir.call_llvm_pure_intrin"):
            name = str(getattr(args[0], "value", args[0])).replace(".", "_")
            return f"{name}({', '.join(self.expr(a) for a in args[2:])})"
        if op == "tir.likely":
            return self.expr(args[0])
        if op == "tir.if_then_else":
            return self._call_text(op, e.dtype, [self.expr(a) for a in args])
        if op == "tir.tvm_storage_sync":
            scope = args[0].value if args and isinstance(args[0], tir.StringImm) else "shared"
            return self.d.sync(scope)
        if op in _SHUFFLES:
            mask, value, lane, width = (self.expr(a) for a in args[:4])
            return self.d.shuffle(_SHUFFLES[op], mask, value, lane, width)
        if op == "tir.tvm_warp_activemask":
            return self.d.activemask
        if op == "tir.atomic_add":
            return self.d.atomic_add(self.expr(args[0]), self.expr(args[1]))
        if op == "tir.address_of":
            return f"(&({self.expr(args[0])}))"
        if op == "tir.tvm_access_ptr":
            return f"({self.expr(args[1])} + {self.expr(args[2])})"
        if op in _BITWISE:
            return f"({self.expr(args[0])} {_BITWISE[op]} {self.expr(args[1])})"
        if op == "tir.bitwise_not":
            return f"(~{self.expr(args[0])})"
        if op in ("tir.isnan", "tir.isinf", "tir.isfinite"):
            return f"{short}({self.expr(args[0])})"
        if op == "tir.sigmoid":
            x = self.expr(args[0])
            one = "1.0f" if e.dtype == "float32" else "1.0"
            return f"({one} / ({one} + {self.d.math('exp', e.dtype)}((-{x}))))"
        if op in ("tir.popcount", "tir.clz"):
            name = {"cuda": {"tir.popcount": "__popc", "tir.clz": "__clz"},
                    "opencl": {"tir.popcount": "popcount", "tir.clz": "clz"}}[self.d.name][op]
            if self.d.name == "cuda" and dt.parse(args[0].dtype).bits == 64:
                name += "ll"
            return f"{name}({self.expr(args[0])})"
        if op == "tir.reinterpret":
            return self._reinterpret(e)
        if op == "tir.prefetch":
            return f"/* prefetch */ (void)({self.expr(args[0])})"
        if op in ("tir.tvm_fill_fragment", "tir.tvm_load_matrix_sync", "tir.tvm_mma_sync",
                  "tir.tvm_store_matrix_sync"):
            return self._wmma(op, args)
        if op == "tir.tvm_thread_allreduce":
            raise self.fail("a cross-thread reduction (lower_thread_allreduce lowers it first)")
        if short in _MATH:
            return self._call_text(op, e.dtype, [self.expr(a) for a in args])
        # an intrinsic no rule lowered: printed as the call it is
        return f"{short.replace('.', '_')}({', '.join(self.expr(a) for a in args)})"

    def _call_text(self, op, dtype, args) -> str:
        """A math intrinsic (by the dialect's name for ``dtype``) or ``if_then_else`` on
        printed arguments."""
        if op == "tir.if_then_else":
            return f"({args[0]} ? {args[1]} : {args[2]})"
        return f"{self.d.math(op[len('tir.'):], dtype)}({', '.join(args)})"

    def _reinterpret(self, e):
        src, to = dt.parse(e.args[0].dtype), dt.parse(e.dtype)
        x = self.expr(e.args[0])
        if self.d.name == "opencl":
            return f"as_{self.ty(e.dtype)}({x})"
        known = {("float", 32, "int"): "__float_as_int", ("float", 32, "uint"): "__float_as_uint",
                 ("int", 32, "float"): "__int_as_float", ("uint", 32, "float"): "__uint_as_float",
                 ("float", 64, "int"): "__double_as_longlong",
                 ("int", 64, "float"): "__longlong_as_double"}
        name = known.get((src.code, src.bits, to.code))
        if name is not None and src.bits == to.bits:
            return f"{name}({x})"
        return f"(*({self.ty(e.dtype)}*)(&({x})))"

    def _wmma(self, op, args):
        if self.d.name != "cuda":
            raise self.fail(f"the tensor-core call {op}")
        frag = lambda buf, idx: f"{self.expr(buf)}[{self.expr(idx)}]"      # noqa: E731
        if op == "tir.tvm_fill_fragment":
            return f"nvcuda::wmma::fill_fragment({frag(args[0], args[4])}, {self.expr(args[5])})"
        if op == "tir.tvm_mma_sync":
            d, a, b, c = (frag(args[k], args[k + 1]) for k in (0, 2, 4, 6))
            return f"nvcuda::wmma::mma_sync({d}, {a}, {b}, {c})"
        ptr, stride = self.expr(args[5]), self.expr(args[6])
        layout = args[7].value if isinstance(args[7], tir.StringImm) else "row_major"
        if op == "tir.tvm_load_matrix_sync":
            target = frag(args[0], args[4])
            if self.fragments.get(args[0]) == "wmma.accumulator":
                return f"nvcuda::wmma::load_matrix_sync({target}, {ptr}, {stride}, " \
                       f"nvcuda::wmma::mem_{layout})"
            return f"nvcuda::wmma::load_matrix_sync({target}, {ptr}, {stride})"
        return f"nvcuda::wmma::store_matrix_sync({ptr}, {frag(args[0], args[4])}, {stride}, " \
               f"nvcuda::wmma::mem_{layout})"


def _op(call) -> str:
    return call.op if call.op.startswith("tir.") else "tir." + call.op


def _lanewise(e) -> bool:
    """Whether a vector ``e`` is written lane by lane in a dialect without vector operators
    (CUDA): arithmetic, comparisons, logic, selects, casts, math calls."""
    if isinstance(e, (tir.BinaryOp, tir.Not, tir.Select, tir.Cast)):
        return True
    return isinstance(e, tir.Call) and (_op(e)[len("tir."):] in _MATH or
                                        _op(e) == "tir.if_then_else")


def _flat(node, indices):
    if len(indices) != 1:
        raise TepadError(f"C source: an access of {node.buffer.name} with {len(indices)} "
                         "indices; device kernels reach the C printer with flat memory")
    return indices


def _contiguous(index) -> bool:
    return isinstance(index, tir.Ramp) and isinstance(index.stride, tir.IntImm) and \
        index.stride.value == 1


def _is_zero(e) -> bool:
    return isinstance(e, tir.IntImm) and e.value == 0


def kernel_source(kernels, dialect: str = "cuda") -> str:
    """The C source of ``kernels`` (device PrimFuncs, as ``SplitFunc.kernels``) in
    ``dialect`` (``"cuda"`` or ``"opencl"``): a header (the includes / extensions the text
    needs), then each kernel. See the module doc."""
    if dialect not in DIALECTS:
        raise TepadError(f"C source dialect {dialect!r}; valid: {', '.join(DIALECTS)}")
    d = DIALECTS[dialect]
    bodies = [_KernelPrinter(k, d).run() for k in kernels]
    text = "\n\n".join(bodies)
    return "\n".join(d.header(text)) + "\n\n" + text + "\n"


__all__ = ["kernel_source", "DIALECTS", "Dialect", "CudaDialect", "OpenCLDialect"]
