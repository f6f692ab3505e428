"""The IR every part of tepad speaks: expressions, statements, buffers, PrimFunc, visitors."""
from . import dtype
from .expr import (Node, PrimExpr, ConstExpr, IntImm, FloatImm, StringImm, Var, SizeVar, Add,
                   Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max, EQ, NE, LT, LE, GT, GE, And,
                   Or, Not, Select, Cast, Call, ProducerLoad, BufferLoad, Ramp, Broadcast, Let,
                   Shuffle,
                   Range, BinaryOp, CmpOp, const, convert, cast, select)
from .stmt import (ForKind, Stmt, For, SeqStmt, IfThenElse, ProducerStore, ProducerRealize,
                   BufferStore, BufferRealize, Allocate, AttrStmt, LetStmt, Evaluate, AssertStmt,
                   Prefetch, While, seq, is_no_op, BufferRegion, MatchBufferRegion, Block,
                   BlockRealize)
from .buffer import AXIS_SEPARATOR, Buffer, decl_buffer, type_annotation
from .function import PrimFunc
from .module import IRModule
from .functor import (Visitor, Mutator, post_order_visit, ir_transform, substitute,
                      collect_vars, uses_var)
from .structural import structural_equal, structural_hash, assert_structural_equal
from .printer import to_script
from .op import (min, max, all, any, if_then_else, exp, log, sqrt, tanh, floor, ceil,
                 sigmoid, abs, power, pow, max_value, min_value, likely, assume, undef,
                 is_call, call_intrin, call_extern, call_pure_extern, call_llvm_intrin,
                 call_llvm_pure_intrin, floordiv, floormod, truncdiv, truncmod, indexdiv,
                 indexmod, round, sin, cos, div, call_packed, call_cpacked, exp2, log2, log10,
                 log1p, erf, tan, atan, rsqrt, trunc, fmod, isnan, isinf, isfinite, popcount,
                 vscale)
from .op_more import (acos, asin, acosh, asinh, atanh, cosh, sinh, nearbyint, exp10, atan2,
                      hypot, nextafter, copysign, ldexp, clz, bitwise_and, bitwise_or,
                      bitwise_xor, bitwise_not, shift_left, shift_right, reinterpret, infinity,
                      ceildiv, add, subtract, multiply, stmt_seq, stmt_list, address_of,
                      tvm_access_ptr, tvm_fill_fragment, tvm_load_matrix_sync, tvm_mma_sync,
                      tvm_store_matrix_sync)
from .data_layout import Layout, layout, BijectiveLayout, bijective_layout
from .itervar import IterVar, IterVarType
from .reduce import CommReducer, Reduce
from .ssa import convert_ssa
from .verify import verify, verify_well_formed
from ..target.intrin import CallEffectKind
from . import stmt_functor, transform, ir_builder, generic

__all__ = [n for n in dir() if not n.startswith("_")]
