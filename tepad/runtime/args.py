"""Argument records and call-time checking: dtype, contiguity, shape binding of symbolic vars."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

import numpy as np

from .. import tir
from ..errors import TepadError, TepadTypeError
from ..tir import dtype as dt
from ..tir.functor import collect_vars
from .ndarray import DeviceView, NDArray


@dataclass
class ArgInfo:
    """What one kernel argument expects. Shapes are tuples of ``PrimExpr`` (or ints)."""
    name: str
    dtype: str
    logical_shape: tuple
    physical_shape: tuple
    axis_separators: tuple = ()
    pad_value: object = None
    is_output: bool = False
    kind: str = "buffer"         # "buffer", "scalar" (a te.var parameter) or "pointer"


def param_info(p) -> ArgInfo:
    """ArgInfo of a parameter bound to no buffer: a scalar, or a raw pointer (handle)."""
    return ArgInfo(p.name, p.dtype, (), (), (), None, p.dtype == "handle",
                   "pointer" if p.dtype == "handle" else "scalar")


def arg_info_of(func: tir.PrimFunc, host: tir.PrimFunc | None = None,
                written_in=None) -> list[ArgInfo]:
    """One ArgInfo per parameter of a lowered function: logical shape (the function's
    ``arg_layouts``) and physical shape, axis separators, pad value, and whether the
    function writes the argument (a store to it, or its memory handed to a call, which may
    write it). ``host``: the host part of ``func``'s host/device split, whose parameters are
    described (written-ness is still read from ``func``, where the kernels' stores are).
    ``written_in``: the statements whose stores and calls say what is written (default
    ``func.body``)."""
    written = set()

    def visit(n):
        if isinstance(n, tir.BufferStore):
            written.add(n.buffer.data)
        elif isinstance(n, tir.Call):
            # memory handed to a call (an extern or packed function, an atomic through
            # address_of) may be written by it
            for a in n.args:
                if isinstance(a, tir.Var) and a.dtype == "handle":
                    written.add(a)
                elif n.op == "tir.address_of" and isinstance(a, tir.BufferLoad):
                    written.add(a.buffer.data)
    for body in (written_in if written_in is not None else (func.body,)):
        tir.post_order_visit(body, visit)
    sig = host if host is not None else func
    layouts = sig.attrs.get("arg_layouts", {})
    out = []
    for p in sig.params:
        buf = sig.buffer_map.get(p)
        if buf is None:
            out.append(param_info(p))
            continue
        lay = layouts.get(p, {})
        out.append(ArgInfo(buf.name, buf.dtype, tuple(lay.get("logical_shape", buf.shape)),
                           tuple(buf.shape), tuple(buf.axis_separators),
                           lay.get("pad_value"), p in written))
    return out


_addressof = ctypes.addressof
_c_char = ctypes.c_char

_CTYPES = {"int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32,
           "int64": ctypes.c_int64, "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16,
           "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64, "bool": ctypes.c_bool}


_FLOAT_CTYPES = {"float32": ctypes.c_float, "float64": ctypes.c_double}


def scalar_ctype(dtype: str):
    """The ctypes type a scalar argument of ``dtype`` is passed as."""
    if dtype == "handle":
        return ctypes.c_void_p
    t = _CTYPES.get(dtype) or _FLOAT_CTYPES.get(dtype)
    if t is None:
        raise TepadError(f"scalar arguments must be integers, float32 or float64, got "
                         f"dtype {dtype}")
    return t


def eval_int(e, env: dict) -> int | None:
    """Evaluate an integer shape expression; None when it uses an unbound var."""
    if isinstance(e, int):
        return e
    if isinstance(e, tir.IntImm):
        return int(e.value)
    if isinstance(e, tir.Var):
        return env.get(e)
    if isinstance(e, tir.Cast):
        return eval_int(e.value, env)
    if isinstance(e, tir.Select):             # exact shapes of symbolic sizes may branch
        c = eval_int(e.condition, env)
        return None if c is None else eval_int(e.true_value if c else e.false_value, env)
    if isinstance(e, tir.Not):
        c = eval_int(e.a, env)
        return None if c is None else int(not c)
    if isinstance(e, tir.BinaryOp):
        a, b = eval_int(e.a, env), eval_int(e.b, env)
        if a is None or b is None:
            return None
        if isinstance(e, tir.Add): return a + b
        if isinstance(e, tir.Sub): return a - b
        if isinstance(e, tir.Mul): return a * b
        if isinstance(e, (tir.FloorDiv, tir.FloorMod, tir.Div, tir.Mod)) and b == 0:
            return None
        if isinstance(e, tir.FloorDiv): return a // b
        if isinstance(e, tir.FloorMod): return a % b
        if isinstance(e, tir.Div): return abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        if isinstance(e, tir.Mod): return abs(a) % abs(b) * (1 if a >= 0 else -1)
        if isinstance(e, tir.Min): return min(a, b)
        if isinstance(e, tir.Max): return max(a, b)
        if isinstance(e, tir.EQ): return int(a == b)
        if isinstance(e, tir.NE): return int(a != b)
        if isinstance(e, tir.LT): return int(a < b)
        if isinstance(e, tir.LE): return int(a <= b)
        if isinstance(e, tir.GT): return int(a > b)
        if isinstance(e, tir.GE): return int(a >= b)
        if isinstance(e, tir.And): return int(bool(a) and bool(b))
        if isinstance(e, tir.Or): return int(bool(a) or bool(b))
    return None


@dataclass
class _ArgPlan:
    index: int
    name: str
    np_dtype: np.dtype
    shape: tuple                 # physical shape exprs
    grouped: tuple | None        # grouped (axis-separator) shape exprs, or None
    writable: bool
    n_bind: list = field(default_factory=list)
    logical: tuple | None = None  # the logical shape, when the argument's layout differs


class ArgChecker:
    """Checks numpy arguments against the kernel's buffers and binds symbolic shape vars.

    Raises ``TepadTypeError`` (count, type, dtype; also a ``TypeError``) or ``TepadError``
    (shape, contiguity, read-only output; also a ``ValueError``) naming the argument; returns
    the values of ``shape_vars`` in order. Arguments are numpy arrays or ``NDArray``s.
    """

    # whether arrays in device memory (``DeviceView``) are taken: a CUDA module's checker
    device_memory = False

    def __init__(self, func: tir.PrimFunc, arg_info: list, shape_vars: list,
                 inplace_ok=frozenset()):
        """``inplace_ok``: ``{(input position, output position)}`` that may be the same array
        (``tepad.backend.inplace``); any other input and output whose memory overlaps is
        refused."""
        self.shape_vars = list(shape_vars)
        self.inplace_ok = frozenset(inplace_ok)
        self.plans = []
        self.scalars = {}            # parameter position -> Var, for parameters not buffers
        for k, p in enumerate(func.params):
            buf = func.buffer_map.get(p)
            if buf is None:
                self.scalars[k] = p
                self.plans.append(None)
                continue
            info = arg_info[k] if arg_info is not None and k < len(arg_info) else None
            grouped = None
            if buf.axis_separators:
                g = tuple(buf.flattened_shape())
                if len(g) != len(buf.shape):
                    grouped = g
            writable = True if info is None else bool(getattr(info, "is_output", True))
            name = getattr(info, "name", None) or buf.name
            logical = tuple(getattr(info, "logical_shape", None) or buf.shape)
            if [str(d) for d in logical] == [str(d) for d in buf.shape]:
                logical = None
            shape = tuple(buf.shape)
            lanes = dt.lanes(buf.dtype)
            if lanes > 1:      # vector elements: the array has one more axis, the lanes
                shape += (tir.IntImm(lanes, "int32"),)
                grouped = None if grouped is None else grouped + (tir.IntImm(lanes, "int32"),)
                logical = None if logical is None else logical + (tir.IntImm(lanes, "int32"),)
            self.plans.append(_ArgPlan(k, name, np.dtype(dt.numpy_name(buf.dtype)
                                                         if buf.dtype != "bool" else np.bool_),
                                       shape, grouped, writable, [], logical))
        self.n_args = len(self.plans)
        self.buffer_plans = [p for p in self.plans if p is not None]
        self._check_bindable()
        # reads that leave a tensor for some size bindings (tepad.bound.read_check)
        self.preconditions = tuple(func.attrs.get("tepad.read_preconditions") or ())
        self._sizes_ok: set = set()
        # Fully static signatures get a fast path (see ``pointers``): per argument its dtype,
        # shape as ints, and whether it is written.
        self._static = None
        if not self.shape_vars and not self.preconditions and not self.scalars and \
                all(isinstance(d, (int, tir.IntImm)) for p in self.plans for d in p.shape):
            self._static = tuple((p.np_dtype, tuple(int(d) for d in p.shape), p.writable)
                                 for p in self.plans)
            self._static_bytes = tuple(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
                                       for dtype, shape, _ in self._static)
        # (output, input) plan pairs whose memory must not overlap
        outs = [p for p in self.buffer_plans if p.writable]
        ins = [p for p in self.buffer_plans if not p.writable]
        # (output, input, whether the very same array is allowed: an in-place kernel)
        self._alias_pairs = tuple((o.index, i.index, (i.index, o.index) in self.inplace_ok)
                                  for o in outs for i in ins)

    def pointers(self, arrays) -> list[int] | None:
        """The data addresses of ``arrays`` when every one is exactly what a fully static
        kernel expects (an ndarray or NDArray of the right dtype and physical shape,
        C-contiguous, writable if written); None otherwise, and ``check`` must decide (it raises the
        errors). About 0.3 us per argument against ~2 us for ``check`` plus ``.ctypes.data``:
        it matters for kernels of a few microseconds."""
        static = self._static
        if static is None or len(arrays) != len(static):
            return None
        out = []
        for (dtype, shape, written), a in zip(static, arrays):
            if type(a) is not np.ndarray:
                if type(a) is NDArray:
                    a = a._arr
                else:
                    return None
            if a.shape != shape or a.dtype != dtype:
                return None
            flags = a.flags
            if not flags.c_contiguous:
                return None
            if flags.writeable and a.size:
                # ctypes' view of the buffer: ~3x cheaper than building ``a.ctypes``
                out.append(_addressof(_c_char.from_buffer(a)))
            elif written:
                return None
            else:
                out.append(a.ctypes.data)
        sizes = self._static_bytes
        for o, i, same_ok in self._alias_pairs:
            if out[o] < out[i] + sizes[i] and out[i] < out[o] + sizes[o] and sizes[i] and \
                    sizes[o] and not (same_ok and out[o] == out[i]):
                return None                 # check_call raises the error
        return out

    def _check_bindable(self):
        """Every shape variable must be some argument's whole dimension, or no array shape
        could say its value (``(n + 3) // 4`` is the same for n = 5..8)."""
        plain = {d for p in self.buffer_plans for shp in (p.shape, p.grouped or ()) for d in shp
                 if isinstance(d, tir.Var)}
        for v in self.shape_vars:
            if v not in plain:
                uses = [f"'{p.name}' {self._fmt(p.shape, {})}" for p in self.buffer_plans
                        if any(v in collect_vars(d) for d in p.shape)]
                raise TepadError(
                    f"size variable {v.name} cannot be bound from the arguments: it only "
                    f"appears inside derived dimensions ({', '.join(uses)}), which several "
                    f"values of {v.name} share; give some argument a dimension equal to "
                    f"{v.name} (e.g. keep one tensor of that size in its logical layout)")

    def _where(self, plan):
        return f"argument {plan.index} '{plan.name}'"

    def check(self, arrays) -> list[int]:
        """Check every argument (numpy arrays or NDArrays) and return the values of
        ``shape_vars`` (``check_call`` also returns the data addresses)."""
        return self.check_call(arrays)[1]

    def check_call(self, arrays) -> tuple[list[int], list[int]]:
        """``(data addresses, shape_vars values)`` for a call with ``arrays`` (numpy arrays or
        NDArrays, not copied), after checking every argument. Raises ``TepadTypeError`` (a
        ``TepadError`` and a ``TypeError``) for a wrong count, type or dtype, ``TepadError``
        (a ``ValueError``) for a wrong shape, contiguity or a read-only output; every message
        names the argument."""
        if len(arrays) != self.n_args:
            names = ", ".join(p.name if p is not None else self.scalars[k].name
                              for k, p in enumerate(self.plans))
            raise TepadTypeError(f"expected {self.n_args} arguments ({names}), got {len(arrays)}")
        env: dict = {}
        pending = []
        ptrs = []
        for k, v in self.scalars.items():
            env[v] = self._scalar_value(k, v, arrays[k])
        for k, (plan, arr) in enumerate(zip(self.plans, arrays)):
            if plan is None:
                ptrs.append(env[self.scalars[k]])
                continue
            where = self._where(plan)
            if isinstance(arr, NDArray):
                arr = arr._arr
            if isinstance(arr, DeviceView) and not self.device_memory:
                raise TepadTypeError(f"{where}: the array is in the memory of {arr.device!r}; "
                                     "this module runs on the CPU: pass x.numpy() or an array "
                                     "made on cpu(0)")
            if not isinstance(arr, (np.ndarray, DeviceView)):
                raise TepadTypeError(f"{where}: expected a numpy.ndarray, got "
                                     f"{type(arr).__name__}; pass np.asarray(x) or "
                                     f"tepad.nd.array(x)")
            if arr.dtype != plan.np_dtype:
                raise TepadTypeError(f"{where}: {self._dtype_mismatch(plan.np_dtype, arr.dtype)}")
            shape = plan.shape
            if arr.ndim != len(shape) and plan.grouped is not None and arr.ndim == len(plan.grouped):
                shape = plan.grouped
            if arr.ndim != len(shape):
                raise TepadError(f"{where}: expected shape {self._fmt(plan.shape, env)}, got "
                                 f"{tuple(arr.shape)} ({len(plan.shape)} dimensions, not "
                                 f"{arr.ndim}){self._layout_hint(plan, arr, env)}")
            for s, given in zip(shape, arr.shape):
                if isinstance(s, tir.Var):
                    have = env.get(s)
                    if have is None:
                        env[s] = int(given)
                    elif have != given:
                        raise TepadError(
                            f"{where}: expected shape {self._fmt(shape, env)}, got "
                            f"{tuple(arr.shape)} ({s.name} = {have} from an earlier argument)"
                            f"{self._layout_hint(plan, arr, env)}")
                elif isinstance(s, tir.IntImm):
                    if int(s.value) != given:
                        raise TepadError(f"{where}: expected shape {self._fmt(shape, env)}, "
                                         f"got {tuple(arr.shape)}"
                                         f"{self._layout_hint(plan, arr, env)}")
                else:
                    pending.append((plan, shape, arr))
            if not arr.flags.c_contiguous:
                raise TepadError(f"{where}: array must be C-contiguous (use np.ascontiguousarray)")
            if plan.writable and not arr.flags.writeable:
                raise TepadError(f"{where}: output array is read-only")
            ptrs.append(arr.ctypes.data)
        for plan, shape, arr in pending:
            want = tuple(eval_int(s, env) for s in shape)
            if want != tuple(arr.shape):
                raise TepadError(f"{self._where(plan)}: expected shape {self._fmt(shape, env)}, "
                                 f"got {tuple(arr.shape)}{self._layout_hint(plan, arr, env)}")
        if self._alias_pairs:
            self._check_aliasing(arrays)
        out = []
        for v in self.shape_vars:
            val = env.get(v)
            if val is None:
                raise TepadError(f"cannot bind shape variable {v.name} from the arguments' shapes")
            out.append(val)
        if self.preconditions:
            self._check_reads(env)
        return ptrs, out

    def _check_aliasing(self, arrays):
        """An output may not share memory with an input (the output would overwrite input
        values the kernel still reads), unless it is the very same array and the kernel
        computes each element from the input element at the same place (``inplace_ok``)."""
        def host(a):
            a = a._arr if isinstance(a, NDArray) else a
            return a if isinstance(a, np.ndarray) else None
        for o, i, same_ok in self._alias_pairs:
            a_out, a_in = host(arrays[o]), host(arrays[i])
            if a_out is None or a_in is None or not np.may_share_memory(a_out, a_in):
                continue
            if same_ok and a_out.ctypes.data == a_in.ctypes.data and a_out.shape == a_in.shape:
                continue
            po, pi = self.plans[o], self.plans[i]
            raise TepadError(
                f"{self._where(po)} (an output) and {self._where(pi)} (an input) share memory: "
                f"the kernel would overwrite values of '{pi.name}' it still reads; pass "
                f"a separate array for '{po.name}' (np.empty of its shape). Only a "
                "single-stage elementwise kernel that reads the input at the output's own "
                "index may run in place")

    @staticmethod
    def _scalar_value(k, v, x):
        """The value passed for scalar parameter ``v`` (position ``k``): an int or float for
        a scalar, the data address of an array for a raw pointer (``handle``)."""
        where = f"argument {k} '{v.name}'"
        if v.dtype == "handle":
            if isinstance(x, NDArray):
                x = x._arr
            if not isinstance(x, np.ndarray):
                raise TepadTypeError(f"{where}: expected an array for a pointer argument, got "
                                     f"{type(x).__name__}")
            return x.ctypes.data
        if isinstance(x, np.ndarray) and x.ndim == 0:
            x = x.item()
        if isinstance(x, np.generic):
            x = x.item()
        if dt.is_float(v.dtype):
            if not isinstance(x, (int, float)) or isinstance(x, bool):
                raise TepadTypeError(f"{where}: expected a number ({v.dtype}), got "
                                     f"{type(x).__name__}")
            return float(x)
        if not isinstance(x, int) or isinstance(x, bool):
            raise TepadTypeError(f"{where}: expected an int ({v.dtype}), got {type(x).__name__}")
        info = np.iinfo(v.dtype)
        if not info.min <= x <= info.max:
            raise TepadError(f"{where}: {x} does not fit in {v.dtype}")
        return x

    @staticmethod
    def _dtype_mismatch(want: np.dtype, got: np.dtype) -> str:
        """The dtype part of a message; says so when only the byte order differs (numpy names
        '>f4' and '<f4' both float32)."""
        if got.newbyteorder("=") == want and not got.isnative:
            order = "big" if got.byteorder == ">" else "little"
            return (f"expected dtype {want.name} in the machine's byte order, got {got.name} "
                    f"in {order}-endian byte order ({got.str!r}); convert with "
                    f"arr.astype({want.str!r}) or arr.byteswap().view({want.str!r})")
        got_name = got.name if got.isnative else f"{got.name} ({got.str!r}, non-native byte order)"
        return f"expected dtype {want.name}, got {got_name}"

    def _layout_hint(self, plan, arr, env) -> str:
        """For an argument in a transformed layout: what the shapes are and how to convert."""
        if plan.logical is None:
            return ""
        logical = self._fmt(plan.logical, env)
        physical = self._fmt(plan.shape, env)
        given = tuple(arr.shape)
        is_logical = len(given) == len(plan.logical) and \
            all(eval_int(d, env) in (None, g) for d, g in zip(plan.logical, given))
        if is_logical:
            what = (f"; {given} is the logical shape of '{plan.name}', which is stored in a "
                    f"transformed layout (physical shape {physical})")
        else:
            what = (f"; '{plan.name}' is stored in a transformed layout (logical shape "
                    f"{logical}, physical shape {physical})")
        return (f"{what}: convert with tepad.layout.to_physical(arr, mapping, pad_value), "
                f"mapping as given to transform_layout (outputs read back with "
                f"tepad.layout.from_physical); mod.arg_info[{plan.index}] has both shapes and "
                f"the pad value")

    def _check_reads(self, env):
        key = tuple(sorted((v.name, id(v), val) for v, val in env.items()))
        if key in self._sizes_ok:
            return
        for pre in self.preconditions:
            point = pre.witness(env) if all(p in env for p in pre.inputs) else None
            if point is not None:
                sizes = ", ".join(f"{p.name} = {env[p]}"
                                  for p in sorted(pre.inputs, key=lambda v: v.name))
                raise TepadError(f"with {sizes}: {pre.what}, e.g. at {point}; the kernel was "
                                 f"not run")
        self._sizes_ok.add(key)

    @staticmethod
    def _fmt(shape, env) -> str:
        parts = []
        for s in shape:
            v = eval_int(s, env)
            parts.append(str(v) if v is not None else repr(s))
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
