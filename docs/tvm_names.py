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
    ("te.gradient", f"{TE}.gradient",
     "adjoints are gathers (no Jacobian tensors); max/min send the gradient to the first "
     "extreme point; tuple reducers (argmax) are refused"),
    ("te.hybrid.script", f"{TE}.hybrid.script",
     "op.axis (the outer loop nest) takes split / fuse / reorder / parallel / vectorize / bind / "
     "unroll / pragma, not compute_at into it; inputs are read-only"),
    ("te.hybrid.build / te.hybrid.HybridModule (save, load, get_source)",
     f"{TE}.hybrid.build",
     "the nest is dumped after ScheduleOps; a realized intermediate is indexed from the "
     "start of its region; extern calls and tensor intrinsics are refused"),
    ("te.HybridOp", f"{TE}.HybridOp", ""),
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
    ("A + B, 2.0 * A, x - A (PrimExpr or number <op> Tensor)", "tepad.te.Tensor.__rmul__", ""),
    # --- tvm.te.Schedule ------------------------------------------------------------------
    ("s[tensor]", f"{S}.__getitem__", ""),
    ("s.normalize() (returns a normalized copy)", f"{S}.normalize", ""),
    ("s.schedule_record / s.primitive_record (PassContext config te.keep_schedule_record)",
     "tepad.schedule.record", ""),
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
     "lowers as TVM prints it (thread_extent attributes); built for target='cuda' (PTX, "
     "docs/cuda.md) or, with TEPAD_CUDA=emulate, run on the CPU by the GPU emulator "
     "(docs/gpu.md); building it for 'llvm' is a TepadError"),
    ("env_threads (persistent scan kernels)", None,
     "TVM makes the thread axes the scan's outer leaves, so the whole time loop runs inside "
     "one launch; TVM's only users (the 0.6 topi/recipe/rnn LSTM and matexp recipes) need a "
     "grid-wide barrier between steps (build_config(detect_global_barrier=True)), which "
     "tepad's CUDA path does not have. In tepad bind each init / update stage's axes with "
     "bind(): the time loop stays on the host, one launch per step"),
    ("set_scope", f"{ST}.set_scope", ""),
    ("tagged storage scopes ('global:tag', 'global.texture', 'shared.dyn')",
     "tepad.tir.storage_scope.split_storage_scope", "placed as their rank, the tag is kept"),
    ("set_store_predicate", f"{ST}.set_store_predicate",
     "not drawn by the schedule fuzzer (it changes what is computed, so the oracle differs)"),
    ("pragma", f"{ST}.pragma", ""),
    ("prefetch", f"{ST}.prefetch", ""),
    ("storage_align", f"{ST}.storage_align", ""),
    ("double_buffer", f"{ST}.double_buffer",
     "lowered by inject_double_buffer (TVM's InjectDoubleBuffer): two halves alternating with "
     "the loop's parity, the next iteration's write before this one's compute; config "
     "tir.InjectDoubleBuffer split_loop"),
    ("tensorize", f"{ST}.tensorize", ""),
    ("tensorize of a stage that calls a tensor intrinsic (TensorComputeOp)", f"{ST}.tensorize",
     "TVM accepts the call and ignores it; tepad replaces the tile's calls with one call of "
     "an intrinsic declared over a block of those calls (checked to match)"),
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
    ("tvm.lower(prim_func) / tvm.lower(ir_module) (hand-built, no args)", "tepad.lower", ""),
    ("tvm.lower with scalar vars no argument binds", "tepad.lower",
     "as TVM: lower leaves them free and prints them; build refuses them (TVM's "
     "MakePackedAPI does), unless they are passed as scalar arguments"),
    ("tvm.build", "tepad.build",
     "targets: llvm (the host CPU) and cuda / nvptx (PTX for a CUDA GPU; with "
     "TEPAD_CUDA=emulate the GPU emulator runs it on the CPU)"),
    ("tvm.build(s, args, target, target_host, runtime, name, binds) positional order",
     "tepad.build",
     "runtime must be None (one runtime); TVM 0.6's order, a name in the fifth place, is "
     "read as the name"),
    ("tvm.driver.lower", "tepad.driver.lower", ""),
    ("tvm.driver.build_module.schedule_to_module", "tepad.driver.build_module.schedule_to_module",
     "binds= takes compact row-major buffers only"),
    ("tvm.target.Target", "tepad.target.Target",
     "a -mattr feature the host lacks is refused (kernels run in this process)"),
    ("tvm.target.cuda / Target('cuda -arch=sm_80').max_num_threads", "tepad.target.cuda",
     ""),
    ("Target('opencl') / tvm.target.opencl / tvm.build(s, args, 'opencl')",
     "tepad.target.opencl",
     "lowered as for cuda with TVM's OpenCL limits (256 threads, no warps); the module holds "
     "OpenCL C source; it runs only through the GPU emulator (TEPAD_CUDA=emulate), "
     "otherwise calling it is a TepadError (tepad has no OpenCL runtime)"),
    ("tvm.target.codegen.llvm_lookup_intrinsic_id", "tepad.target.codegen.llvm_lookup_intrinsic_id",
     ""),
    ("tvm.transform.PassContext", "tepad.transform.PassContext",
     "opt_level recorded (LLVM runs at O3); unknown config keys are errors; instruments "
     "supported"),
    ("tvm.transform.Sequential", "tepad.transform.Sequential", ""),
    ("tvm.ir.transform.PassContext / Sequential", "tepad.ir.transform.PassContext",
     ""),
    ("tvm.tir.transform.<Pass>()", "tepad.tir.transform.PrimFuncPass",
     "the passes tepad has, under TVM's names (rows below)"),
    ("tvm.tir.transform.LowerWarpMemory / storage scope 'warp'",
     "tepad.lower.passes.lower_warp_memory",
     "run by the NVPTX back end on each kernel: per-lane registers, reads of other lanes as "
     "tvm_warp_shuffle (shfl.sync); warp size 32, threadIdx.x extent dividing it; the "
     "emulator keeps one shared copy per warp row with barriers; other patterns are "
     "TepadErrors naming the buffer"),
    ("storage scopes wmma.matrix_a / wmma.matrix_b / wmma.accumulator",
     "tepad.tir.storage_scope.FRAGMENT_SCOPES",
     "placed as 'local' (InferBound sizes one fragment per warp/thread)"),
    ("tir.tvm_load_matrix_sync / tvm_mma_sync / tvm_store_matrix_sync / tvm_fill_fragment",
     "tepad.lower.passes.wmma_fragments.wmma_for_emulator",
     "m16n16k16 with float16 inputs and float32 accumulators: NVPTX's llvm.nvvm.wmma "
     "intrinsics (nvptx_wmma.py), loops over 16 x 16 fragments in the emulator"),
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
     "memory reuse between same-dtype allocations (constant sizes, or the very same symbolic "
     "size), with TVM's inplace rule; no merging across dtypes or of tagged special scopes; "
     "not in tepad's pipeline"),
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
    ("tir.transform.InjectDoubleBuffer", "tepad.tir.transform.InjectDoubleBuffer",
     "split_loop from the PassContext config tir.InjectDoubleBuffer, as in TVM; in the "
     "pipeline right after storage_flatten"),
    ("tir.transform.UnrollLoop / VectorizeLoop(enable)",
     "tepad.tir.transform.VectorizeLoop", ""),
    ("tir.transform.HoistIfThenElse(variant), config tir.HoistIfThenElse",
     "tepad.tir.transform.HoistIfThenElse",
     "TVM v0.18's rules; only the hoisted if statements are simplified away (TVM runs "
     "Simplify over the whole function)"),
    ("tir.transform.InjectVirtualThread / LowerThreadAllreduce / ThreadSync(scope)",
     "tepad.tir.transform.ThreadSync", ""),
    ("tir.transform.SkipAssert / RewriteUnsafeSelect", "tepad.tir.transform.RewriteUnsafeSelect", ""),
    ("tir.transform.MakePackedAPI / MakeUnpackedAPI / LowerTVMBuiltin / CombineContextCall / "
     "LowerDeviceStorageAccessInfo / DecorateDeviceScope / BindTarget / AnnotateEntryFunc / "
     "AnnotateDeviceRegions",
     "tepad.tir.transform.MakePackedAPI",
     "return the function unchanged: tepad's kernels take plain pointers, the runtime Module "
     "checks and unpacks arguments, codegen emits builtins directly"),
    ("tir.transform.NarrowDataType(target_bits)", "tepad.tir.transform.NarrowDataType",
     "not in tepad's pipeline (index dtypes stay as written)"),
    ("tir.transform.CommonSubexprElimTIR / BF16Legalize "
     "/ VerifyMemory / RenormalizeSplitPattern / LowerCustomDatatypes",
     "tepad.tir.transform.CommonSubexprElimTIR",
     "return the function unchanged (LLVM's GVN does CSE; bfloat16 "
     "handled in codegen); reasons in "
     "tepad/lower/passes/tvm_pass_objects.py"),
    ("tir.transform.SplitHostDevice", "tepad.lower.passes.split_host_device.split_host_device",
     "tepad splits GPU functions inside build (tepad.lower.passes.split_host_device gives "
     "host, kernels and launches, not a module)"),
    ("tir.transform.PlanAndUpdateBufferAllocationLocation / CompactBufferAllocation / "
     "LowerMatchBuffer / UnifyThreadBinding / InjectPermutedLayout / LowerCrossThreadReduction",
     None, "TensorIR-schedule passes: they rewrite the blocks tir.Schedule makes, which TE "
     "lowering never produces"),
    ("tvm.nd.array / tvm.nd.empty", "tepad.nd.array", ""),
    ("tvm.cpu / tvm.device / tvm.cuda", "tepad.device", ""),
    ("tvm.opencl(0) / tvm.cl(0)", "tepad.opencl",
     "exists (and holds arrays in host memory) only under TEPAD_CUDA=emulate"),
    ("Module: mod(...), mod[name], entry_name, get_source", "tepad.runtime.Module", ""),
    ("cuda module: imported_modules[0].get_source() / get_source('ptx')",
     "tepad.runtime.cuda_module.DeviceSourceModule.get_source",
     "CUDA C printed from the kernels' TIR (for reading: tepad runs the PTX, made by its "
     "NVPTX back end); 'ptx' the PTX, 'll' the device LLVM IR"),
    ("opencl module: imported_modules[0].get_source()",
     "tepad.runtime.opencl_module.OpenCLSourceModule.get_source",
     "OpenCL C printed from the kernels' TIR"),
    ("Module.time_evaluator", "tepad.runtime.Module.time_evaluator", ""),
    ("time_evaluator's native loop (number calls in C, timed around the loop)",
     "tepad.runtime.native_loop.NativeRepeat",
     "CPU modules: arguments checked once per evaluation, each block's number calls run in "
     "an LLVM-compiled loop (the CUDA module times with CUDA events)"),
    ("tvm.runtime.enabled", "tepad.runtime.enabled",
     "cuda is enabled when a GPU is there or emulated (TEPAD_CUDA=emulate)"),
    ("tvm.target.llvm", "tepad.target.llvm", ""),
    ("tvm.rpc.LocalSession (upload / load_module / download / listdir / remove / cpu / cuda "
     "/ cl)", "tepad.rpc.LocalSession", ""),
    ("tvm.target.arm_cpu / rasp / riscv_cpu", "tepad.target.arm_cpu",
     "TVM's target strings and keys (topi.arm_cpu schedules are found); building "
     "CPU code for another machine's -mtriple is refused (tepad does not cross-compile)"),
    ("tvm.target.mali / bifrost / intel_graphics", "tepad.target.mali",
     "OpenCL targets, run through the GPU emulator"),
    ("tvm.target.rocm", "tepad.target.rocm",
     "the Target is made; tepad has no AMD GPU code generator, so build refuses it"),
    ("tvm.autotvm.task.task.compute_flop", "tepad.autotvm.task.flop.compute_flop",
     "TVM's counting rules and errors (asks for cfg.add_flop)"),
    ("tvm.autotvm.measure.measure / measure_methods, autotvm.record.ApplyHistoryBest",
     "tepad.autotvm.measure", "module paths of TVM 0.6-0.18 code"),
    ("import tvm.hybrid / from tvm.ir_pass import ... (TVM 0.6 modules)",
     "tepad.compat.install", "importable as modules, not only as attributes"),
    ("ir_builder for_range(for_type=...), BufferVar.asnode",
     "tepad.tir.ir_builder.IRBuilder.for_range",
     "TVM 0.6 spellings, deprecated aliases"),
    ("Buffer.vload / vstore of a vector dtype (\"float32x4\")", "tepad.tir.Buffer.vload",
     "consecutive elements along the last dimension"),
    ("Target.canon_target_and_host / canon_target / with_host",
     "tepad.target.Target.canon_target_and_host", ""),
    ("IRModule._move", "tepad.ir.IRModule._move", ""),
    ("tvm.register_object", "tepad.register_object", "leaves the class as it is"),
    ("tvm.DataType / tvm.runtime.DataType / DataTypeCode (type_code, bits, lanes)",
     "tepad.DataType", ""),
    ("tvm.nd.context / tvm.ndarray.context", "tepad.nd.context", "deprecated: tvm.device"),
    ("tvm._ffi.base.TVMError / tvm._ffi.register_func / get_global_func / register_object",
     "tepad._ffi.base.TVMError", "register_object leaves the class as it is"),
    ("tvm.script.tir typed constants (T.int32(5), T.float32(x), T.int64(expr))",
     "tepad.script.tir.int32", ""),
    ("tir node constructors given Python numbers (tir.Add(x, 1), tir.EQ(i, 5), "
     "tir.Select(c, 1, 0))", "tepad.tir.Select", ""),
    ("tir.IntImm(dtype, value) / tir.FloatImm(dtype, value)", "tepad.tir.IntImm",
     "tepad's own order (value, dtype) is accepted too"),
    ("autotvm.apply_history_best(None)", "tepad.autotvm.apply_history_best", ""),
    ("@autotvm.template without a name (TVM 0.6)", "tepad.autotvm.template",
     "deprecated: registered under the function's name (warns once)"),
    ("autotvm.task.create(plain_function, args, target) (TVM 0.6)",
     "tepad.autotvm.task.create",
     "a function never decorated is registered under its __name__, as TVM 0.6 did"),
    ("tvm.expr.Call.Extern / PureExtern / Intrinsic / PureIntrinsic (0.6 call types)",
     "tepad.tir.Call.PureExtern", "accepted by make.Call, otherwise unused"),
    # --- tvm.auto_scheduler ---------------------------------------------------------------
    ("auto_scheduler.register_workload", "tepad.auto_scheduler.register_workload", ""),
    ("auto_scheduler.SearchTask(func, args, target) / workload_key / compute_dag",
     "tepad.auto_scheduler.SearchTask", ""),
    ("auto_scheduler.measure.recover_measure_input(inp, rebuild_state)",
     "tepad.auto_scheduler.measure.recover_measure_input",
     "rebuild_state replays the steps (a TVM log's become name-based)"),
    ("auto_scheduler log lines written by TVM (steps by stage/loop position)",
     "tepad.auto_scheduler.tvm_steps.from_tvm_steps",
     "read when replayed over the registered workload's DAG: CI CR SP FSP FFSP RE FU AN PR "
     "CA CHR CHW (not RF)"),
    ("auto_scheduler.create_task (older spelling)", "tepad.auto_scheduler.create_task", ""),
    ("SearchTask.tune / apply_best / print_best", "tepad.auto_scheduler.SearchTask.tune",
     "print_best prints schedule code only (print_mode='schedule'; no 'cuda')"),
    ("auto_scheduler.ComputeDAG (print, apply_steps_from_state, "
     "print_python_code_from_state)", "tepad.auto_scheduler.ComputeDAG", ""),
    ("auto_scheduler.TuningOptions", "tepad.auto_scheduler.TuningOptions", ""),
    ("auto_scheduler.RecordToFile / load_records / load_best_record / save_records",
     "tepad.auto_scheduler.RecordToFile",
     "TVM's record shape {i, r, v}; the steps are tepad's own encoding (they replay in "
     "tepad, not in TVM)"),
    ("auto_scheduler.SketchPolicy / EmptyPolicy / PreloadMeasuredStates", "tepad.auto_scheduler.SketchPolicy",
     "CPU sketch rules only (multi-level tiling, inlining, fusion into an elementwise "
     "consumer, cache_write, parallel, vectorize, unroll pragma); no GPU sketches, no "
     "rfactor or layout rewrite"),
    ("auto_scheduler.XGBModel / RandomModel", "tepad.auto_scheduler.XGBModel",
     "features are read from the sketch parameters (tile extents, register block, vector "
     "width, parallel extent, unroll), not TVM's per-store loop features; no save/load"),
    ("auto_scheduler.LocalBuilder / LocalRunner", "tepad.auto_scheduler.LocalRunner",
     "each candidate is checked against the numpy oracle before it is timed"),
    ("auto_scheduler.LocalRPCMeasureContext", "tepad.auto_scheduler.LocalRPCMeasureContext",
     "no RPC: .runner is a LocalRunner with the same options"),
    ("auto_scheduler.ApplyHistoryBest", "tepad.auto_scheduler.ApplyHistoryBest",
     "query(target, workload_key) gives the best state; no Relay integration"),
    ("auto_scheduler.auto_schedule", "tepad.auto_scheduler.auto_schedule", ""),
    ("auto_scheduler.PreloadCustomSketchRule (PASS / APPLY / APPLY_AND_SKIP_REST)",
     "tepad.auto_scheduler.PreloadCustomSketchRule",
     "the sketches of a DAG with custom rules use the rules and inlining only (no built-in "
     "multi-level tiling of other stages); CPU targets only"),
    ("auto_scheduler.loop_state.State(state, dag): stages / iters / split / follow_split / "
     "reorder / fuse / compute_at / compute_inline / compute_root / transform_steps / "
     "state_object", "tepad.auto_scheduler.state_view.StateView",
     "splits may leave factors None for the search; a state is tepad's step list"),
    ("auto_scheduler._ffi_api.SearchPolicyUtilsGetConsumers / "
     "SearchPolicyUtilsIsElementwiseMatch",
     "tepad.auto_scheduler._ffi_api.SearchPolicyUtilsGetConsumers", ""),
    ("SearchTask(task_inputs=, task_inputs_overwrite=, task_inputs_save_to_file=)",
     "tepad.auto_scheduler.SearchTask", ""),
    ("auto_scheduler.search_task.register_task_input_buffer / get_task_input_buffer / "
     "register_task_input_check_func", "tepad.auto_scheduler.register_task_input_buffer",
     ""),
    # --- tvm.contrib ------------------------------------------------------------------------
    ("tvm.contrib.cblas.matmul / batch_matmul (transa, transb)", "tepad.contrib.cblas.matmul",
     "computed by the BLAS numpy ships (OpenBLAS in numpy's wheels) through a registered "
     "packed function"),
    ("tvm.contrib.mkl.matmul / batch_matmul", "tepad.contrib.mkl.matmul",
     "no MKL: numpy's BLAS, under MKL's packed-function names"),
    ("tvm.contrib.clang.create_llvm / find_clang", "tepad.contrib.clang.create_llvm",
     "needs a system clang whose IR llvmlite's LLVM reads; a TepadError says when there is "
     "none"),
    ("s[t].pragma(axis, \"import_llvm\", ll_code)", f"{ST}.pragma",
     "linked by llvmlite into the kernel's module before it is optimized"),
    ("tvm.contrib.nvcc: parse_compute_version, have_fp16 / int8 / tensorcore / bf16, "
     "get_target_compute_version", "tepad.contrib.nvcc.have_tensorcore", ""),
    ("tvm.contrib.nvcc.compile_cuda / find_cuda_path / get_cuda_version",
     "tepad.contrib.nvcc.compile_cuda",
     "needs the system nvcc (a TepadError says when it is absent); tepad's own CUDA path "
     "generates PTX without it"),
    ("tvm.contrib.spirv.optimize", "tepad.contrib.spirv.optimize",
     "runs SPIRV-Tools' spirv-opt ($VULKAN_SDK/bin or PATH; a TepadError when absent); "
     "tepad makes no SPIR-V itself"),
    ("tvm.contrib.random.uniform / normal / randint", "tepad.contrib.random.uniform",
     "drawn by numpy's generator through registered packed functions; random.seed(s)"),
    ("tvm.contrib.tedd.viz_dataflow_graph / viz_schedule_tree / "
     "viz_itervar_relationship_graph", "tepad.contrib.tedd.viz_schedule_tree",
     "DOT text written by tepad (no graphviz needed); show_svg needs Graphviz's dot and "
     "IPython"),
    ("tvm.contrib.pickle_memoize.memoize", "tepad.contrib.pickle_memoize.memoize",
     "cached in memory for the process (TVM also pickles the cache to a file)"),
    ("tvm.contrib.util (TVM 0.6's name of tvm.contrib.utils)", "tepad.contrib.util",
     "deprecated alias (warns once)"),
    # --- TVM 0.6-0.8 names: deprecated aliases (a DeprecationWarning once, then they work) --
    ("tvm.placeholder / compute / scan / extern / var / size_var / reduce_axis / thread_axis "
     "/ comm_reducer / sum / min / max / create_schedule / decl_tensor_intrin / tag_scope",
     "tepad.placeholder", "deprecated alias of tvm.te.<name> (tepad.compat)"),
    ("tvm.const / decl_buffer / select / convert / ir_builder / load_json / save_json",
     "tepad.decl_buffer", "deprecated alias of tvm.tir.<name> / tvm.runtime.convert / "
     "tvm.ir.<name>"),
    ("tvm.exp / sqrt / ... / if_then_else / all / any / floordiv / indexdiv / call_extern / "
     "call_packed / call_pure_intrin / min_value / max_value", "tepad.exp",
     "deprecated alias of tvm.tir.<name>"),
    ("tvm.api.<name>", "tepad.api.placeholder", "deprecated module (tepad.compat.aliases)"),
    ("tvm.float32 / int32 / int8 / handle (TVM 0.6's dtype names)", "tepad.float32",
     "deprecated: the dtype strings (also tvm.api.<name>)"),
    ("tvm.stmt.For.Serial / Parallel / Vectorized / Unrolled", "tepad.tir.For.Vectorized",
     "TVM 0.6's for_type codes 0-3, as tvm.make.For takes them"),
    ("tvm.expr.<node> / tvm.stmt.<node> (Expr, Provide, Realize included)",
     "tepad.expr.Add", "deprecated modules: the tvm.tir classes"),
    ("tvm.make.<node>", "tepad.make.Add",
     "deprecated module; make.For takes 0.6's for_type int and device_api, make.Call its "
     "call_type"),
    ("tvm.ir_pass.Simplify / CanonicalSimplify / Equal / Substitute / PostOrderVisit / "
     "IRTransform / ExprUseVar / ConvertSSA", "tepad.ir_pass.Simplify",
     "deprecated module; only these passes map cleanly onto tepad"),
    ("tvm.intrin.<name>", "tepad.intrin.exp", "deprecated module: tvm.tir's intrinsics"),
    ("tvm.ndarray.<name>", "tepad.ndarray.array", "deprecated module: tvm.nd"),
    ("tvm.build_module.build / lower", "tepad.build_module.build",
     "deprecated module: tvm.build / tvm.lower"),
    ("tvm.module.load", "tepad.module.load", "deprecated: tvm.runtime.load_module"),
    ("tvm.context(target, id) / tvm.ctx / tvm.cl / tvm.mtl", "tepad.context",
     "deprecated: tvm.device / opencl / metal"),
    ("tvm.gpu", "tepad.gpu", "deprecated alias of tvm.cuda (warns when called)"),
    ("NDArray.asnumpy() / NDArray.ctx", "tepad.nd.NDArray.asnumpy",
     "deprecated: numpy() / device"),
    ("tvm.nd.array(x, ctx=dev) / tvm.nd.empty(..., ctx=dev) / time_evaluator(ctx=dev)",
     "tepad.nd.array", "deprecated keyword ctx= (device= / dev=)"),
    ("tvm.target.create", "tepad.target.create", "deprecated alias of tvm.target.Target"),
    ("tvm.target.current_target", "tepad.target.current_target",
     "deprecated alias of tvm.target.Target.current"),
    ("tvm.schedule.Buffer / tvm.schedule.IterVar", "tepad.schedule.IterVar",
     "deprecated: tvm.tir.Buffer / tvm.tir.IterVar"),
    ("tvm.build_config(add_lower_pass=..., auto_unroll_max_step=..., ...)",
     "tepad.build_config",
     "deprecated: a tvm.transform.PassContext; 0.6's Stmt -> Stmt lower passes run on the "
     "function's body; layout options (data_alignment, offset_factor, ...) have no effect"),
    ("tvm.schedule.create_schedule / tvm.tensor.Tensor", "tepad.schedule.create_schedule",
     ""),
    ("import topi (TVM 0.6's top-level package)", "topi",
     "a shim shipped with tepad: it is tepad.topi (warns once); with TVM 0.6's own topi "
     "installed, use import tepad.topi as topi"),
    ("tvm.hybrid.script (TVM 0.6's hybrid script)", "tepad.hybrid.script",
     "deprecated module: tvm.te.hybrid.script"),
    ("Module.export_library / tvm.runtime.load_module", "tepad.runtime.load_module", ""),
    ("Module.imported_modules / Module.import_module (a CUDA host module and its PTX)",
     "tepad.runtime.CudaModule.import_module",
     "save('k.o') is the host part, imported_modules[0].save('k.ptx') the device code; "
     "export_library holds both (docs/cuda.md)"),
    ("tvm.runtime._ffi_api.GetDeviceAttr(device_type, device_id, attr_kind)",
     "tepad.runtime._ffi_api.GetDeviceAttr",
     "kinds 0-5 (exist .. device name) from tepad.runtime.Device"),
    ("Module.import_module on a CPU module (an emulated CUDA kernel's host part)",
     "tepad.runtime.Module.import_module",
     "recorded in imported_modules; under TEPAD_CUDA=emulate the host part already holds "
     "the whole kernel as CPU code"),
    ("tvm.tir.For(loop_var, min, extent, for_type, device_api, body) (TVM 0.7) and int "
     "loop kinds", "tepad.tir.For", "kind codes 0-4 as TVM's ForKind; device_api unused"),
    ("CUDA_LAUNCH_BLOCKING=1", "tepad.runtime.cuda_module.launch_blocking_from_env",
     "also TEPAD_CUDA_LAUNCH_BLOCKING=1 or a 'cuda -launch_blocking=1' target: checked "
     "launches that name the faulting kernel"),
    ("tvm.runtime.convert", "tepad.runtime.convert", ""),
    ("tvm.register_func / tvm.get_global_func", "tepad.register_func", ""),
    ("tvm.ir.register_intrin_lowering", "tepad.ir.register_intrin_lowering",
     "rules of the built target's kind (else 'default') are applied at build time, before "
     "tepad's own math lowering"),
    ("tvm.ir.register_op_attr", "tepad.ir.register_op_attr",
     "values are recorded; tepad acts on '<kind>.FLowerIntrinsic' only"),
    ("tvm.tir.CallEffectKind", "tepad.tir.CallEffectKind", ""),
    ("tvm.target.register_intrin_rule / tvm.register_intrin_rule (0.6-0.7) and "
     "register_func('tvm.intrin.rule.<kind>.<op>')", "tepad.target.register_intrin_rule",
     "the same registry as register_intrin_lowering"),
    ("Call.name (TVM 0.6)", "tepad.tir.Call.name",
     "the operator without its 'tir.' prefix; an extern call's function name"),
    ("autotvm.register_topi_compute / autotvm.register_topi_schedule",
     "tepad.autotvm.register_topi_compute",
     "TVM 0.7+'s form (a task name); the schedule finds the workload on the compute's "
     "outputs; autotvm.task.create tunes the pair"),
    ("tvm.target.generic_func (and .register)", "tepad.target.generic_func",
     "dispatch on Target.current()'s keys in order, else the default"),
    ("tvm.target.override_native_generic_func / get_native_generic_func / GenericFunc",
     "tepad.target.GenericFunc", "the 'native' registry is a Python dict"),
    ("topi.generic.schedule_*.register(keys)", "tepad.topi.generic.schedule_injective",
     "a program's registration wins for its keys; otherwise topi's x86 / cuda schedule"),
    ("Target.target_name (TVM 0.6)", "tepad.target.Target.target_name",
     "warns once; Target.kind.name"),
    ("topi's per-operator modules (topi.nn.dilate / nn.util / nn.pad, topi.cuda.depthwise_conv2d, "
     "topi.x86.conv2d, topi.generic.nn, ...)", "tepad.topi.legacy_modules.MODULES",
     "a module path without a module of its own is a view of its package's names"),
    ("get_global_func('test.op.InferTensorizeRegion' / 'test.op.MatchTensorizeBody')",
     "tepad.lower.tensorize.infer_tensorize_region",
     "TVM's C++ test hooks; match_tensorize_body is the second"),
    ("tvm.error.TVMError", "tepad.error.TVMError",
     "tepad raises TepadError, a TVMError (RuntimeError) and a ValueError, at the schedule "
     "call where the mistake is visible (TVM often raises later, at lower)"),
    # --- tvm.ir / tvm.tir -------------------------------------------------------------------
    ("tvm.ir.IRModule", "tepad.ir.IRModule", ""),
    ("tvm.ir.Op / Op.get (a Call's op: .name, same_as)", "tepad.ir.Op.get",
     "a string subclass"),
    ("tvm.ir.save_json / load_json", "tepad.ir.save_json",
     "tepad's own JSON graph format (not readable by TVM)"),
    ("tvm.ir.base.save_json / load_json (module path)", "tepad.ir.base.save_json",
     "the same functions as tvm.ir's"),
    ("tvm.ir.Range / Range.from_min_extent", "tepad.ir.Range.from_min_extent", ""),
    ("tvm.ir.assert_structural_equal", "tepad.ir.assert_structural_equal", ""),
    ("tvm.ir.container.Map / Array", "tepad.ir.container.Map", ""),
    ("tvm.tir expression nodes (IntImm, Var, Add, ..., BufferLoad, Call)", "tepad.tir.BufferLoad",
     ""),
    ("tvm.tir statement nodes (For, BufferStore, Allocate, AttrStmt, ...)", "tepad.tir.For", ""),
    ("tvm.tir.decl_buffer", "tepad.tir.decl_buffer",
     "buffer_type='auto_broadcast' (given in binds) reads a symbolic dimension that is 1 at "
     "run time at index 0, as TVM does; TVM also makes every argument of a symbolic shape "
     "auto_broadcast when binds does not name it, tepad does not (it would cost contiguous "
     "vector loads), and its run-time read check refuses such a call instead"),
    ("tvm.tir.call_extern / call_pure_extern", "tepad.tir.call_pure_extern", ""),
    ("tvm.tir.call_llvm_intrin / call_llvm_pure_intrin", "tepad.tir.call_llvm_pure_intrin", ""),
    ("tvm.tir.call_packed", "tepad.tir.call_packed", ""),
    ("tvm.tir.Shuffle", "tepad.tir.Shuffle", ""),
    ("tvm.tir.Prefetch", "tepad.tir.Prefetch", ""),
    ("tvm.tir.ir_builder", "tepad.tir.ir_builder", ""),
    ("tvm.tir.While / IRBuilder.while_loop", "tepad.tir.ir_builder.IRBuilder.while_loop", ""),
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
     "tepad.testing.parametrize_targets",
     "requires_gpu / requires_cuda run where cuda(0) exists: a CUDA GPU, or the emulator "
     "under TEPAD_CUDA=emulate; requires_opencl / vulkan / rocm skip"),
    ("tvm.testing.utils (module path) / install_request_hook(depth)",
     "tepad.testing.utils.install_request_hook",
     "installs nothing, as TVM outside its own CI (its hook is a script of TVM's source tree)"),
    ("tvm.testing.known_failing_targets", "tepad.testing.known_failing_targets",
     "the named target kinds report an expected failure (pytest.xfail)"),
    ("tvm.testing.device_enabled / enabled_targets", "tepad.testing.enabled_targets",
     "llvm always; cuda where cuda(0) exists (a GPU or TEPAD_CUDA=emulate)"),
    ("tvm.testing.CompareBeforeAfter", "tepad.testing.CompareBeforeAfter",
     "before/expected as PrimFuncs or IRModules (TVMScript is not parsed)"),
    ("tvm.driver.build_module.get_binds", "tepad.driver.build_module.get_binds", ""),
    ("tvm.tir.transform.Apply", "tepad.tir.transform.Apply", "a function run on each PrimFunc"),
    ("topi.bitwise_and / bitwise_or / bitwise_xor / bitwise_not / left_shift / right_shift",
     "tepad.topi.bitwise_and", "and PrimExpr & | ^ << >> ~ on integers (tir.bitwise_* calls)"),
    ("te.Tensor.astype", "tepad.te.Tensor.astype", "elementwise topi.cast"),
    ("tvm.tir.vscale", "tepad.tir.vscale", "held in IR; refused at codegen (fixed-width targets)"),
    ("tvm.testing.check_numerical_grads", "tepad.testing.check_numerical_grads",
     "central differences"),
    ("tvm.testing.plugin (target / dev fixtures)", "tepad.testing.plugin",
     "pytest_plugins = [\"tepad.testing.plugin\"]"),
    ("topi add / subtract / multiply / divide / maximum / minimum", "tepad.topi.add", ""),
    ("topi.power / mod / floor_divide / floor_mod / broadcast_to", "tepad.topi.floor_mod", ""),
    ("topi.equal / not_equal / less / less_equal / greater / greater_equal",
     "tepad.topi.less_equal", ""),
    ("topi.logical_and / logical_or / logical_xor / logical_not", "tepad.topi.logical_xor", ""),
    ("topi.sum / max / min", "tepad.topi.sum", ""),
    ("topi.prod / all / any / argmax / argmin", "tepad.topi.argmax",
     "argmax/argmin: select_last_index=True is refused"),
    ("topi.exp / log / log2 / log10 / sqrt / rsqrt / sigmoid / tanh / erf",
     "tepad.topi.math.rsqrt", ""),
    ("topi.sin / cos / tan / atan / abs / negative / sign / identity", "tepad.topi.sign", ""),
    ("topi.floor / ceil / round / trunc / isnan / isinf / isfinite", "tepad.topi.trunc", ""),
    ("topi.fast_exp / fast_tanh / fast_erf", "tepad.topi.fast_exp",
     "fast_exp / fast_tanh approximate (own polynomial, within 1e-6); fast_erf is exact"),
    ("topi.cast / topi.math.cast / clip / fixed_point_multiply", "tepad.topi.math.cast", ""),
    ("topi.reshape / transpose / expand_dims / squeeze / flip / reverse",
     "tepad.topi.transform.reshape", ""),
    ("topi.concatenate / stack / split / take / gather / strided_slice",
     "tepad.topi.transform.strided_slice", "extents, split points and slice bounds constant"),
    ("topi.repeat / tile / where / full / full_like / arange", "tepad.topi.transform.tile", ""),
    ("topi.elemwise_sum", "tepad.topi.elemwise_sum", ""),
    ("topi.nn.sparse_dense (CSR / BSR, sparse_lhs) / sparse_dense_sp_rhs / "
     "sparse_dense_sp_lhs", "tepad.topi.nn.sparse_dense", ""),
    ("topi.nn.sparse_transpose / sparse_add", "tepad.topi.nn.sparse_transpose", ""),
    ("topi.nn.sparse_conv2d", "tepad.topi.nn.sparse_conv2d",
     "kernel_size 1 only (TVM's 3x3 is an x86 AutoTVM template)"),
    ("topi.nn.try_get_sparse_input / try_get_conv2d_sparse_input",
     "tepad.topi.nn.try_get_sparse_input", ""),
    ("topi.nn.sparse_dense_alter_layout", "tepad.topi.nn.sparse_dense_alter_layout",
     "a plain function returning None (TVM's generic version); no per-target .register, "
     "which only relay's AlterOpLayout calls"),
    ("topi.nn.csr_transpose_ir (0.6)", "tepad.topi.nn.csr_transpose_ir", ""),
    # --- topi.nn: binary / bitserial, lstm, qnn, dense variants, relay hooks ---------------
    ("topi.nn.binarize_pack / binary_dense", "tepad.topi.nn.binary_dense", ""),
    ("topi.x86.schedule_binarize_pack / schedule_binary_dense (+ generic, cuda)",
     "tepad.topi.x86.schedule_binary_dense",
     "CUDA: one output element per thread (TVM has no CUDA schedule for these)"),
    ("topi.nn.bitserial_conv2d_nchw / bitserial_conv2d_nhwc / bitserial_dense",
     "tepad.topi.nn.bitserial_conv2d_nchw", ""),
    ("topi.nn.spatial_pack_nchw / spatial_pack_nhwc / bitserial_dense_default (0.6, cfg first)",
     "tepad.topi.nn.spatial_pack_nchw",
     "cfg may be None (fixed tiles); the fallback config takes tiles of up to 8 channels / "
     "columns and 2 rows"),
    ("topi.x86.bitserial_conv2d_nchw / nhwc / bitserial_dense + schedule_bitserial_* "
     "(+ arm_cpu, generic, cuda)", "tepad.topi.x86.schedule_bitserial_conv2d_nchw",
     "AutoTVM tasks bitserial_*.x86; the schedule parallelizes and vectorizes each stage "
     "(the config's reorder / annotate knobs are defined for tuning but not applied); "
     "arm_cpu uses the same computes (no NEON popcount tensorization)"),
    ("topi.nn.bitserial_conv2d_legalize", "tepad.topi.nn.bitserial_conv2d_legalize",
     "a generic function returning None (relay's hook)"),
    ("topi.nn.lstm", "tepad.topi.nn.lstm", ""),
    ("topi.generic.schedule_lstm / topi.x86.schedule_lstm", "tepad.topi.generic.schedule_lstm",
     "the input matmul parallel and vectorized on CPUs; no GPU schedule (TVM has none): "
     "under a CUDA target the plain schedule, which does not build for a GPU"),
    ("topi.nn.simulated_quantize / simulated_dequantize / SQNN_* codes",
     "tepad.topi.nn.simulated_quantize", "one stage (TVM nests a stage per dtype)"),
    ("topi.nn.mirror_pad", "tepad.topi.nn.mirror_pad", ""),
    ("topi.nn.pad (attrs)", "tepad.topi.nn.pad", ""),
    ("topi.nn.dense_pack", "tepad.topi.nn.dense_pack", ""),
    ("topi.nn.dense_default / batch_matmul_default (0.6)", "tepad.topi.nn.dense_default", ""),
    ("topi.nn.dense / matmul / batch_matmul (auto_scheduler_rewritten_layout, "
     "meta_schedule_original_shape)", "tepad.topi.nn.dense",
     "accepted only empty ('' / None): tepad's tuners do not rewrite weight layouts"),
    ("topi.nn.dense_legalize / dense_alter_layout / matmul_legalize / batch_matmul_legalize "
     "/ bitserial_conv2d_legalize / qnn_conv2d_alter_layout / qnn_dense_alter_layout / "
     "qnn_requantize_alter_layout / add_alter_layout / bias_add_legalize",
     "tepad.topi.nn.dense_legalize",
     "tvm.target.generic_func returning None, as in TVM (relay calls them; tepad has no "
     "relay)"),
    ("topi.nn.softmax_common / POOL_TYPE_CODE / logger", "tepad.topi.nn.softmax_common", ""),
    ("topi.vision.roi_align_nchw / roi_align_nhwc / rcnn.roi_pool_nchw / "
     "topi.x86.roi_align_nchw", "tepad.topi.vision.rcnn.roi_pool_nchw", ""),
    ("topi.generic / x86 / cuda schedule_roi_align / schedule_roi_pool",
     "tepad.topi.cuda.schedule_roi_align", ""),
    ("topi.vision.get_valid_counts / non_max_suppression / topi.cuda.get_valid_counts / "
     "topi.cuda.non_max_suppression", "tepad.topi.vision.non_max_suppression",
     "extern kernels built with ir_builder (TVM: hybrid script): a stable rank argsort, then "
     "one sequential walk per batch row (a GPU thread each under CUDA); with "
     "return_indices the count output may be left out of build's args, as in TVM"),
    ("topi.vision.all_class_non_max_suppression / topi.cuda.all_class_non_max_suppression",
     "tepad.topi.vision.all_class_non_max_suppression",
     "onnx and tensorflow output formats; one walk per (batch, class) row; rows past the "
     "total are 0"),
    ("topi.vision.ssd.multibox_prior / multibox_transform_loc / multibox_detection / "
     "topi.cuda.multibox_prior / multibox_detection",
     "tepad.topi.vision.ssd.multibox_detection",
     "multibox_prior is a plain compute (injective schedule); the rows of "
     "multibox_transform_loc past the valid count are -1"),
    ("topi.vision.rcnn.proposal / topi.cuda.proposal", "tepad.topi.vision.rcnn.proposal",
     "four extern kernels (decode, rank argsort, NMS walk, output walk)"),
    ("topi.generic / x86 / cuda schedule_nms / schedule_get_valid_counts / "
     "schedule_multibox_prior / schedule_multibox_transform_loc / "
     "schedule_multibox_detection / schedule_proposal, topi.generic.vision",
     "tepad.topi.generic.vision.schedule_nms",
     "the extern kernels bind their own loops / GPU threads, so these are the plain schedule"),
    ("topi.testing.lstm_python / attention_python / l2_normalize_python / slice_axis_python",
     "tepad.topi.testing.attention_python", ""),
    ("topi.testing.pool1d_ncw_python / pool3d_ncdhw_python / resize1d_python / "
     "bilinear_resize_python / trilinear_resize3d_python / upsampling3d_python / "
     "grid_sample_nchw_python", "tepad.topi.testing.trilinear_resize3d_python", ""),
    ("topi.testing.roi_align_nchw_python / roi_align_nhwc_python / roi_pool_nchw_python",
     "tepad.topi.testing.roi_pool_nchw_python", ""),
    ("topi.x86.schedule_sparse_dense / topi.cuda.schedule_sparse_dense / "
     "topi.cuda.sparse_dense / topi.generic.schedule_sparse_dense",
     "tepad.topi.x86.schedule_sparse_dense",
     "CUDA: one thread per output element (TVM's cross-thread rfactor of the block is not "
     "used)"),
    ("topi.sparse.csrmv / csrmm / dense", "tepad.topi.sparse.csrmv",
     "reductions over a row's stored entries (TVM writes them as ir_builder extern stages)"),
    ("topi.sparse.utils.random_bsr_matrix / sparse_sketch_rules / "
     "sparse_dense_apply_func / sparse_conv2d_apply_func",
     "tepad.topi.sparse.utils.random_bsr_matrix", ""),
    ("topi.sparse.utils.random_sparse_dense_params / convert_model_dense_to_sparse", None,
     "relay model rewrites (tepad has no relay)"),
    ("topi.cuda.sparse_dense_padded / schedule_sparse_dense_padded / pad_sparse_matrix",
     "tepad.topi.cuda.sparse_dense_padded",
     "the product is sparse_dense with one thread per output (TVM's is a warp-level "
     "ir_builder kernel)"),
    ("tvm.contrib.sparse.array / placeholder / CSRNDArray / CSRPlaceholderOp",
     "tepad.contrib.sparse.placeholder", "CSR only, as TVM"),
    ("topi.gather_nd / adv_index / one_hot / unravel_index / sparse_to_dense",
     "tepad.topi.transform.sparse_to_dense",
     "sparse_to_dense: the number of sparse indices is a constant (one select per index)"),
    ("topi.matrix_set_diag / trilu / invert_permutation / meshgrid / expand_like",
     "tepad.topi.transform.matrix_set_diag", ""),
    ("topi.reverse_sequence / sequence_mask / sliding_window",
     "tepad.topi.transform.reverse_sequence", ""),
    ("topi.strided_slice with tensor bounds / dynamic_strided_slice / strided_set",
     "tepad.topi.transform.strided_set",
     "tensor bounds give symbolic output extents, fixed by the output array passed in"),
    ("topi.layout_transform", "tepad.topi.transform.layout_transform", ""),
    ("topi.matmul / tensordot / shape / ndarray_size", "tepad.topi.transform.tensordot", ""),
    ("topi.collapse_sum", "tepad.topi.collapse_sum", ""),
    ("topi.cumsum / cumprod / searchsorted (+ topi.cuda ones)", "tepad.topi.searchsorted",
     "one reduction per element over the elements before it (O(n^2) per row), no scan "
     "stage"),
    ("topi.testing.compare_numpy_tvm / searchsorted_ref / strided_set_python / "
     "gather_python / one_hot / pool_grad_nchw / layer_norm_python ...",
     "tepad.topi.testing.compare_numpy_tvm", ""),
    ("topi.sort / argsort / topk (+ topi.cuda ones, schedule_sort / argsort / topk)",
     "tepad.topi.topk", "stable counting ranks along the axis (O(n^2) per row); argsort's "
     "valid_count is not supported"),
    ("topi.unique / topi.cuda.unique (+ generic / cuda schedule_unique, schedule_scan)",
     "tepad.topi.unique",
     "counting reductions over all pairs (O(n^2) work, no sort or scan stages)"),
    ("topi.scatter_nd / topi.cuda.scatter_nd (update, add, mul, min, max)",
     "tepad.topi.scatter_nd",
     "a reduction over every update position per output element (TVM: an extern kernel)"),
    ("topi.argwhere / topi.cuda.argwhere (+ generic / cuda schedule_argwhere)",
     "tepad.topi.argwhere", "an extern walk with a row counter; one GPU thread under CUDA"),
    ("topi.asin / acos / sinh / cosh / asinh / acosh / atanh", "tepad.topi.acosh", ""),
    ("topi.ceil_log2", "tepad.topi.ceil_log2",
     "also takes a Tensor (an elementwise stage); integers go through float64 on every "
     "target (TVM uses clz on Vulkan)"),
    ("topi.fixed_point_multiply_per_axis", "tepad.topi.fixed_point_multiply_per_axis", ""),
    ("topi.erf_legalize / topi.take_legalize", "tepad.topi.take_legalize",
     "generic functions returning None (relay's legalization hooks; nothing in TE calls them)"),
    ("topi.utils.ceil_div / swap / ravel_index / unravel_index / within_index / make_idx",
     "tepad.topi.utils.within_index", ""),
    ("topi.utils.const_vector / const_matrix / get_float_tuple / get_max_power2_factor",
     "tepad.topi.utils.const_matrix", ""),
    ("topi.utils.is_empty_shape / is_dynamic_shape / is_target / ncw_pack_layout / "
     "ncw_xc_layout", "tepad.topi.utils.is_target",
     "is_dynamic_shape: a symbolic extent (tepad has no relay Any)"),
    ("topi.InvalidShapeError / topi.utils.InvalidShapeError", "tepad.topi.InvalidShapeError",
     "also a TepadError"),
    ("topi.scatter_elements / scatter_add (+ topi.cuda.scatter_elements)", "tepad.topi.scatter_elements",
     "an extern walk applying updates in order (one GPU thread under CUDA)"),
    ("topi.scanop (+ topi.cuda.scanop)", "tepad.topi.scanop",
     "one reduction per element over the elements before it, as cumsum"),
    ("topi.binary_search (topi.searchsorted module)", "tepad.topi.binary_search", ""),
    ("topi.dft / stft (+ topi.cuda.dft / stft)", "tepad.topi.dft",
     "O(N^2) extern kernels; one GPU thread per output element under CUDA; float16 summed "
     "in float32"),
    ("topi.hybrid_argwhere_1d ... hybrid_argwhere_5d", "tepad.topi.hybrid_argwhere_3d",
     "argwhere's extern walk (TVM's are hybrid scripts)"),
    ("topi.sparse_reshape (+ topi.cuda.sparse_reshape)", "tepad.topi.sparse_reshape",
     "an extern walk; one GPU thread under CUDA"),
    ("topi.sparse_fill_empty_rows", "tepad.topi.sparse_fill_empty_rows",
     "values keep their dtype (TVM casts them to int64) and every empty row is marked"),
    ("topi.random.threefry_generate / threefry_split / threefry_test_wrapping / uniform / "
     "normal / multinomial", "tepad.topi.random.threefry_generate",
     "TVM's 10-word state and its Threefry words; re-keying on a full path hashes an "
     "all-ones counter (TVM reads past its two-word counter there)"),
    ("topi.adreno / topi.hexagon / topi.rocm / topi.opengl", None,
     "schedules for targets tepad has no code generator for; only those targets' own tests "
     "use them"),
    ("topi.einsum", "tepad.topi.einsum",
     "a letter labelling two different shape variables (K, K2) has extent max(K, K2) and an "
     "axis whose extent is 1 at run time reads index 0, as numpy broadcasts (TVM indexes it "
     "with the full range and reads past its end)"),
    ("topi.cuda.dense_tensorcore / schedule_dense_tensorcore / batch_matmul_tensorcore / "
     "schedule_batch_matmul_tensorcore", "tepad.topi.cuda.dense_tensorcore",
     "float16 16x16x16 fragments only, float32 accumulation (the default out_dtype; TVM's "
     "default is the input dtype), sizes multiples of 16 (TVM also has 8 x 32 x 16, int8 and "
     "int4); one warp per 16 x 16 output tile, the accumulator stored straight to the output"),
    ("topi.cuda.tensor_intrin: intrin_wmma_load_matrix_A / intrin_wmma_load_matrix_W / "
     "intrin_wmma_gemm / intrin_wmma_store_matrix", "tepad.topi.cuda.tensor_intrin",
     "float16 16x16x16 fragments only, float32 accumulation; the store takes a scope "
     "argument (default global; TVM's stores to shared)"),
    ("topi.reinterpret", "tepad.topi.reinterpret", ""),
    ("topi.nn.pad / dilate / relu / leaky_relu / prelu / bias_add / flatten",
     "tepad.topi.nn.prelu", ""),
    ("topi.nn.conv2d (NCHW / NHWC / HWCN) / conv2d_nchw / conv2d_nhwc / conv2d_hwcn",
     "tepad.topi.nn.conv2d", "no groups; HWIO filters for NHWC (or OHWI) and HWCN"),
    ("topi.nn.conv1d / conv1d_ncw / conv1d_nwc / group_conv1d_ncw / group_conv1d_nwc "
     "(+ generic / x86 / cuda schedule_conv1d_*, schedule_group_conv1d_*; cuda computes)",
     "tepad.topi.nn.group_conv1d_nwc", ""),
    ("topi.testing.conv1d_ncw_python / group_conv1d_ncw_python",
     "tepad.topi.testing.group_conv1d_ncw_python", ""),
    ("topi.nn.space_to_batch_nd / batch_to_space_nd (+ topi.testing *_python)",
     "tepad.topi.nn.space_to_batch_nd", ""),
    ("topi.vision.reorg / generic, x86, cuda schedule_reorg / topi.testing.reorg_python",
     "tepad.topi.vision.reorg", ""),
    ("topi.nn.conv1d_transpose_ncw (+ generic / x86 / cuda schedule_conv1d_transpose_ncw, "
     "topi.testing.conv1d_transpose_ncw_python)", "tepad.topi.nn.conv1d_transpose_ncw", ""),
    ("topi.x86 / cuda / arm_cpu conv2d_transpose_nchw", "tepad.topi.x86.conv2d_transpose_nchw",
     "nn.conv2d_transpose_nchw"),
    ("topi.nn.group_conv2d_nchw / group_conv2d_nhwc (+ generic / x86 / cuda "
     "schedule_group_conv2d_*; cuda computes)", "tepad.topi.nn.group_conv2d_nchw",
     "topi.cuda.group_conv2d_NCHWc_int8 (dp4a) not provided"),
    ("topi.nn.conv3d_ncdhw / get_pad_tuple3d (+ generic / x86 / cuda schedule_conv3d_ncdhw, "
     "x86 / cuda computes, topi.testing.conv3d_ncdhw_python)", "tepad.topi.nn.conv3d_ncdhw",
     ""),
    ("topi.nn.correlation_nchw (+ generic / x86 / cuda schedule_correlation_nchw, "
     "topi.testing.correlation_nchw_python)", "tepad.topi.nn.correlation_nchw", ""),
    ("topi.nn.depthwise_conv2d_nchw / depthwise_conv2d_nhwc",
     "tepad.topi.nn.depthwise_conv2d_nchw", ""),
    ("topi.nn.conv2d._get_workload / Workload, topi.nn.depthwise_conv2d._get_workload / "
     "Workload", "tepad.topi.nn.conv2d._get_workload", ""),
    ("topi.x86.conv2d_avx_common / conv2d_avx_1x1 / depthwise_conv2d ._fallback_schedule",
     "tepad.topi.x86.conv2d_avx_common._fallback_schedule",
     "the blocks read the target's 32-bit lanes; conv2d_avx_common."
     "schedule_conv2d_nchw_config applies a config to nn.conv2d_nchw (TVM's x86 conv2d "
     "computes in NCHWc)"),
    ("topi.nn.depthwise_conv2d_NCHWc, topi.x86.depthwise_conv2d_NCHWc / "
     "schedule_depthwise_conv2d_NCHWc", "tepad.topi.x86.depthwise_conv2d_NCHWc",
     "AutoTVM config (tuned or fallback) read by the schedule; channel multiplier folded into "
     "the output channels"),
    ("topi.nn.scale_shift_nchw / scale_shift_nhwc / scale_shift_nchwc",
     "tepad.topi.nn.scale_shift_nchwc", ""),
    ("topi.testing.depthwise_conv2d_python_nchwc",
     "tepad.topi.testing.depthwise_conv2d_python_nchwc", ""),
    ("topi.arm_cpu conv strategies (conv2d_nhwc_spatial_pack, compute_conv2d_NHWC_hybrid / "
     "_SVE, depthwise_conv2d_nchw_spatial_pack, compute_depthwise_conv2d_nhwc + schedules)",
     "tepad.topi.arm_cpu.compute_conv2d_NHWC_hybrid",
     "the plain nn computes with topi.x86's schedules; the SVE / SME / tir.Schedule variants "
     "raise a TepadError"),
    ("topi.mali.conv2d_nhwc_spatial_pack / depthwise_conv2d_nhwc, topi.intel_graphics "
     "schedule_* / depthwise_conv2d_nchw", "tepad.topi.intel_graphics.depthwise_conv2d_nchw",
     "no code for those GPUs: nn computes with topi.generic's schedule of the current "
     "target"),
    ("topi.gpu.conv2d_nhwc / schedule_conv2d_nhwc, topi.cuda.depthwise_conv2d_nchw",
     "tepad.topi.gpu.conv2d_nhwc", ""),
    ("topi.generic.conv2d (schedule_depthwise_conv2d_nhwc, schedule_conv2d_nchw / nhwc)",
     "tepad.topi.generic.conv2d.schedule_depthwise_conv2d_nhwc",
     "dispatch to topi.x86 / topi.cuda by the current target"),
    ("contrib.cudnn (exists, conv_forward, algo_to_index, softmax, ...)",
     "tepad.contrib.cudnn.exists",
     "exists() is False (cuDNN is not linked); its calls raise a TepadError naming the TE "
     "alternative"),
    ("contrib.ndk.create_shared", "tepad.contrib.ndk.create_shared",
     "links with $TVM_NDK_CC as TVM does; tepad itself builds for the host"),
    ("topi.cuda.conv2d_winograd.winograd_cuda (cfg, data, kernel, ..., pre_computed)",
     "tepad.topi.cuda.winograd_cuda", ""),
    ("topi.cuda.tensor_intrin.dp4a", "tepad.topi.cuda.tensor_intrin.dp4a",
     "the four widened multiply-adds, not the __dp4a instruction (the same integers)"),
    ("topi.nn.conv2d_transpose_nchw", "tepad.topi.nn.conv2d_transpose_nchw", ""),
    ("topi.nn.conv (any layout, 1-3 spatial axes, groups)", "tepad.topi.nn.conv",
     "auto-scheduler / meta-schedule layout rewriting arguments must be left unset"),
    ("topi.nn.Workload", "tepad.topi.nn.Workload", ""),
    ("topi.nn.conv3d_ndhwc (+ generic / x86 / cuda schedule_conv3d_ndhwc, x86 / cuda "
     "computes, topi.testing.conv3d_ndhwc_python)", "tepad.topi.nn.conv3d_ndhwc", ""),
    ("topi.nn.conv3d_transpose_ncdhw / conv3d_transpose_ncdhw_preprocess / "
     "declaration_conv3d_transpose_impl / group_conv3d_transpose_ncdhw (+ generic / x86 / cuda "
     "schedule_conv3d_transpose_ncdhw, topi.testing.conv3d_transpose_ncdhw_python)",
     "tepad.topi.nn.group_conv3d_transpose_ncdhw", ""),
    ("topi.nn.conv2d_transpose_nchw_preprocess / declaration_conv2d_transpose_impl / "
     "group_conv2d_transpose_nchw (+ schedule_group_conv2d_transpose_nchw)",
     "tepad.topi.nn.group_conv2d_transpose_nchw", ""),
    ("topi.nn.group_conv1d_transpose_ncw (+ schedule_group_conv1d_transpose_ncw, "
     "topi.testing.group_conv1d_transpose_ncw_python)",
     "tepad.topi.nn.group_conv1d_transpose_ncw", ""),
    ("topi.testing.conv2d_transpose_nhwc_python / conv2d_backward_weight_python",
     "tepad.topi.testing.conv2d_backward_weight_python", ""),
    ("topi.nn.deformable_conv2d_nchw / deformable_conv2d_nhwc (+ generic / x86 / cuda "
     "schedule_deformable_conv2d_*, topi.testing.deformable_conv2d_*_python)",
     "tepad.topi.nn.deformable_conv2d_nchw", "groups must be 1, as in TVM"),
    ("topi.nn.depthwise_conv2d_backward_input_nhwc / depthwise_conv2d_backward_weight_nhwc "
     "(+ x86 / cuda schedules, topi.cuda.depthwise_conv2d module)",
     "tepad.topi.nn.depthwise_conv2d_backward_input_nhwc", ""),
    ("topi.nn.conv2d_NCHWc / conv2d_NCHWc_int8 (0.6: *_compute) / unpack_NCHWc_to_nchw "
     "(+ x86 / cuda / generic schedule_conv2d_NCHWc*, topi.x86.conv2d_NCHWc)",
     "tepad.topi.nn.conv2d_NCHWc_int8",
     "the x86 schedule tiles by the target's lanes without an AutoTVM config; "
     "topi.cuda.conv2d_NCHWc_int8 packs NCHW operands and widens products (no dp4a)"),
    ("topi.nn.layout_transform", "tepad.topi.nn.layout_transform",
     "takes a te.Tensor (TVM's takes a relay expression); same-axis permutations only "
     "(blocked layouts: topi.layout_transform)"),
    ("topi.nn.conv2d_winograd_nchw / nhwc / *_without_weight_transform / "
     "conv2d_winograd_weight_transform / conv3d_winograd_weight_transform (+ "
     "topi.cuda.conv2d_nchw_winograd / schedule_conv2d_nchw_winograd, "
     "conv3d_ncdhw_winograd / schedule_conv3d_ncdhw_winograd, x86 "
     "schedule_conv2d_winograd; arm_cpu / mali conv2d_nchw_winograd)", "tepad.topi.nn.conv2d_winograd_nchw",
     "Cook-Toom matrices of tepad's own (interpolation points 0, +-1, +-2, +-1/2, ...): "
     "transformed kernels are tepad's, not bit-identical to TVM's"),
    ("topi.nn.conv2d_winograd_without_weight_transform (0.6)",
     "tepad.topi.nn.conv2d_winograd_without_weight_transform",
     "computes (TVM 0.6's default raised unless a target registered one)"),
    ("topi.nn.conv2d_winograd_nnpack_weight_transform / "
     "conv2d_winograd_nnpack_without_weight_transform",
     "tepad.topi.nn.conv2d_winograd_nnpack_without_weight_transform",
     "no NNPACK: tepad's own F(6x6, 3x3) transform in NNPACK's (CO, CI, 8, 8) layout"),
    ("topi.nn.conv2d_gemm_weight_transform", "tepad.topi.nn.conv2d_gemm_weight_transform",
     ""),
    ("topi.nn.conv2d_alter_layout / conv2d_infer_layout / conv2d_legalize / "
     "conv2d_transpose_alter_layout / conv2d_transpose_legalize / conv3d_alter_layout / "
     "conv3d_transpose_legalize / depthwise_conv2d_infer_layout",
     "tepad.topi.nn.conv2d_alter_layout",
     "generic functions with TVM's defaults only (None, or an error for infer_layout); "
     "tepad has no graph level to call them"),
    ("topi.nn.dense / matmul (batched, broadcasting) / batch_matmul",
     "tepad.topi.nn.batch_matmul", ""),
    ("topi.nn.softmax / log_softmax / fast_softmax", "tepad.topi.nn.log_softmax", ""),
    ("topi.nn.pool1d / pool2d / global_pool / adaptive_pool / adaptive_pool1d",
     "tepad.topi.nn.pooling.pool2d", ""),
    ("topi.nn.pool (TVM 0.6: 2-D pooling without dilation)", "tepad.topi.nn.pool", ""),
    ("topi.nn.upsampling / lrn / batch_norm", "tepad.topi.nn.batch_norm",
     "upsampling: NCHW, NHWC and packed NCHW<i>n<j>c"),
    ("topi.nn.layer_norm / instance_norm / rms_norm / group_norm", "tepad.topi.nn.group_norm",
     ""),
    ("topi.nn.nll_loss", "tepad.topi.nn.nll_loss", ""),
    ("topi.nn.depth_to_space / space_to_depth", "tepad.topi.nn.depth_to_space", ""),
    ("topi.nn.fifo_buffer", "tepad.topi.nn.fifo_buffer",
     "a new output array: passing the buffer array as input and output at once is refused"),
    ("topi.nn.pool3d / adaptive_pool3d / pool_grad", "tepad.topi.nn.pool_grad", ""),
    ("topi.nn.get_pad_tuple", "tepad.topi.nn.get_pad_tuple", ""),
    ("topi.image.resize1d / resize2d", "tepad.topi.image.resize2d",
     "nearest, linear, cubic; constant sizes"),
    ("topi.image.affine_grid / topi.testing.affine_grid_python", "tepad.topi.image.affine_grid",
     ""),
    ("topi.utils.nchw_pack_layout / nchw_xc_layout", "tepad.topi.utils.nchw_pack_layout", ""),
    ("topi.image.resize3d / topi.nn.upsampling3d / topi.testing.resize3d_python",
     "tepad.topi.image.resize3d", "nearest, (tri)linear, (tri)cubic; constant sizes"),
    ("topi.image.crop_and_resize / topi.testing.crop_and_resize_python",
     "tepad.topi.image.crop_and_resize", "bilinear or nearest; boxes read at run time"),
    ("topi.image.grid_sample / topi.testing.grid_sample_python", "tepad.topi.image.grid_sample",
     "NCHW (nearest, bilinear, bicubic) and NCDHW (nearest, bilinear); zeros / border / "
     "reflection padding"),
    ("topi.image.resize (before TVM 0.8: no roi, align_corners)", "tepad.topi.image.resize",
     ""),
    ("topi.utils (topi.util) get_const_tuple / get_const_int / simplify / traverse_inline",
     "tepad.topi.utils.traverse_inline", ""),
    ("topi.tag (ELEMWISE, BROADCAST, INJECTIVE, is_injective)", "tepad.topi.tag.is_injective",
     ""),
    ("topi.generic.schedule_* (injective, reduce, conv2d_*, pool, softmax, dense, ...)",
     "tepad.topi.generic.schedule_conv2d_nchw",
     "dispatch to topi.x86 / topi.cuda by the current target, as TVM 0.6's generic functions"),
    ("topi.generic.default_schedule", "tepad.topi.generic.default_schedule", ""),
    ("topi.hls / topi.mali / topi.bifrost schedule_*", "tepad.topi.hls.schedule_pool",
     "tepad generates no code for FPGA HLS or ARM OpenCL GPUs: each is topi.generic's "
     "schedule of the current target"),
    ("topi.arm_cpu.schedule_* / compute_matmul_sme", "tepad.topi.arm_cpu.compute_matmul_sme",
     "the schedules are topi.x86's (they read the target's vector width); the SME "
     "tir-schedule raises a TepadError"),
    ("topi.gpu.dense_small_batch / dense_large_batch (+ schedules)",
     "tepad.topi.gpu.dense_small_batch", "both are nn.dense with topi.cuda's binding"),
    ("topi.x86.dense_dynamic / schedule_dense_dynamic", "tepad.topi.x86.dense_dynamic", ""),
    ("topi.cuda.dense_int8 / schedule_dense_int8", "tepad.topi.cuda.dense_int8",
     "products widened to the output dtype, no dp4a tensorization"),
    ("topi.utils.get_shape", "tepad.topi.utils.get_shape", ""),
    ("topi.generic.nn / injective / extern (TVM's files of generic schedules)",
     "tepad.topi.generic.nn.schedule_conv2d_nchw",
     "modules holding the same dispatching functions as topi.generic"),
    ("topi.x86.dense_pack / dense_nopack / schedule_dense_pack / schedule_dense_nopack",
     "tepad.topi.x86.schedule_dense_pack",
     "one compute; the schedule packs the weight when its rows fill whole vectors"),
    ("topi.x86.schedule_*", "tepad.topi.x86.schedule_conv2d_nchw",
     "tepad's own CPU schedules reading the target (lanes, registers), not TVM's NCHWc"),
    ("topi.cuda.schedule_*", "tepad.topi.cuda.schedule_softmax",
     "thread binding without shared-memory tiling; run through the emulator without a GPU"),
    ("topi.testing numpy references (conv2d_nchw_python, softmax_python, poolnd_python, ...)",
     "tepad.topi.testing.conv2d_nchw_python", ""),
    ("topi.testing.get_injective_schedule / get_reduce_schedule / dispatch",
     "tepad.topi.testing.get_injective_schedule", ""),
    # --- names found by benchmarks/tvm_api_census.py (TVM 0.6-0.18, every public name) ------
    ("tir.acos / asin / acosh / asinh / atanh / cosh / sinh (also te.)", "tepad.tir.acosh",
     "libm's functions (lane by lane in vector loops)"),
    ("tir.atan2 / hypot / nextafter / copysign / ldexp / exp10 / nearbyint", "tepad.tir.hypot",
     "exp10 is pow(10, x), ldexp is x * exp2(e)"),
    ("tir.clz / reinterpret / infinity / ceildiv", "tepad.tir.reinterpret", ""),
    ("tir.bitwise_and / bitwise_or / bitwise_xor / bitwise_not / shift_left / shift_right",
     "tepad.tir.shift_right", ""),
    ("tir.add / subtract / multiply, te.add / subtract / multiply", "tepad.tir.multiply", ""),
    ("tvm.tir.generic / tvm.generic (add, subtract, multiply, divide, floordiv, cast)",
     "tepad.generic.cast", ""),
    ("tir.stmt_seq / stmt_list", "tepad.tir.stmt_seq", ""),
    ("tir.address_of / tvm_access_ptr / tvm_fill_fragment / tvm_load_matrix_sync / "
     "tvm_mma_sync / tvm_store_matrix_sync", "tepad.tir.tvm_mma_sync",
     "build the calls tensor intrinsics write by hand (the wmma rows above say how they run)"),
    ("tir.comm_reducer / tir.sum", "tepad.tir.comm_reducer", "te's reducers"),
    ("tir.layout / bijective_layout / Layout / BijectiveLayout (forward/backward index and "
     "shape)", "tepad.tir.bijective_layout", ""),
    ("tir.analysis.verify_gpu_code / verify_memory / verify_ssa / verify_well_formed / "
     "expr_deep_equal / undefined_vars", "tepad.tir.analysis.verify_gpu_code",
     "verify_gpu_code checks max_threads_per_block and max_shared_memory_per_block (other "
     "constraint keys are accepted, not checked)"),
    ("tir.analysis.calculate_allocated_bytes / calculate_workspace_bytes / estimate_tir_flops",
     "tepad.tir.analysis.estimate_tir_flops",
     "workspace bytes: every global allocation live at once (an upper bound of TVM's)"),
    ("tir.stmt_functor.pre_order_visit", "tepad.tir.stmt_functor.pre_order_visit", ""),
    ("tvm.arith.detect_linear_equation / ModularSet / IntervalSet / intset_interval / "
     "intset_single_point", "tepad.arith.detect_linear_equation",
     "ModularSet comes from tepad.arith.modular_set (affine expressions)"),
    ("tvm.Object / tvm.runtime.Object / ObjectTypes / convert_to_object",
     "tepad.runtime.Object",
     "an ABC: tepad's nodes, buffers, tensors, operations, schedules and modules are "
     "registered subclasses"),
    ("tvm.runtime.PackedFunc", "tepad.runtime.PackedFunc",
     "every Python callable is one; PackedFunc(f) wraps f"),
    ("tvm.runtime.num_threads", "tepad.runtime.num_threads", ""),
    ("tvm.nd.from_dlpack", "tepad.nd.from_dlpack", "a CPU copy read by numpy.from_dlpack"),
    ("tvm.transform.Pass / ModulePass / module_pass / PrintIR", "tepad.transform.module_pass",
     ""),
    ("tvm.ir.GlobalVar / BaseFunc / BaseExpr / CallingConv", "tepad.ir.GlobalVar", ""),
    ("tvm.ir.PrimType / PointerType (te.var(name, PointerType(...)))", "tepad.ir.PointerType",
     "a Var made with one takes its dtype ('handle' for a pointer)"),
    ("tvm.ir.make_node / Node / structural_hash", "tepad.ir.make_node",
     "make_node gives a dict for 'DictAttrs', else an object holding the fields"),
    ("tvm.instrument / tvm.ir.instrument.PassPrintingInstrument",
     "tepad.instrument.PassPrintingInstrument", ""),
    ("te.TensorSlice (A[i][j])", "tepad.te.TensorSlice", ""),
    ("te.create_prim_func_from_outputs (TVM 0.8)", "tepad.te.create_prim_func_from_outputs", ""),
    ("te.schedule.AXIS_SEPARATOR / tvm.driver.lower", "tepad.driver.lower", ""),
    ("tvm.register_extension", "tepad.register_extension", "leaves the class as it is"),
    ("autotvm.GLOBAL_SCOPE / env.reset_global_scope / autotvm.create", "tepad.autotvm.create",
     ""),
    ("autotvm.utils / autotvm.util (get_const_int, get_const_tuple, get_func_name, "
     "sample_ints, EmptyContext)", "tepad.autotvm.utils.get_const_tuple", ""),
    ("autotvm.task.ApplyHistoryBest / clear_fallback_cache",
     "tepad.autotvm.task.clear_fallback_cache", ""),
    ("autotvm.task.register (TVM 0.6)", "tepad.autotvm.task.register",
     "deprecated alias of autotvm.template"),
    ("autotvm.record.load_from_buffer / measure_str_key / split_workload",
     "tepad.autotvm.record.split_workload", ""),
    ("autotvm.tuner.DropletTuner", "tepad.autotvm.tuner.DropletTuner",
     "tepad's own neighbourhood descent over the knob grid (no p-value test)"),
    ("autotvm.tuner.callback", "tepad.autotvm.tuner.callback", ""),
    ("tvm.schedule.InferBound / ScheduleOps / ... (0.6 names of te.schedule)",
     "tepad.schedule.InferBound", "deprecated (warns once): tvm.te.schedule.<name>"),
    ("tvm.tensor.TensorSlice / Layout / BijectiveLayout / BaseComputeOp",
     "tepad.tensor.TensorSlice", "deprecated (warns once): tvm.te / tvm.tir"),
    ("tvm.container.Range / StrMap", "tepad.container.Range",
     "deprecated (warns once): tvm.ir.Range / tvm.ir.container.Map"),
    ("tvm.codegen.llvm_lookup_intrinsic_id", "tepad.codegen.llvm_lookup_intrinsic_id",
     "deprecated (warns once): tvm.target.codegen"),
    ("tvm.make.abs / floor / ceil / round / trunc / isnan / nearbyint / bitwise_* / left_shift "
     "/ right_shift", "tepad.make.left_shift", "deprecated module: the tvm.tir functions"),
    ("tvm.expr.EqualOp / NotEqualOp / LogicalExpr, tvm.stmt.stmt_seq / stmt_list",
     "tepad.expr.EqualOp", "deprecated modules: tvm.tir.EQ / NE / PrimExpr / stmt_seq"),
    ("tvm.ir_pass.HoistIfThenElse / LoopPartition / StorageRewrite / UnrollLoop / "
     "VectorizeLoop / InjectDoubleBuffer / InjectCopyIntrin / InjectVirtualThread / "
     "RemoveNoOp / RewriteUnsafeSelect / ThreadSync / LowerIntrin", "tepad.ir_pass.LoopPartition",
     "deprecated module: today's tir.transform pass on a PrimFunc around the statement; 0.6's "
     "option arguments become its PassContext config"),
    ("tvm.tag / tvm.tensor_intrin / tvm.int8 / int32 / float32 / handle / TVMType / TypeCode / "
     "Function / register_node / layout / bijective_layout / nearbyint", "tepad.tag.tag_scope",
     "deprecated 0.6 names: tvm.te / tvm.tir / tvm.runtime ones, the dtype strings"),
    ("tvm.build_module.get_binds / BuildConfig / current_build_config, tvm.module.enabled",
     "tepad.build_module.get_binds", "deprecated: tvm.driver / tvm.transform.PassContext"),
    ("tvm.runtime.context / TVMContext (TVM 0.7)", "tepad.runtime.TVMContext",
     "deprecated (warns once): tvm.runtime.device / Device"),
    # --- class members the census reads from TVM's class bodies -----------------------------
    ("Target.mattr / libs / device_name / options / export / get_kind_attr / "
     "get_target_device_type / list_kinds / target_or_current / max_function_args",
     "tepad.target.Target.target_or_current", ""),
    ("IRModule.get_global_var / functions_items / update / update_func / with_attr / "
     "with_attrs / without_attr / get_attr / clone / astext / show",
     "tepad.ir.IRModule.update_func",
     "update / update_func change the module in place, as TVM's do"),
    ("Module.entry_func / format / implements_function", "tepad.runtime.Module.entry_func",
     "format is 'so'"),
    ("Module.import_module on a CPU module", "tepad.runtime.Module.import_module",
     "a TepadError: only a CUDA host module imports device code"),
    ("Buffer.offset_of / Buffer.READ / Buffer.WRITE", "tepad.tir.Buffer.offset_of", ""),
    ("NDArray.context (TVM 0.7)", "tepad.nd.NDArray.context", "deprecated: NDArray.device"),
    ("Analyzer.canonical_simplify / rewrite_simplify / modular_set",
     "tepad.arith.Analyzer.modular_set", "both simplifications are tepad's one simplifier"),
    ("ConfigSpace.dims / range_length / subrange_length / is_index_valid / point2knob / "
     "knob2point / get_next_index / get_rand_index / random_walk / sample_ints / clear_cache",
     "tepad.autotvm.task.ConfigSpace.knob2point", "every index of a tepad space is valid"),
    ("ConfigSpace.multi_filter", "tepad.autotvm.task.ConfigSpace.multi_filter",
     "a TepadError: tepad's spaces are not filtered (a template rejects a config with "
     "cfg.raise_error / InstantiationError)"),
    ("Tuner.set_error_threshold", "tepad.autotvm.tuner.Tuner.set_error_threshold", ""),
    ("autotvm.tuner.ModelBasedTuner / CostModel / ModelOptimizer / FeatureCache / "
     "model_based_tuner.submodular_pick", "tepad.autotvm.tuner.ModelBasedTuner", ""),
    ("autotvm.tuner.sa_model_optimizer.SimulatedAnnealingOptimizer",
     "tepad.autotvm.tuner.SimulatedAnnealingOptimizer", ""),
    ("autotvm.tuner.xgboost_cost_model.XGBoostCostModel",
     "tepad.autotvm.tuner.xgboost_cost_model.XGBoostCostModel",
     "features are tepad's loop features ('itervar' and 'curve' are the same encoding) or "
     "the knob values"),
    ("autotvm.tuner.XGBTuner(optimizer=...)", "tepad.autotvm.tuner.XGBTuner",
     "the default optimizer samples 128 configs and ranks them ('sa', TVM's default, takes a "
     "shorter walk when each prediction lowers the config)"),
    ("autotvm.database (Database, DummyDatabase, RedisDatabase, filter_inputs)",
     "tepad.autotvm.database.DummyDatabase", ""),
    ("autotvm.measure.LocalExecutor / measure.executor (Future, TimeoutError, "
     "ExecutionError)", "tepad.autotvm.executor.LocalExecutor", ""),
    ("autotvm.record.encode / decode with protocol='pickle'", "tepad.autotvm.record.encode",
     "reading accepts plain values only, so a log cannot run code"),
    ("PassContext.list_configs / override_instruments",
     "tepad.transform.PassContext.override_instruments", ""),
    ("Tensor.axis / PrimFunc.show", "tepad.te.Tensor.axis", "Tensor.axis is op.axis"),
    # --- deliberately out of scope (benchmarks/tvm_api_census.py lists every such name) ----
    ("TVMScript (tvm.script, T.prim_func, tvm.parser)", None,
     "tepad prints TVMScript-like text and does not parse it; TE programs build IR with "
     "te.compute and the ir_builder"),
    ("relay / relax (tvm.relay, tvm.relax, graph executor, VM, tvm.ir type system, attrs, "
     "diagnostics, relay error classes)", None,
     "graph-level IR and its executors: tepad is the tensor-expression level only"),
    ("tir.Schedule and TensorIR (tir.schedule, tir.tensor_intrin, Block scope, IndexMap-"
     "based scheduling, renew_defs)", None,
     "tepad schedules TE stages; te.create_prim_func output is printed and lowered, not "
     "scheduled with TensorIR primitives"),
    ("meta_schedule / dlight", None,
     "TensorIR tuning: tepad tunes with AutoTVM and its auto_scheduler"),
    ("tvm.rpc.connect / connect_tracker / Server / Tracker, autotvm.RPCRunner / "
     "request_remote / default_module_loader", None,
     "remote devices: tepad builds and measures on this machine (LocalRunner, RayRunner; "
     "rpc.LocalSession), and rpc.connect says so"),
    ("microTVM (tvm.micro), VTA, Hexagon, Android (contrib.ndk), iOS (contrib.xcode), "
     "WebAssembly (contrib.emcc)", None, "targets and packaging tepad has no code generator for"),
    ("code for targets other than the host CPU, CUDA and OpenCL (tvm.target.hexagon / "
     "adreno / stm32, rocm and arm_cpu builds, devices mtl, vpi, webgpu)", None,
     "tepad generates LLVM for the host CPU, PTX for CUDA and OpenCL C (run by the GPU "
     "emulator); the target helpers make TVM's Target objects"),
    ("extern-library contribs: cublas / cublaslt / rocblas / miopen / nnpack / dnnl "
     "/ thrust / sort / mkl.matmul_u8s8s32", None,
     "tepad's CUDA path compiles no CUDA C++ and links no vendor library (cblas / mkl "
     "matmul run on numpy's BLAS, rows above)"),
    ("contrib.tar / cc cross-compilers / dlpack / tedd / graph_executor / download / utils "
     "file locks", None,
     "packaging, framework interop and debug display that TE programs do not need "
     "(tepad.viz draws schedules)"),
    ("tir lowered builtins (tvm_stack_*, tvm_struct_*, TVMBackendAllocWorkspace, "
     "call_packed_lowered, ret, isnullptr, lookup_param, Load / Store, AllocateConst, "
     "DeclBuffer), ptx_* / mma_* / simdgroup_* intrinsics, q_multiply_shift, trace", None,
     "TVM's packed calling convention, pointer IR, relay parameters and TensorIR GPU "
     "intrinsics: tepad's kernels take plain pointers and its IR holds buffers; trace calls "
     "Python per element"),
    ("tir.transform passes of TensorIR, device / AOT lowering and formats tepad's code "
     "generators handle (InjectSoftwarePipeline, LowerAutoCopy, MergeSharedMemoryAllocations, "
     "FP8 / BF16 passes, SplitHostDevice, LowerDeviceKernelLaunch, InferFragment, ...)", None,
     "not passes a TE program calls; the census lists each with its reason"),
    ("tvm.arith iterator maps and solvers (detect_iter_map, subspace_divide, "
     "solve_linear_equations / inequalities, deduce_bound, detect_clip_bound, PresburgerSet)",
     None, "analyses inside TensorIR schedules and TVM's own passes; tepad's bounds are its "
           "InferBound and ISL regions (docs/inferbound.md)"),
    ("autotvm.tophub.load_reference_log", "tepad.autotvm.tophub.load_reference_log",
     "no TopHub package: no records ([])"),
    ("autotvm FallbackConfigEntity.fallback_with_reference_log",
     "tepad.autotvm.task.space.FallbackConfigEntity.fallback_with_reference_log", ""),
    ("autotvm.tophub.context", "tepad.autotvm.tophub.context",
     "no TopHub download: only extra_files' records, else the fallback configs"),
    ("autotvm relay integration (extract_from_program, register_topi_compute / schedule, "
     "apply_graph_best, apply_fixed_config, get_workload, TVM's feature "
     "extraction)", None,
     "task extraction from relay graphs, TopHub downloads and TVM's XGBoost features; "
     "tepad tunes TE templates with its own features"),
    ("TVM 0.6 internals (tvm.codegen.build_*, tvm.module.loadfile_* / loadbinary_*, "
     "LoweredFunc, Halide nodes Load / Store / ProducerConsumer, ir_pass MakeAPI / "
     "SplitHostDevice / StorageFlatten, ...)", None,
     "lowering internals over 0.6's LoweredFunc: tvm.lower and tvm.build run tepad's own"),
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


def status(path, note: str) -> str:
    """"out of scope" for a row without a tepad path (the note says why), else "not yet"
    when the path does not resolve, "different" when the note says how, else "yes"."""
    if path is None:
        return "out of scope"
    if resolve(path) is None:
        return "not yet"
    return "different" if note else "yes"


def table() -> str:
    """The markdown table of ROWS with each row's status."""
    lines = ["| TVM | tepad | status | notes |", "|---|---|---|---|"]
    for tvm_name, path, note in ROWS:
        st = status(path, note)
        shown = path if st not in ("not yet", "out of scope") else "-"
        lines.append(f"| `{tvm_name}` | `{shown}` | {st} | {note} |")
    counts = {k: sum(1 for _, p, n in ROWS if status(p, n) == k)
              for k in ("yes", "different", "not yet", "out of scope")}
    lines += ["", f"{counts['yes']} supported as in TVM, {counts['different']} supported with "
              f"the difference noted, {counts['not yet']} not yet, {counts['out of scope']} "
              "deliberately out of scope (the note says why)."]
    return "\n".join(lines)
