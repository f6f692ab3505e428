"""The tables of TVM's older names: ``TOP_LEVEL`` (``tvm.<name>`` before TVM 0.7 moved them
to ``tvm.te`` / ``tvm.tir`` / ``tvm.runtime``) and ``MODULES`` (the older modules, each a
table of its names). Every entry is ``old name -> (tepad path, current TVM spelling)``."""
from __future__ import annotations

TE = "tepad.te"
TIR = "tepad.tir"

_TE_NAMES = ["placeholder", "compute", "scan", "extern", "var", "size_var", "reduce_axis",
             "thread_axis", "comm_reducer", "sum", "min", "max", "create_schedule",
             "decl_tensor_intrin", "tag_scope"]
_INTRIN_NAMES = ["exp", "exp2", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "tanh",
                 "sigmoid", "floor", "ceil", "round", "trunc", "abs", "power", "popcount",
                 "fmod", "erf", "sin", "cos", "tan", "atan", "isnan", "isinf", "isfinite",
                 "if_then_else", "all", "any", "floordiv", "floormod", "truncdiv", "truncmod",
                 "indexdiv", "indexmod", "div", "min_value", "max_value", "likely",
                 "call_extern", "call_pure_extern", "call_intrin", "call_packed",
                 "call_llvm_intrin", "call_llvm_pure_intrin"]


def _te(names):
    return {n: (f"{TE}.{n}", f"tvm.te.{n}") for n in names}


def _tir(names):
    return {n: (f"{TIR}.{n}", f"tvm.tir.{n}") for n in names}


#: TVM 0.6's tvm.int8 / int32 / float32 / handle: the dtype strings
_DTYPES = {n: (f"tepad.compat.legacy.{n}", f'"{n}"') for n in ("int8", "int32", "float32",
                                                                 "handle")}

# --- tvm.<name> (TVM 0.6: python/tvm/__init__.py, api.py, intrin.py) ---------------------------
TOP_LEVEL = {
    **_te(_TE_NAMES),
    **_tir(_INTRIN_NAMES),
    "const": ("tepad.tir.const", "tvm.tir.const"),
    "decl_buffer": ("tepad.tir.decl_buffer", "tvm.tir.decl_buffer"),
    "select": ("tepad.tir.select", "tvm.tir.Select"),
    "call_pure_intrin": ("tepad.tir.call_intrin", "tvm.tir.call_intrin"),
    "register_intrin_rule": ("tepad.target.register_intrin_rule",
                             "tvm.ir.register_intrin_lowering"),
    "convert": ("tepad.runtime.convert", "tvm.runtime.convert"),
    "ir_builder": ("tepad.tir.ir_builder", "tvm.tir.ir_builder"),
    "context": ("tepad.runtime.device.context", "tvm.device"),
    "ctx": ("tepad.runtime.device.context", "tvm.device"),
    "cl": ("tepad.runtime.device.cl", "tvm.opencl"),
    "mtl": ("tepad.runtime.device.mtl", "tvm.metal"),
    "TVMContext": ("tepad.runtime.Device", "tvm.runtime.Device"),
    "build_config": ("tepad.compat.legacy.build_config", "tvm.transform.PassContext"),
    "load_json": ("tepad.ir.load_json", "tvm.ir.load_json"),
    "save_json": ("tepad.ir.save_json", "tvm.ir.save_json"),
    "list_global_func_names": ("tepad.runtime.list_global_func_names",
                               "tvm.runtime.registry.list_global_func_names"),
    "nearbyint": ("tepad.tir.nearbyint", "tvm.tir.nearbyint"),
    "TVMType": ("tepad.runtime.DataType", "tvm.runtime.DataType"),
    "TypeCode": ("tepad.runtime.DataTypeCode", "tvm.runtime.DataTypeCode"),
    "Function": ("tepad.runtime.PackedFunc", "tvm.runtime.PackedFunc"),
    "register_node": ("tepad.register_object", "tvm.register_object"),
    "layout": ("tepad.tir.layout", "tvm.tir.layout"),
    "bijective_layout": ("tepad.tir.bijective_layout", "tvm.tir.bijective_layout"),
    **_DTYPES,
}

# --- the older modules ---------------------------------------------------------------------------
_API = {
    **_te(_TE_NAMES),
    **_tir(["min_value", "max_value", "all", "any", "floordiv", "floormod", "truncdiv",
            "truncmod", "indexdiv", "indexmod", "div", "const", "decl_buffer"]),
    "select": ("tepad.tir.select", "tvm.tir.Select"),
    "convert": ("tepad.runtime.convert", "tvm.runtime.convert"),
    "load_json": ("tepad.ir.load_json", "tvm.ir.load_json"),
    "save_json": ("tepad.ir.save_json", "tvm.ir.save_json"),
    "register_func": ("tepad.register_func", "tvm.register_func"),
    "get_global_func": ("tepad.get_global_func", "tvm.get_global_func"),
    "layout": ("tepad.tir.layout", "tvm.tir.layout"),
    "bijective_layout": ("tepad.tir.bijective_layout", "tvm.tir.bijective_layout"),
    **_DTYPES,
}

_EXPR_CLASSES = ["Var", "SizeVar", "IntImm", "FloatImm", "StringImm", "Add", "Sub", "Mul", "Div",
                 "Mod", "FloorDiv", "FloorMod", "Min", "Max", "EQ", "NE", "LT", "LE", "GT",
                 "GE", "And", "Or", "Not", "Select", "Cast", "Call", "Let", "Ramp",
                 "Broadcast", "Shuffle", "Reduce", "PrimExpr", "ConstExpr", "BinaryOp",
                 "CmpOp", "ProducerLoad", "BufferLoad", "IterVar", "CommReducer"]
_EXPR = {
    **_tir(_EXPR_CLASSES),
    "Expr": ("tepad.tir.PrimExpr", "tvm.tir.PrimExpr"),
    "ExprOp": ("tepad.tir.PrimExpr", "tvm.tir.PrimExpr"),
    "UIntImm": ("tepad.tir.IntImm", "tvm.tir.IntImm"),
    "BinaryOpExpr": ("tepad.tir.BinaryOp", "tvm.tir.BinaryOpExpr"),
    "CmpExpr": ("tepad.tir.CmpOp", "tvm.tir.CmpExpr"),
    "ConstExpr": ("tepad.tir.ConstExpr", "tvm.tir.ConstExpr"),
    "EqualOp": ("tepad.tir.EQ", "tvm.tir.EQ"),
    "NotEqualOp": ("tepad.tir.NE", "tvm.tir.NE"),
    "LogicalExpr": ("tepad.tir.PrimExpr", "tvm.tir.PrimExpr"),
}

_STMT_CLASSES = ["Stmt", "For", "LetStmt", "AttrStmt", "AssertStmt", "IfThenElse", "Evaluate",
                 "SeqStmt", "Allocate", "Prefetch", "ProducerStore", "ProducerRealize",
                 "BufferStore", "BufferRealize"]
_STMT = {
    **_tir(_STMT_CLASSES),
    "Provide": ("tepad.tir.ProducerStore", "tvm.tir.ProducerStore"),
    "Realize": ("tepad.tir.ProducerRealize", "tvm.tir.ProducerRealize"),
    "stmt_list": ("tepad.tir.stmt_list", "tvm.tir.stmt_list"),
    "stmt_seq": ("tepad.tir.stmt_seq", "tvm.tir.stmt_seq"),
}

_MAKE = {
    **_tir([n for n in _EXPR_CLASSES if n not in ("PrimExpr", "ConstExpr", "BinaryOp",
                                                  "CmpOp", "IterVar", "Call")]),
    **_tir([n for n in _STMT_CLASSES if n not in ("Stmt", "For")]),
    "UIntImm": ("tepad.tir.IntImm", "tvm.tir.IntImm"),
    "Provide": ("tepad.tir.ProducerStore", "tvm.tir.ProducerStore"),
    "Realize": ("tepad.tir.ProducerRealize", "tvm.tir.ProducerRealize"),
    "For": ("tepad.compat.legacy.make_for", "tvm.tir.For"),
    "Call": ("tepad.compat.legacy.make_call", "tvm.tir.Call"),
    "range_by_min_extent": ("tepad.compat.legacy.range_by_min_extent",
                            "tvm.ir.Range.from_min_extent"),
    **_tir(["abs", "ceil", "floor", "round", "trunc", "isnan", "nearbyint", "bitwise_and",
            "bitwise_or", "bitwise_xor"]),
    "left_shift": ("tepad.tir.shift_left", "tvm.tir.shift_left"),
    "right_shift": ("tepad.tir.shift_right", "tvm.tir.shift_right"),
}

_IR_PASS = {
    "Simplify": ("tepad.compat.legacy.Simplify", "tvm.arith.Analyzer().simplify"),
    "CanonicalSimplify": ("tepad.compat.legacy.CanonicalSimplify",
                          "tvm.arith.Analyzer().canonical_simplify"),
    "Equal": ("tepad.compat.legacy.Equal", "tvm.ir.structural_equal"),
    "Substitute": ("tepad.compat.legacy.Substitute", "tvm.tir.stmt_functor.substitute"),
    "PostOrderVisit": ("tepad.compat.legacy.PostOrderVisit",
                       "tvm.tir.stmt_functor.post_order_visit"),
    "IRTransform": ("tepad.compat.legacy.IRTransform", "tvm.tir.stmt_functor.ir_transform"),
    "ExprUseVar": ("tepad.compat.legacy.ExprUseVar",
                   "tepad.tir.uses_var (TVM has no public successor)"),
    "ConvertSSA": ("tepad.tir.convert_ssa", "tvm.tir.transform.ConvertSSA"),
    **{n: (f"tepad.compat.legacy.{n}", f"tvm.tir.transform.{n}")
       for n in ("HoistIfThenElse", "InjectVirtualThread", "RemoveNoOp", "RewriteUnsafeSelect",
                 "StorageRewrite", "VectorizeLoop", "InjectCopyIntrin", "InjectDoubleBuffer",
                 "LoopPartition", "UnrollLoop", "ThreadSync", "LowerIntrin",
                 "StorageFlatten")},
}

_INTRIN = {**_tir(_INTRIN_NAMES + ["nearbyint"]),
           "call_pure_intrin": ("tepad.tir.call_intrin", "tvm.tir.call_intrin"),
           "register_intrin_rule": ("tepad.target.register_intrin_rule",
                                    "tvm.ir.register_intrin_lowering")}

_NDARRAY = {n: (f"tepad.nd.{n}", f"tvm.nd.{n}")
            for n in ["array", "empty", "NDArray", "cpu", "cuda", "opencl", "vulkan", "metal",
                      "rocm", "ext_dev", "device"]}
_NDARRAY.update({"context": ("tepad.runtime.device.context", "tvm.device"),
                 "gpu": ("tepad.runtime.device.gpu", "tvm.cuda")})

_BUILD_MODULE = {
    "build": ("tepad.build", "tvm.build"),
    "build_config": ("tepad.compat.legacy.build_config", "tvm.transform.PassContext"),
    "lower": ("tepad.lower.lower", "tvm.lower"),
    "schedule_to_module": ("tepad.driver.schedule_to_module",
                           "tvm.driver.build_module.schedule_to_module"),
    "get_binds": ("tepad.driver.build_module.get_binds", "tvm.driver.build_module.get_binds"),
    "BuildConfig": ("tepad.transform.PassContext", "tvm.transform.PassContext"),
    "current_build_config": ("tepad.transform.PassContext.current",
                             "tvm.transform.PassContext.current"),
}

_MODULE = {
    "load": ("tepad.runtime.load_module", "tvm.runtime.load_module"),
    "Module": ("tepad.runtime.Module", "tvm.runtime.Module"),
    "enabled": ("tepad.runtime.enabled", "tvm.runtime.enabled"),
}

_HYBRID = {"script": ("tepad.te.hybrid.script", "tvm.te.hybrid.script")}
_TAG = {"tag_scope": ("tepad.te.tag_scope", "tvm.te.tag_scope"),
        "TagScope": ("tepad.te.tag_scope", "tvm.te.tag_scope")}
_TENSOR_INTRIN = {"decl_tensor_intrin": ("tepad.te.decl_tensor_intrin",
                                         "tvm.te.decl_tensor_intrin"),
                  "TensorIntrin": ("tepad.te.TensorIntrin", "tvm.te.TensorIntrin")}

_CODEGEN = {
    "llvm_lookup_intrinsic_id": ("tepad.target.codegen.llvm_lookup_intrinsic_id",
                                 "tvm.target.codegen.llvm_lookup_intrinsic_id"),
}

MODULES = {
    "api": (_API, "TVM 0.6's tvm.api: definitions and expression helpers (now tvm.te, "
                  "tvm.tir)."),
    "expr": (_EXPR, "TVM 0.6's tvm.expr: expression node classes (now tvm.tir)."),
    "stmt": (_STMT, "TVM 0.6's tvm.stmt: statement node classes (now tvm.tir)."),
    "make": (_MAKE, "TVM 0.6's tvm.make: node constructors (now the tvm.tir classes)."),
    "ir_pass": (_IR_PASS, "TVM 0.6's tvm.ir_pass: the passes that map onto tepad."),
    "intrin": (_INTRIN, "TVM 0.6's tvm.intrin: math intrinsics and calls (now tvm.tir)."),
    "ndarray": (_NDARRAY, "TVM 0.6's tvm.ndarray (now tvm.nd / tvm.runtime.ndarray)."),
    "build_module": (_BUILD_MODULE, "TVM 0.6's tvm.build_module (now tvm.driver)."),
    "module": (_MODULE, "TVM 0.6's tvm.module (now tvm.runtime.Module / load_module)."),
    "codegen": (_CODEGEN, "TVM 0.6's tvm.codegen (now tvm.target.codegen)."),
    "hybrid": (_HYBRID, "TVM 0.6's tvm.hybrid (now tvm.te.hybrid)."),
    "tag": (_TAG, "TVM 0.6's tvm.tag (now tvm.te.tag_scope)."),
    "tensor_intrin": (_TENSOR_INTRIN, "TVM 0.6's tvm.tensor_intrin (now tvm.te)."),
}

__all__ = ["TOP_LEVEL", "MODULES"]
