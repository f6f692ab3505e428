"""Every TVM TE name a program may use, and where tepad has it: the data of the table in
docs/coming_from_tvm.md ("Every TVM TE name").

Each row is ``(TVM name, tepad name, note)``. The status column is not written by hand:
``status`` resolves the tepad name (a dotted path from ``tepad``) and says "yes" when it
exists and the note is empty, "different" when it exists and the note says how, and
"not yet" when tepad has no such name, so the table cannot claim what tepad lacks.
"""
from __future__ import annotations

import importlib

TE = "tepad.te"
S = "tepad.te.Schedule"
ST = "tepad.te.Stage"
TS = "tepad.te.schedule"

ROWS = [
    # --- tvm.te: definitions --------------------------------------------------------------
    ("te.placeholder", f"{TE}.placeholder", ""),
    ("te.compute", f"{TE}.compute", ""),
    ("te.compute (several outputs)", f"{TE}.compute", ""),
    ("te.scan", f"{TE}.scan", ""),
    ("te.extern", f"{TE}.extern", ""),
    ("te.var / te.size_var / te.const", f"{TE}.size_var", ""),
    ("te.reduce_axis", f"{TE}.reduce_axis", ""),
    ("te.thread_axis", f"{TE}.thread_axis", ""),
    ("te.comm_reducer", f"{TE}.comm_reducer", ""),
    ("te.sum / te.min / te.max", f"{TE}.sum", ""),
    ("te.decl_tensor_intrin", f"{TE}.decl_tensor_intrin", ""),
    ("te.create_schedule", f"{TE}.create_schedule", ""),
    ("te.create_prim_func", f"{TE}.create_prim_func",
     "compute definitions only (no scan / extern); printed TVMScript-like, not parsed; built "
     "by lowering the blocks (LowerInitBlock, ConvertBlocksToOpaque, LowerOpaqueBlock) to "
     "tepad's loop IR; TensorIR schedule primitives (tir.Schedule) are not part of tepad"),
    ("te.gradient", f"{TE}.gradient", "automatic differentiation is not implemented"),
    ("te.hybrid", f"{TE}.hybrid", "the hybrid script front end is not implemented"),
    ("te.tag_scope", f"{TE}.tag_scope", ""),
    ("te.AXIS_SEPARATOR", f"{TE}.AXIS_SEPARATOR", ""),
    ("te.if_then_else / te.all / te.any", f"{TE}.if_then_else", ""),
    ("te.exp / log / sqrt / tanh / sigmoid / floor / ceil / round / abs / power / sin / cos",
     f"{TE}.exp", ""),
    ("te.erf / log2 / log10 / log1p / rsqrt / trunc / isnan / popcount / fmod", f"{TE}.erf",
     ""),
    ("te.tan / atan / exp2 / isinf / isfinite", f"{TE}.isfinite", ""),
    ("te.floordiv / floormod / truncdiv / truncmod / indexdiv / indexmod", f"{TE}.floordiv",
     ""),
    ("te.div", f"{TE}.div", ""),
    ("te.min_value / te.max_value", f"{TE}.min_value", ""),
    ("te.Tensor, te.tensor.Tensor", f"{TE}.tensor.Tensor", ""),
    ("te.Operation / PlaceholderOp / ComputeOp", f"{TE}.ComputeOp", ""),
    ("te.ScanOp", f"{TE}.ScanOp", ""),
    ("te.ExternOp", f"{TE}.ExternOp", ""),
    ("te.TensorComputeOp", f"{TE}.TensorComputeOp", ""),
    ("Tensor[i, j], Tensor(i, j), Tensor.shape / dtype / op / value_index / ndim",
     "tepad.te.Tensor.ndim", ""),
    # --- tvm.te.Schedule ------------------------------------------------------------------
    ("s[tensor]", f"{S}.__getitem__", ""),
    ("s.normalize()", f"{S}.normalize", ""),
    ("s.cache_read", f"{S}.cache_read", ""),
    ("s.cache_write", f"{S}.cache_write", ""),
    ("s.rfactor", f"{S}.rfactor", ""),
    ("s.create_group", f"{S}.create_group", ""),
    ("s.stages / s.outputs / s.stage_map", f"{S}", ""),
    # --- tvm.te.Stage ---------------------------------------------------------------------
    ("split (factor= / nparts=)", f"{ST}.split", ""),
    ("split(disable_predication=True)", f"{ST}.split",
     "accepted; tepad keeps the guard on a store whose split is not provably exact "
     "(generated code never writes out of bounds)"),
    ("tile", f"{ST}.tile", ""),
    ("fuse", f"{ST}.fuse", ""),
    ("reorder", f"{ST}.reorder", ""),
    ("compute_at / compute_inline / compute_root", f"{ST}.compute_at", ""),
    ("vectorize / unroll / parallel", f"{ST}.vectorize", ""),
    ("bind", f"{ST}.bind",
     "lowers as TVM prints it (thread_extent attributes); building it for the CPU is a "
     "TepadError, GPU code generation is issue 16"),
    ("env_threads", f"{ST}.env_threads", "GPU scheduling: issue 16"),
    ("set_scope", f"{ST}.set_scope", ""),
    ("set_store_predicate", f"{ST}.set_store_predicate",
     "not drawn by the schedule fuzzer (it changes what is computed, so the oracle differs)"),
    ("pragma", f"{ST}.pragma", ""),
    ("prefetch", f"{ST}.prefetch", ""),
    ("storage_align", f"{ST}.storage_align", ""),
    ("double_buffer", f"{ST}.double_buffer",
     "recorded, no effect: a GPU shared-memory pipelining hint (the CPU overlaps loads itself)"),
    ("tensorize", f"{ST}.tensorize", ""),
    ("rolling_buffer", f"{ST}.rolling_buffer",
     "also rolls regions that move by a floordiv (odd upscaling tiles) and regions that move "
     "with both loops of a split axis (y.outer*8 + y.inner); a region that never overlaps is "
     "a TepadError"),
    ("transform_layout", f"{ST}.transform_layout",
     "plus RFC 0077's pad_value (tepad's addition); arguments are passed in the physical "
     "shape"),
    ("set_axis_separators", f"{ST}.set_axis_separators", ""),
    ("leaf_iter_vars / all_iter_vars / op / relations / attach_type", f"{ST}", ""),
    # --- tvm.te.schedule ------------------------------------------------------------------
    ("te.schedule.InferBound", f"{TS}.InferBound",
     "a Map; exact (ISL) regions with infer_bound(s, exact=True)"),
    ("te.schedule.ScheduleOps", f"{TS}.ScheduleOps", ""),
    ("te.schedule.CreateReadGraph / PostDFSOrder", f"{TS}.CreateReadGraph", ""),
    ("te.schedule.CreateAttachPath", f"{TS}.CreateAttachPath", ""),
    ("te.schedule.ScanGetBody / ScanFixPointAnalysis", f"{TS}.ScanGetBody", ""),
    ("te.schedule.AutoInlineElemWise", f"{TS}.AutoInlineElemWise", ""),
    ("te.schedule.AutoInlineBroadcast / AutoInlineInjective", f"{TS}.AutoInlineInjective", ""),
    ("te.schedule.SchedulePostProcToPrimFunc", f"{TS}.SchedulePostProcToPrimFunc", ""),
    ("te.schedule.Split / Fuse / Singleton", f"{TS}.Singleton", ""),
    ("IterVar.DataPar / Unrolled / Vectorized / Parallelized / ...", "tepad.te.IterVar.Unrolled",
     ""),
    # --- driver, runtime, target ------------------------------------------------------------
    ("tvm.lower", "tepad.lower",
     "returns an IRModule flattened as TVM's; lower(..., flatten=False) keeps the N-d form "
     "RFC 0077's opt-in passes take; binds= takes compact row-major buffers only"),
    ("tvm.build", "tepad.build", "targets: llvm (the host CPU)"),
    ("tvm.driver.build_module.schedule_to_module", "tepad.driver.build_module.schedule_to_module",
     "binds= takes compact row-major buffers only"),
    ("tvm.target.Target", "tepad.target.Target",
     "a -mattr feature the host lacks is refused (kernels run in this process)"),
    ("tvm.target.cuda / Target('cuda -arch=sm_80').max_num_threads", "tepad.target.cuda",
     ""),
    ("tvm.target.codegen.llvm_lookup_intrinsic_id", "tepad.target.codegen.llvm_lookup_intrinsic_id",
     ""),
    ("tvm.transform.PassContext", "tepad.transform.PassContext",
     "opt_level recorded (LLVM runs at O3); unknown config keys are errors; instruments "
     "supported"),
    ("tvm.transform.Sequential", "tepad.transform.Sequential", ""),
    ("tvm.tir.transform.<Pass>()", "tepad.tir.transform.PrimFuncPass",
     "the passes tepad has, under TVM's names (rows below)"),
    ("tvm.ir.instrument.pass_instrument / PassContext(instruments=[...])",
     "tepad.ir.instrument.pass_instrument",
     "hooks run around every pipeline step and tir.transform pass object; should_run=False "
     "skips only passes codegen can do without"),
    ("tvm.ir.instrument.PrintBeforeAll / PrintAfterAll / PassTimingInstrument",
     "tepad.ir.instrument.PassTimingInstrument", ""),
    ("tvm.tir.Block / BlockRealize / BufferRegion / MatchBufferRegion", "tepad.tir.Block",
     "made by te.create_prim_func; match_buffers are not lowered"),
    ("tir.transform.Apply / Filter", "tepad.tir.transform.Filter", ""),
    ("tir.transform.LoopPartition, config tir.LoopPartition", "tepad.tir.transform.LoopPartition",
     "runs in tepad.lower only when the tir.LoopPartition config (or required_pass) asks; "
     "TVM partitions symbolic loops always"),
    ("tir.transform.StorageRewrite", "tepad.tir.transform.StorageRewrite",
     "memory reuse between same-dtype constant-size allocations; not in tepad's pipeline"),
    ("tir.transform.LowerIntrin", "tepad.tir.transform.LowerIntrin",
     "llvm rules (LLVM intrinsics, floordiv/floormod by constants); not in the pipeline: "
     "codegen maps the same calls"),
    ("tir.transform.InjectCopyIntrin(pragma_key, fintrin)", "tepad.tir.transform.InjectCopyIntrin",
     ""),
    ("tir.transform.LowerInitBlock / ConvertBlocksToOpaque / LowerOpaqueBlock",
     "tepad.tir.transform.LowerOpaqueBlock", ""),
    ("tir.transform.FlattenBuffer", "tepad.tir.transform.FlattenBuffer", "tepad's storage_flatten"),
    ("tir.transform.Simplify / RemoveNoOp / ConvertSSA / RemoveAssume / RemoveStoreUndef",
     "tepad.tir.transform.RemoveNoOp", ""),
    ("tir.transform.StorageFlatten / InjectPrefetch / InjectRollingBuffer / "
     "InstrumentBoundCheckers", "tepad.tir.transform.StorageFlatten", ""),
    ("tir.transform.UnrollLoop / VectorizeLoop(enable) / HoistIfThenElse(variant)",
     "tepad.tir.transform.VectorizeLoop", ""),
    ("tir.transform.InjectVirtualThread / LowerThreadAllreduce / ThreadSync(scope)",
     "tepad.tir.transform.ThreadSync", ""),
    ("tir.transform.SkipAssert / RewriteUnsafeSelect", "tepad.tir.transform.RewriteUnsafeSelect", ""),
    ("tir.transform.MakePackedAPI / MakeUnpackedAPI / LowerTVMBuiltin / CombineContextCall / "
     "LowerDeviceStorageAccessInfo / DecorateDeviceScope / BindTarget / AnnotateEntryFunc",
     "tepad.tir.transform.MakePackedAPI",
     "return the function unchanged: tepad's kernels take plain pointers, the runtime Module "
     "checks and unpacks arguments, codegen emits builtins directly"),
    ("tir.transform.NarrowDataType / CommonSubexprElimTIR / InjectDoubleBuffer / BF16Legalize "
     "/ VerifyMemory / RenormalizeSplitPattern / LowerCustomDatatypes", "tepad.tir.transform.NarrowDataType",
     "return the function unchanged (index dtypes kept; LLVM's GVN does CSE; double "
     "buffering ignored; bfloat16 handled in codegen); reasons in "
     "tepad/lower/passes/tvm_pass_objects.py"),
    ("tir.transform.SplitHostDevice", "tepad.lower.passes.split_host_device.split_host_device",
     "tepad splits GPU functions inside build (tepad.lower.passes.split_host_device gives "
     "host, kernels and launches, not a module)"),
    ("tir.transform.PlanAndUpdateBufferAllocationLocation / CompactBufferAllocation / "
     "LowerMatchBuffer / UnifyThreadBinding / InjectPermutedLayout / LowerCrossThreadReduction",
     "tepad.tir.transform.CompactBufferAllocation", "TensorIR-schedule passes: not in tepad"),
    ("tvm.nd.array / tvm.nd.empty", "tepad.nd.array", ""),
    ("tvm.cpu / tvm.device / tvm.cuda", "tepad.device", ""),
    ("Module: mod(...), mod[name], entry_name, get_source", "tepad.runtime.Module", ""),
    ("Module.time_evaluator", "tepad.runtime.Module.time_evaluator", ""),
    ("Module.export_library / tvm.runtime.load_module", "tepad.runtime.load_module", ""),
    ("tvm.runtime.convert", "tepad.runtime.convert", ""),
    ("tvm.register_func / tvm.get_global_func", "tepad.register_func", ""),
    ("tvm.error.TVMError", "tepad.error.TVMError",
     "tepad raises TepadError, a TVMError (RuntimeError) and a ValueError, at the schedule "
     "call where the mistake is visible (TVM often raises later, at lower)"),
    # --- tvm.ir / tvm.tir -------------------------------------------------------------------
    ("tvm.ir.IRModule", "tepad.ir.IRModule", ""),
    ("tvm.ir.save_json / load_json", "tepad.ir.save_json",
     "tepad's own JSON graph format (not readable by TVM)"),
    ("tvm.ir.Range / Range.from_min_extent", "tepad.ir.Range.from_min_extent", ""),
    ("tvm.ir.assert_structural_equal", "tepad.ir.assert_structural_equal", ""),
    ("tvm.ir.container.Map / Array", "tepad.ir.container.Map", ""),
    ("tvm.tir expression nodes (IntImm, Var, Add, ..., BufferLoad, Call)", "tepad.tir.BufferLoad",
     ""),
    ("tvm.tir statement nodes (For, BufferStore, Allocate, AttrStmt, ...)", "tepad.tir.For", ""),
    ("tvm.tir.decl_buffer", "tepad.tir.decl_buffer", ""),
    ("tvm.tir.call_extern / call_pure_extern", "tepad.tir.call_pure_extern", ""),
    ("tvm.tir.call_llvm_intrin / call_llvm_pure_intrin", "tepad.tir.call_llvm_pure_intrin", ""),
    ("tvm.tir.call_packed", "tepad.tir.call_packed", ""),
    ("tvm.tir.Shuffle", "tepad.tir.Shuffle", ""),
    ("tvm.tir.Prefetch", "tepad.tir.Prefetch", ""),
    ("tvm.tir.ir_builder", "tepad.tir.ir_builder", ""),
    ("tvm.tir.stmt_functor (post_order_visit, ir_transform, substitute)",
     "tepad.tir.stmt_functor.ir_transform", ""),
    ("tvm.tir.Simplify / tvm.arith.Analyzer", "tepad.arith.Analyzer", ""),
    ("dtypes int8..int64, uint8..uint64, float16/32/64, bool", "tepad.tir.dtype", ""),
    ("dtype bfloat16", "tepad.tir.dtype",
     "storage as uint16, arithmetic in float32, rounded after each operation"),
    ("vector dtypes (float32x4)", "tepad.tir.dtype",
     "a vectorize over a buffer of vector elements runs as a plain loop"),
    ("TVMScript (tvm.script, T.prim_func parsing)", "tepad.script",
     "not parsed: tepad prints TVMScript-like text only"),
    # --- tvm.testing, topi ------------------------------------------------------------------
    ("tvm.testing (assert_allclose, parameter(s), fixture, parametrize_targets, requires_*)",
     "tepad.testing.parametrize_targets", ""),
    ("tvm.testing.plugin (target / dev fixtures)", "tepad.testing.plugin",
     "pytest_plugins = [\"tepad.testing.plugin\"]"),
    ("topi add / subtract / multiply / divide / maximum / minimum", "tepad.topi.add", ""),
    ("topi.sum / max / min", "tepad.topi.sum", ""),
    ("topi.nn.pad / pool2d / relu / conv2d_nchw / dense / softmax",
     "tepad.topi.nn.pooling.pool2d", ""),
]


def resolve(path: str):
    """The object a dotted tepad path names, or None when tepad has no such name."""
    parts = path.split(".")
    obj = None
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        rest = parts[k:]
        break
    else:
        return None
    for name in rest:
        try:
            obj = getattr(obj, name)
        except AttributeError:
            return None
    return obj


def status(path: str, note: str) -> str:
    if resolve(path) is None:
        return "not yet"
    return "different" if note else "yes"


def table() -> str:
    """The markdown table of ROWS with each row's status."""
    lines = ["| TVM | tepad | status | notes |", "|---|---|---|---|"]
    for tvm_name, path, note in ROWS:
        st = status(path, note)
        shown = path if st != "not yet" else "-"
        lines.append(f"| `{tvm_name}` | `{shown}` | {st} | {note} |")
    counts = {k: sum(1 for _, p, n in ROWS if status(p, n) == k)
              for k in ("yes", "different", "not yet")}
    lines += ["", f"{counts['yes']} supported as in TVM, {counts['different']} supported with "
              f"the difference noted, {counts['not yet']} not yet."]
    return "\n".join(lines)
