"""A census of TVM's TE-era Python API against ``import tepad as tvm``.

Reads a TVM git mirror at run time (nothing of TVM's is committed here), and for each release
tag lists the public names of the modules a TE program imports: ``tvm`` itself (with TVM 0.6's
top-level names and modules), ``tvm.te`` (hybrid, schedule), ``tvm.tir`` (ir_builder,
transform, stmt_functor, analysis, generic), ``tvm.arith``, ``tvm.runtime`` / ``tvm.nd`` /
``tvm.target`` / ``tvm.ir`` (instrument, transform), ``tvm.driver``, ``tvm.autotvm`` (task,
measure, tuner, record, feature, env), the ``tvm.contrib`` modules a TE program calls, and
``tvm.topi`` (top level, nn, utils, testing; ``topi`` before TVM 0.7).

A module's public names are read from its source with ``ast``, never by importing TVM: its
``__all__`` when it has one, else its top-level definitions without a leading underscore, plus
(for a package's ``__init__``) what it imports from inside TVM (``from .x import *`` followed
into ``x``), plus the C++ functions ``_init_api`` puts in it (``TVM_REGISTER_GLOBAL`` /
``TVM_REGISTER_API`` / 0.6's ``REGISTER_MAKE``-style macros, read from ``src/``).

Each name is then looked up in tepad the way a program would reach it (``tvm.a.b.name`` ->
``tepad.a.b.name``, attribute by attribute, importing submodules on the way; ``topi.x`` ->
tepad's ``topi`` shim), with DeprecationWarnings silenced. A function or class is *sig ok*
when tepad accepts every parameter name of TVM's newest signature (or takes ``**kwargs``) and
TVM's positional parameters come first in the same order (or tepad takes ``*args``).

Names outside tepad's scope (TVMScript parsing, relay / relax, TensorIR schedules, meta
schedule, RPC, microTVM, VTA, targets tepad has no code generator for) are classified by
``scope()`` with the reason, and not counted as gaps.

    python benchmarks/tvm_api_census.py                 # summary; RESULTS.md section
    python benchmarks/tvm_api_census.py --list missing  # every in-scope name tepad lacks
    python benchmarks/tvm_api_census.py --list all --module tvm.tir.transform
    python benchmarks/tvm_api_census.py --json census.json --no-write
"""
from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import re
import subprocess
import sys
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# --tepad-root DIR looks names up in another checkout's tepad (a "before" figure)
_ALT = sys.argv[sys.argv.index("--tepad-root") + 1] if "--tepad-root" in sys.argv else None
sys.path.insert(0, _ALT or str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results_sections import write_section  # noqa: E402

MIRROR = Path("/work/.mirror/apache+tvm/repo")
TAGS = ["v0.6.0", "v0.7.0", "v0.8.0", "v0.10.0", "v0.12.0", "v0.14.0", "v0.16.0", "v0.18.0"]
SECTION = "## TVM's TE-era Python API: census of names"
BEGIN, END = "<!-- tvm_api_census:begin -->", "<!-- tvm_api_census:end -->"

CONTRIB = ["nvcc", "clang", "cblas", "mkl", "cublas", "cudnn", "random", "sort", "utils", "util",
           "tedd", "pickle_memoize", "tar", "cc", "ndk", "dlpack", "rocm", "spirv", "xcode",
           "emcc", "graph_executor", "graph_runtime", "download", "cublaslt", "rocblas",
           "miopen", "dnnl", "thrust", "nnpack"]

# Module key (as a program names it) -> candidate source files, first existing wins.
MODULES: dict[str, list[str]] = {
    "tvm": ["python/tvm/__init__.py"],
    "tvm.te": ["python/tvm/te/__init__.py"],
    "tvm.te.hybrid": ["python/tvm/te/hybrid/__init__.py"],
    "tvm.te.schedule": ["python/tvm/te/schedule.py"],
    "tvm.tir": ["python/tvm/tir/__init__.py"],
    "tvm.tir.ir_builder": ["python/tvm/tir/ir_builder.py"],
    "tvm.tir.transform": ["python/tvm/tir/transform/__init__.py"],
    "tvm.tir.stmt_functor": ["python/tvm/tir/stmt_functor.py"],
    "tvm.tir.analysis": ["python/tvm/tir/analysis/__init__.py"],
    "tvm.tir.generic": ["python/tvm/tir/generic.py"],
    "tvm.arith": ["python/tvm/arith/__init__.py", "python/tvm/arith.py"],
    "tvm.runtime": ["python/tvm/runtime/__init__.py"],
    "tvm.nd": ["python/tvm/runtime/ndarray.py", "python/tvm/ndarray.py"],
    "tvm.target": ["python/tvm/target/__init__.py", "python/tvm/target.py"],
    "tvm.ir": ["python/tvm/ir/__init__.py"],
    "tvm.ir.instrument": ["python/tvm/ir/instrument.py"],
    "tvm.ir.transform": ["python/tvm/ir/transform.py"],
    "tvm.transform": ["python/tvm/ir/transform.py"],
    "tvm.driver": ["python/tvm/driver/__init__.py"],
    "tvm.error": ["python/tvm/error.py"],
    "tvm.autotvm": ["python/tvm/autotvm/__init__.py"],
    "tvm.autotvm.task": ["python/tvm/autotvm/task/__init__.py"],
    "tvm.autotvm.measure": ["python/tvm/autotvm/measure/__init__.py"],
    "tvm.autotvm.tuner": ["python/tvm/autotvm/tuner/__init__.py"],
    "tvm.autotvm.record": ["python/tvm/autotvm/record.py"],
    "tvm.autotvm.feature": ["python/tvm/autotvm/feature.py"],
    "tvm.autotvm.env": ["python/tvm/autotvm/env.py"],
    **{f"tvm.contrib.{m}": [f"python/tvm/contrib/{m}.py", f"python/tvm/contrib/{m}/__init__.py"]
       for m in CONTRIB},
    "tvm.topi": ["python/tvm/topi/__init__.py", "topi/python/topi/__init__.py"],
    "tvm.topi.nn": ["python/tvm/topi/nn/__init__.py", "topi/python/topi/nn/__init__.py"],
    "tvm.topi.utils": ["python/tvm/topi/utils.py", "topi/python/topi/util.py"],
    "tvm.topi.testing": ["python/tvm/topi/testing/__init__.py",
                         "topi/python/topi/testing/__init__.py"],
    # TVM 0.6's modules, gone since (tepad answers them as deprecated aliases)
    **{f"tvm.{m}": [f"python/tvm/{m}.py"]
       for m in ["api", "intrin", "expr", "stmt", "make", "ir_pass", "schedule", "tensor",
                 "ndarray", "build_module", "module", "codegen", "ir_builder", "container",
                 "tag", "tensor_intrin", "generic", "node"]},
    "tvm.hybrid": ["python/tvm/hybrid/__init__.py"],
}
# A module that only exists under an older spelling: the key TVM 0.6 programs use.
OLD_KEY = {"topi/python/topi/__init__.py": "topi", "topi/python/topi/nn/__init__.py": "topi.nn",
           "topi/python/topi/util.py": "topi.util",
           "topi/python/topi/testing/__init__.py": "topi.testing"}

# Where a name comes from inside TVM (the file that defines or re-exports it) decides some
# scopes: TensorIR schedules, TVMScript, relay, ...
OUT_OF_SCOPE_FILES = [
    (r"python/tvm/tir/schedule/", "TensorIR schedule (tir.Schedule): tepad schedules TE stages"),
    (r"python/tvm/tir/tensor_intrin/", "TensorIR tensor intrinsics (for tir.Schedule.tensorize)"),
    (r"python/tvm/tir/usmp/", "unified static memory planning (AOT executor, relay)"),
    (r"python/tvm/tir/block_", "TensorIR block scope / dependency (tir.Schedule)"),
    (r"python/tvm/tir/function\.py:(TensorIntrin|IndexMap)$", "TensorIR (tir.Schedule)"),
    (r"python/tvm/script/", "TVMScript parsing is not part of tepad (it prints TVMScript-like "
                            "text)"),
    (r"python/tvm/relay/|python/tvm/relax/", "relay / relax (graph level): tepad is TE only"),
    (r"python/tvm/meta_schedule/", "meta_schedule (TensorIR tuning): tepad tunes with AutoTVM "
                                   "and its auto_scheduler"),
    (r"python/tvm/rpc/", "RPC: tepad measures in-process"),
    (r"python/tvm/micro/", "microTVM"),
    (r"python/tvm/runtime/(vm|profiler_vm|disco|executor|profiling|relax_vm|_ffi_node_api)",
     "relay / relax executors and VM"),
    (r"python/tvm/ir/(type|type_relation|affine_type|tensor_type|adt|diagnostics|global_info|"
     r"supply|attrs|json_compact|memory_pools)\.py:(?!PrimType$|PointerType$|make_node$)",
     "relay's type system, attrs and diagnostics (graph level)"),
    (r"python/tvm/ir/base\.py:(Span|SourceName|SequentialSpan|EnvFunc)$",
     "source locations of the relay / TVMScript parsers and relay's EnvFunc (tepad's nodes "
     "carry no spans)"),
    (r"python/tvm/ir/op\.py:(register_intrin_lowering|register_op_attr)$",
     "rules in TVM's C++ operator registry (tepad's code generator maps intrinsics itself)"),
    (r"python/tvm/target/(virtual_device|compilation_config|x86|tag|intrin)\.py:",
     "relay's device planning / target registry details"),
    (r"python/tvm/autotvm/graph_tuner/", "graph tuner (relay graphs)"),
]

# Names decided one by one: (module regex, name regex, reason). A reason beginning "in scope"
# keeps the name in scope whatever its file says.
NAME_RULES = [
    (r"tvm$", r"relay|relax|rpc|micro|meta_schedule|parser|script|support|exec|tvmscript|"
              r"dlight", "relay / relax / TVMScript / RPC / microTVM / meta_schedule packages"),
    (r"tvm$", r"register_extension|register_node|register_object|Object|ObjectRef|Function|"
              r"PackedFunc|TypeCode|TVMType|ArgTypeCode|DataTypeCode|get_global_func|"
              r"register_func|TVMError|__version__|DataType|Node|NodeBase|NDArray", "in scope"),
    (r"tvm$", r"vpi|opengl|micro_dev|sdaccel|hexagon|webgpu|vpi|aocl|aocl_sw_emu|sdaccel",
     "device types tepad has no runtime for (a Device is made; building for it is refused)"),
    (r"tvm\.topi$", r"adreno|hexagon|rocm|opengl",
     "schedules for targets tepad has no code generator for (Adreno's OpenCL textures, the "
     "Hexagon DSP, AMD ROCm, OpenGL); only those targets' own tests use them, and building "
     "for the targets is refused"),
    (r"tvm\.runtime$", r"(Executable|vm|profiling|disco|Report|save_param_dict|load_param_dict|"
                       r"save_param_dict_to_file|load_param_dict_from_file|executor|"
                       r"Scriptable|ShapeTuple|ObjectGeneric|relax_vm|script|enabled_targets|"
                       r"ObjectPath.*|String|container|ndarray|Module|packed_func|object_path)",
     None),
    (r"tvm\.target$", r"(vta|hexagon|"
                      r"stm32|adreno|intel_gpu|create_llvm|generic_func|GenericFunc|"
                      r"override_native_generic_func|get_native_generic_func|"
                      r"list_tags|make_compilation_config|VirtualDevice|TargetKind|"
                      r"datatype|codegen|tag|x86|compilation_config|virtual_device)$", None),
    (r"tvm\.contrib\.(ndk|xcode|emcc|spirv|rocm|rocblas|miopen|dnnl|thrust|nnpack|cublaslt|"
     r"download|graph_executor|graph_runtime|dlpack|tedd|sort|cudnn|cublas|tar|util)$", r".*",
     None),
    (r"tvm$", r"tvm_excepthook|tvm_wrap_excepthook", "process-wide hooks TVM installs on import "
     "(terminating RPC / build subprocesses)"),
    (r"tvm(\.api)?$", r"get_env_func|register_extension", "0.6 FFI plumbing for C++ "
     "extension types (tepad's objects are Python objects)"),
    (r"tvm(\.node)?$", r"node|Node|register_node", None),
    (r"tvm(\.tir)?$", r"ptx_.*|mma_fill|mma_store|tvm_bmma_sync|simdgroup_.*|"
                       r"make_filled_simdgroup_matrix|create_barriers|dp4a|"
                       r"get_active_lane_mask|get_vscale_expr",
     "PTX / Metal / SVE intrinsics emitted by TensorIR GPU and scalable-vector schedules "
     "(tepad's CUDA path emits wmma through tvm_*_matrix_sync)"),
    (r"tvm\.tir$", r"TVMBackendAllocWorkspace|TVMBackendFreeWorkspace|tvm_stack_.*|"
                    r"tvm_struct_.*|tvm_throw_last_error|tvm_check_return|call_packed_lowered|"
                    r"call_cpacked_lowered|ret|isnullptr|lookup_param|call_tir|tvm_tuple|"
                    r"tvm_thread_allreduce|start_profile_intrinsic|end_profile_intrinsic|"
                    r"AllocateConst|DeclBuffer|usmp|schedule|CallEffectKind|DataProducer|"
                    r"q_multiply_shift|q_multiply_shift_per_axis|trace|Any|vectorhigh|vectorlow|"
                    r"vectorcombine|TensorIntrin|IndexMap|Load|Store",
     "builtins and nodes of TVM's later lowering (packed calling convention, workspaces, "
     "relay parameters, pointer Load/Store) or of TensorIR: tepad's kernels take plain "
     "pointers and its IR holds buffers (BufferLoad / BufferStore)"),
    (r"tvm\.tir\.transform$", r"CompactBufferAllocation|PlanAndUpdateBufferAllocationLocation|"
                              r"LowerMatchBuffer|LowerCrossThreadReduction|UnifyThreadBinding|"
                              r"InjectPermutedLayout|InjectSoftwarePipeline|LowerAutoCopy|"
                              r"ManifestSharedMemoryLocalStage|TransformMmaBufferLayout|"
                              r"RemoveWeightLayoutRewriteBlock|DefaultGPUSchedule|"
                              r"LiftThreadBinding|ConvertForLoopsToSerial|InjectPTXAsyncCopy|"
                              r"MergeSharedMemoryAllocations|MergeDynamicSharedMemoryAllocations|"
                              r"TextureFlatten|VerifyVTCMLimit|ExtractPrimFuncConstants|"
                              r"AnnotateDeviceRegions|LowerDeviceKernelLaunch|"
                              r"InlinePrivateFunctions|InstallDebugSpans|LegalizePackedCalls|"
                              r"InstrumentProfileIntrinsics|FP8.*|BF16.*|PointerValueTypeRewrite|"
                              r"ForceNarrowIndexToInt32|ReduceBranchingThroughOvercompute|"
                              r"UseAssumeToReduceBranches|CoProcSync|InferFragment|LiftAttrScope|"
                              r"SplitHostDevice|HoistedConditionals|HoistedLetBindings",
     "passes of TensorIR schedules, of TVM's device / AOT / relay lowering, or of formats "
     "tepad's code generators handle themselves (bf16, fp8, fragments, host/device split, "
     "shared-memory merging): not passes a TE program calls"),
    (r"tvm\.tir\.analysis$", r"OOBChecker|apply_prim_func_arg_and_result_memory_constraints|"
                             r"get_prim_func_arg_and_result_memory_constraints|"
                             r"get_vtcm_compaction_passes|find_anchor_block|"
                             r"get_block_access_region|get_block_read_write_region|"
                             r"detect_buffer_access_lca|calculate_constant_bytes|"
                             r"assert_pure_function|is_pure_function",
     "analyses of TensorIR blocks, relay memory planning or Hexagon VTCM"),
    (r"tvm\.arith$", r"IterMapExpr|IterMark|IterSplitExpr|IterSumExpr|detect_iter_map|"
                    r"iter_map_simplify|normalize_iter_map_to_expr|normalize_to_iter_sum|"
                    r"inverse_affine_iter_map|subspace_divide|PresburgerSet|"
                    r"estimate_region_.*|ProofStrength|Extension|ConstraintScope|"
                    r"solve_linear_equations|solve_linear_inequalities|DomainTouched|"
                    r"detect_common_subexpr",
     "iterator-map and solver analyses used inside TensorIR schedules and TVM's own passes "
     "(tepad's bounds are its InferBound / ISL regions, docs/inferbound.md)"),
    (r"tvm\.codegen$", r"build_.*|llvm_version_major|llvm_target_enabled",
     "0.6 code-generator entry points over LoweredFunc (tepad: tvm.build)"),
    (r"tvm\.module$", r"loadfile_.*|loadbinary_.*|source_module_create|"
                      r"csource_module_create|system_lib|ProfileResult",
     "0.6 per-format module loaders registered for load_module (tepad: tvm.runtime."
     "load_module of its own .so / .o / .ptx)"),
    (r"tvm\.(make|stmt|expr)$", r"Load|Store|Free|Block|ProducerConsumer|node|Node|"
                               r"div_ambiguity_error",
     "0.6 Halide IR nodes removed by TVM 0.7-0.11 (pointer Load/Store, Free, Block, "
     "ProducerConsumer): tepad's IR holds buffers"),
    (r"tvm\.ir_pass$", r"AttrsEqual|AttrsHash|BindDeviceType|CombineContextCall|"
                       r"DecorateDeviceScope|InferFragment|Inline|LiftAttrScope|"
                       r"LowerCustomDatatypes|LowerDeviceStorageAccessInfo|LowerStorageAccess|"
                       r"LowerStorageAccessInfo|LowerTVMBuiltin|MakeAPI|NarrowChannelAccess|"
                       r"PassName|RemapThreadAxis|RewriteForTensorCore|SkipVectorize|"
                       r"SplitHostDevice|SplitPipeline|VerifyCompactBuffer|VerifyMemory|"
                       r"CoProcSync|LowerWarpMemory|LowerThreadAllreduce|"
                       r"InstrumentBoundCheckers|VerifySSA|VerifyGPUCode|StorageFlatten|"
                       r"InjectPrefetch",
     "0.6 lowering internals over LoweredFunc / Halide statements with 0.6's argument lists; "
     "tvm.lower and tvm.build run tepad's own versions"),
    (r"tvm\.(schedule|te\.schedule)$", r"PassName|SchedulePostProcRewriteForTensorCore|"
                                       r"VerifyCompactBuffer|convert",
     "0.6-0.7 internals (the tensor-core rewrite was removed in TVM 0.8)"),
    (r"tvm\.(te|te\.schedule)$", r"SpecializedCondition|extern_primfunc",
     "specialized shape conditions / PrimFunc externs feed TensorIR (tir.PrimFunc."
     "specialize, TVMScript)"),
    (r"tvm\.(hybrid|te\.hybrid)$", r"build|HybridModule|source_to_op|decorate|form_body",
     "hybrid script's dump-to-Python module (te.hybrid.build): tepad runs hybrid script "
     "through te.hybrid.script only"),
    (r"tvm(\.intrin)?$", r"register_intrin_rule", "intrinsic lowering rules are C++ "
     "registrations in TVM; tepad's code generator maps intrinsics itself"),
    (r"tvm(\.api|\.tensor)?$", r"bijective_layout|layout|Layout|BijectiveLayout",
     None),
    (r"tvm\.(nd|ndarray|runtime)$|tvm$", r"cl|mtl|vpi|opengl|micro_dev|hexagon|webgpu",
     "devices tepad has no runtime for"),
    (r"tvm\.runtime$", r"load_static_library|system_lib", "static libraries / system-lib "
     "modules (tepad loads its own shared objects)"),
    (r"tvm\.error$", r"DiagnosticError|OpAttributeInvalid|OpAttributeRequired|"
                     r"OpAttributeUnImplemented|OpError|OpNotImplemented|RPCError|"
                     r"RPCSessionTimeoutError", None),
    (r"tvm\.(ir|ir\.transform|transform)$", r"RelayExpr|analysis|diagnostics|"
                                            r"ApplyPassToFunction",
     "relay / relax functions and their passes"),
    (r"tvm\.autotvm(\.task)?$", r"extract_from_graph|extract_from_multiple_graph|"
                                 r"extract_from_program|extract_from_multiple_program|"
                                 r"TaskExtractEnv|apply_graph_best|ApplyGraphBest|"
                                 r"register_topi_compute|register_topi_schedule|tophub|"
                                 r"database",
     "task extraction from relay programs, the graph tuner, TopHub downloads and the redis "
     "database"),
    (r"tvm\.autotvm(\.measure)?$", r"RPCRunner|request_remote|Executor|LocalExecutor",
     "RPC measurement and its executors (tepad measures in-process)"),
    (r"tvm\.autotvm\.record$", r"args|parser", "the module's command-line script"),
    (r"tvm\.autotvm\.feature$", r".*", "TVM's per-itervar feature extraction for its XGBoost "
     "model: tepad's cost model reads its own features (tepad.autotvm.feature)"),
    (r"tvm\.contrib\.cc$", r"build_create_shared_func|create_staticlib|cross_compiler|"
                           r"get_global_symbol_section_map|get_target_by_dump_machine|"
                           r"create_executable",
     "cross-compilation and packaging helpers (tepad builds in-process with LLVM)"),
    (r"tvm\.contrib\.(utils|util)$", r"DirectoryCreatedPastAtExit|FileLock|filelock|"
                                     r"is_source_path|which|get_lower_ir",
     "TVM's internal file-system helpers"),
    (r"tvm\.contrib\.nvcc$", r"callback_libdevice_path|find_libdevice_path|"
                             r"tvm_callback_cuda_compile|have_cudagraph|have_fp8",
     "callbacks of TVM's CUDA C compile path (tepad emits PTX itself)"),
    (r"tvm\.contrib\.mkl$", r"matmul_u8s8s32", "int8 MKL GEMM: no MKL in tepad"),
    (r"tvm\.contrib\.pickle_memoize$", r"Cache|GLOBAL_CACHE_DIR", "the cache's internals"),
    (r"tvm\.target$", r"make_se_scope|opengl|rocm", None),
    (r"tvm$", r"attrs|datatype", "0.6's relay attribute nodes and custom-datatype registry"),
    (r"tvm\.transform\.PassContext$", r".*trace.*|.*num_evals|get_tuning_api_database",
     "MetaSchedule's tuning API and pass tracing"),
    (r"tvm\.ir\.IRModule$", r"get_constructor|get_global_type_vars?|get_type|import_from_std|"
                            r"update_global_info|replace_global_vars",
     "relay's algebraic data types, type definitions and standard library"),
    (r"tvm\.runtime\.Module$", r"get_property_mask|is_binary_serializable|is_device_module|"
                               r"is_dso_exportable|is_runnable|clear_imports",
     "properties of TVM's module tree used when relay / relax export multi-module "
     "libraries"),
    (r"tvm\.target\.Target$", r"canon_multi_target|canon_multi_target_and_host|"
                              r"canon_target_map_and_host|vtcm_capacity|"
                              r"supports_cooperative_matrix|supports_integer_dot_product|"
                              r"l2_cache_size_bytes|max_block_size_[xy]|from_device|"
                              r"check_and_update_host_consist",
     "relay's multi-target maps and attributes of targets tepad has no code generator for "
     "(Hexagon VTCM, Vulkan, dlight GPU schedules)"),
    (r"tvm\.te\.Stage$", r"env_threads", "persistent scan kernels: the time loop inside one "
     "launch needs a grid-wide barrier between steps, which tepad's CUDA path does not have "
     "(bind each init / update stage instead)"),
    (r"tvm\.tir\.PrimFunc$", r"specialize", "PrimFunc specialization feeds TensorIR / "
     "TVMScript (tepad's PrimFuncs come from TE lowering)"),
    (r"tvm\.tir\.IterVar$", r"DimInfo", "an IterVar type code of TVM 0.7-0.10's tensor-core "
     "rewrite"),
    (r"tvm\.arith\.Analyzer$", r"enabled_extensions|rewrite_simplify_stats|"
                               r"reset_rewrite_simplify_stats",
     "statistics and switches of TVM's rewrite simplifier"),
    (r"tvm(\.intrin|\.te)?$", r"trace", "runtime tracing through a packed callback inside "
     "expressions: tepad's kernels call no Python per element (inspect values with "
     "tepad.testing.reference)"),
    (r"tvm\.container$", r"EnvFunc|LoweredFunc", "0.6 lowering objects (LoweredFunc became "
     "PrimFunc in TVM 0.7)"),
    (r"tvm\.build_module$", r"DumpIR|form_body", "0.6 build internals (dump IR with "
     "tvm.ir.instrument.PrintAfterAll)"),
    (r"tvm\.tir\.stmt_functor$", r"renew_defs", "copies a PrimFunc with fresh variables for "
     "TensorIR / MetaSchedule tests"),
    (r"tvm\.arith$", r"DeduceBound|DetectClipBound|deduce_bound|detect_clip_bound|"
                    r"intset_vector",
     "TVM's bound-deduction helpers for its own loop partitioner and vectorizer (tepad's "
     "LoopPartition and InferBound use their own analyses)"),
    (r"tvm\.autotvm$", r"apply_fixed_config", "fixed configs for relay operator strategies"),
    (r"tvm\.autotvm\.task$", r"ApplyFixedConfig|get_workload", "fixed configs and workload "
     "lookup of topi computes registered for relay operator strategies"),
    (r"tvm\.autotvm\.measure$", r"default_module_loader", "the RPC module loader of "
     "RPCRunner"),
    (r"tvm\.nd$", r"numpyasarray", "a ctypes DLTensor view of a numpy array (TVM's FFI)"),
    (r"tvm\.autotvm(\.task)?$", r"attach_code_hash|attach_code_hash_to_arg",
     "hash of a template's source code attached to relay-extracted tasks"),
]

# contrib modules, runtime names, targets: per-name reason (None above means: look here)
CONTRIB_REASON = {
    "ndk": "Android NDK packaging: tepad builds for the host CPU and CUDA only",
    "xcode": "iOS / macOS packaging (xcrun): tepad builds for the host CPU and CUDA only",
    "emcc": "WebAssembly (emscripten): not a tepad target",
    "spirv": "SPIR-V (Vulkan): not a tepad target",
    "rocm": "ROCm: not a tepad target",
    "rocblas": "ROCm BLAS: not a tepad target",
    "miopen": "ROCm MIOpen: not a tepad target",
    "dnnl": "oneDNN extern calls through BYOC (relay)",
    "thrust": "thrust sort through CUDA extern calls: tepad's CUDA path compiles no CUDA C++",
    "nnpack": "NNPACK extern library: not linked by tepad",
    "cublaslt": "cuBLASLt extern calls: tepad's CUDA path links no CUDA library",
    "cublas": "cuBLAS extern calls: tepad's CUDA path links no CUDA library",
    "cudnn": "cuDNN extern calls: tepad's CUDA path links no CUDA library",
    "download": "downloading test data (relay model zoo helpers)",
    "graph_executor": "relay's graph executor",
    "graph_runtime": "relay's graph runtime (0.7's name of graph_executor)",
    "dlpack": "DLPack interop with PyTorch / other frameworks (tepad's NDArray is numpy-backed)",
    "tedd": "TE debug display: tepad.viz draws schedules its own way (graphviz / text)",
    "sort": "argsort / topk through extern packed functions (topi.sort / topi.topk are TE)",
    "tar": "tar packaging of object files for export_library (tepad's export is one .so)",
    "util": None, "utils": None,
}
TARGET_REASON = ("a target tepad has no code generator for (Target objects are made; build "
                 "refuses them)")
RUNTIME_REASON = "relay / relax executors, VM and parameter files"


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(MIRROR), *args], check=True, capture_output=True,
                          text=True).stdout


class Release:
    """One tag's tree: which files exist, their text (cached) and its C++ registrations."""

    def __init__(self, tag: str):
        self.tag = tag
        self.ref = f"refs/tags/{tag}"
        self.files = set(git("ls-tree", "-r", "--name-only", self.ref, "--", "python",
                             "topi/python").split())
        self._text: dict[str, str | None] = {}
        self._ffi: dict[str, set] | None = None
        self._names: dict[str, dict] = {}

    def text(self, path: str):
        if path not in self._text:
            self._text[path] = git("show", f"{self.ref}:{path}") if path in self.files else None
        return self._text[path]

    def ffi(self) -> dict:
        """Global-function prefix -> the names registered under it in C++."""
        if self._ffi is None:
            pat = (r'TVM_REGISTER_(GLOBAL|API)\("[A-Za-z0-9_.]+"\)|'
                   r'REGISTER_(MAKE|MAKE_BINARY_OP|MAKE_BIT_OP|PASS[0-9]*|SCHEDULE_PASS)\('
                   r'[A-Za-z0-9_]+')
            out = subprocess.run(["git", "-C", str(MIRROR), "grep", "-h", "-o", "-E", pat,
                                  self.ref, "--", "src"], capture_output=True, text=True).stdout
            reg = defaultdict(set)
            macro = {"MAKE": "make", "MAKE_BINARY_OP": "make", "MAKE_BIT_OP": "make",
                     "SCHEDULE_PASS": "schedule"}
            for line in out.splitlines():
                line = line.split(":", 2)[-1]
                m = re.match(r'TVM_REGISTER_(?:GLOBAL|API)\("([A-Za-z0-9_.]+)"\)', line)
                if m:
                    full = m.group(1)
                else:
                    m = re.match(r"REGISTER_([A-Z_0-9]+)\(([A-Za-z0-9_]+)", line)
                    if not m:
                        continue
                    ns = macro.get(m.group(1), "ir_pass" if m.group(1).startswith("PASS")
                                   else None)
                    if ns is None:
                        continue
                    full = f"{ns}.{m.group(2)}"
                if "." in full:
                    pre, name = full.rsplit(".", 1)
                    reg[pre].add(name)
            self._ffi = reg
        return self._ffi

    def module_file(self, key: str):
        for p in MODULES[key]:
            if p in self.files:
                return p
        return None

    def names(self, path: str, stack=()) -> dict:
        """Public name -> (defining file:name, kind, params) for the module at ``path``."""
        if path in self._names:
            return self._names[path]
        if path in stack:
            return {}
        src = self.text(path)
        out: dict = {}
        if src is None:
            return out
        try:
            tree = ast.parse(src)
        except SyntaxError:
            return out
        is_pkg = path.endswith("__init__.py")
        pkg_dir = path.rsplit("/", 1)[0]
        explicit_all = None
        defs: dict = {}

        def walk(body):
            nonlocal explicit_all
            for node in body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs[node.name] = (f"{path}:{node.name}", "function", _params(node))
                elif isinstance(node, ast.ClassDef):
                    init = next((b for b in node.body if isinstance(b, ast.FunctionDef)
                                 and b.name == "__init__"), None)
                    defs[node.name] = (f"{path}:{node.name}", "class",
                                       _params(init, skip_self=True) if init else None)
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for t in targets:
                        if isinstance(t, ast.Name):
                            if t.id == "__all__":
                                try:
                                    explicit_all = list(ast.literal_eval(node.value))
                                except ValueError:
                                    pass
                            else:
                                defs[t.id] = (f"{path}:{t.id}", "value", None)
                elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                        and node.target.id == "__all__" and explicit_all is not None:
                    try:
                        explicit_all += list(ast.literal_eval(node.value))
                    except ValueError:
                        pass
                elif isinstance(node, ast.ImportFrom):
                    self._import(node, path, pkg_dir, is_pkg, defs, stack)
                elif isinstance(node, ast.Import) and is_pkg:
                    continue
                elif isinstance(node, ast.If):
                    walk(node.body)
                    walk(node.orelse)
                elif isinstance(node, ast.Try):
                    walk(node.body)
                elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                    self._init_api(node.value, defs, path)
        walk(tree.body)
        if explicit_all is not None:
            out = {n: defs.get(n, (f"{path}:{n}", "value", None)) for n in explicit_all}
        else:
            out = {n: v for n, v in defs.items() if not n.startswith("_")}
        self._names[path] = out
        return out

    def _resolve_rel(self, node: ast.ImportFrom, pkg_dir: str):
        """The source file of ``from <module> import ...`` when it is inside TVM."""
        if node.level:
            base = pkg_dir
            for _ in range(node.level - 1):
                base = base.rsplit("/", 1)[0]
            mod = (node.module or "").replace(".", "/")
            stem = f"{base}/{mod}" if mod else base
        elif node.module and (node.module == "tvm" or node.module.startswith("tvm.")):
            stem = "python/" + node.module.replace(".", "/")
        elif node.module and (node.module == "topi" or node.module.startswith("topi.")):
            stem = "topi/python/" + node.module.replace(".", "/")
        else:
            return None, None
        for cand in (f"{stem}.py", f"{stem}/__init__.py"):
            if cand in self.files:
                return cand, stem
        return None, stem

    def _import(self, node, path, pkg_dir, is_pkg, defs, stack):
        src, stem = self._resolve_rel(node, pkg_dir)
        if stem is None:
            return
        for a in node.names:
            if a.name == "*":
                if src:
                    for n, v in self.names(src, stack + (path,)).items():
                        defs.setdefault(n, v)
                continue
            if not is_pkg:
                continue
            name = a.asname or a.name
            sub = f"{stem}/{a.name}"
            if f"{sub}.py" in self.files or f"{sub}/__init__.py" in self.files:
                defs[name] = (f"{sub}", "module", None)
            elif src:
                got = self.names(src, stack + (path,)).get(a.name)
                defs[name] = got or (f"{src}:{a.name}", "value", None)

    def _init_api(self, call: ast.Call, defs: dict, path: str):
        f = call.func
        fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if fname != "_init_api" or not call.args or not isinstance(call.args[0], ast.Constant):
            return
        ns = call.args[0].value
        ns = ns[4:] if ns.startswith("tvm.") else ns
        for n in self.ffi().get(ns, ()):
            if not n.startswith("_"):
                defs.setdefault(n, (f"{path}:{n}", "ffi", None))


def _params(fn, skip_self=False):
    if fn is None:
        return None
    a = fn.args
    pos = [x.arg for x in a.posonlyargs + a.args]
    if skip_self and pos:
        pos = pos[1:]
    return {"pos": pos, "kwonly": [x.arg for x in a.kwonlyargs],
            "varargs": a.vararg is not None, "varkw": a.kwarg is not None}


# --------------------------------------------------------------------------- tepad side
_MISSING = object()


def tepad_lookup(key: str, name: str):
    """What ``import tepad as tvm`` gives for ``<key>.<name>`` (``topi.x`` through the shim),
    or ``_MISSING``."""
    parts = key.split(".")
    top = "tepad" if parts[0] == "tvm" else parts[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            obj = importlib.import_module(top)
        except Exception:                      # noqa: BLE001 - any import failure is a gap
            return _MISSING
        path = top
        for p in parts[1:] + [name]:
            path = f"{path}.{p}"
            try:
                obj = getattr(obj, p)
                continue
            except Exception:                  # noqa: BLE001
                pass
            try:
                obj = importlib.import_module(path)
            except Exception:                  # noqa: BLE001
                return _MISSING
    return obj


# ``span`` (a source location every TVM node constructor takes, always left to its default
# in TE programs) is not a difference worth counting.
IGNORED_PARAMS = ("self", "cls", "span")


def member_lookup(key: str, name: str):
    """A class member: the class attribute, else (instance attributes) a name in the
    ``__slots__`` / ``_fields`` of the class or its bases or assigned as ``self.<name>`` in
    their source; ``_MISSING`` when none."""
    mod, cls_name = key.rsplit(".", 1)
    cls = tepad_lookup(mod, cls_name)
    if cls is _MISSING:
        return _MISSING
    if hasattr(cls, name):
        return getattr(cls, name)
    for c in getattr(cls, "__mro__", ()):
        if name in getattr(c, "__slots__", ()) or name in getattr(c, "_fields", ()):
            return True
        try:
            src = inspect.getsource(c)
        except (OSError, TypeError):
            continue
        if re.search(rf"self\.{name}\s*(,[^=]*)?=|[\"']{name}[\"']", src):
            return True
    return _MISSING


def sig_compatible(obj, params):
    """None when not checkable; else (ok, what differs)."""
    if params is None or not callable(obj):
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    ps = list(sig.parameters.values())
    names = {p.name for p in ps}
    varkw = any(p.kind is p.VAR_KEYWORD for p in ps)
    varargs = any(p.kind is p.VAR_POSITIONAL for p in ps)
    pos = [p.name for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    want = [n for n in params["pos"] + params["kwonly"] if n not in IGNORED_PARAMS]
    missing = [n for n in want if n not in names] if not varkw else []
    tvm_pos = [n for n in params["pos"] if n not in IGNORED_PARAMS]
    order_ok = varargs or [n for n in pos if n in tvm_pos] == [n for n in tvm_pos if n in pos]
    if params["varargs"] and not varargs:
        missing.append("*args")
    diff = []
    if missing:
        diff.append("lacks " + ", ".join(missing))
    if not order_ok:
        diff.append(f"positional order {params['pos']} vs {pos}")
    return (not diff, "; ".join(diff))


# --------------------------------------------------------------------------- scope
def scope(key: str, name: str, origin: str):
    """None when the name is one a TE program may use, else the reason it is out of scope."""
    for mod_re, name_re, reason in NAME_RULES:
        if re.match(mod_re, key) and re.fullmatch(name_re, name):
            if reason == "in scope":
                return None
            if reason is not None:
                return reason
            if key.startswith("tvm.contrib.") and CONTRIB_REASON.get(key.split(".")[2]):
                return CONTRIB_REASON[key.split(".")[2]]
            if key == "tvm.target":
                return TARGET_REASON
            if key == "tvm.runtime":
                return RUNTIME_REASON
            if re.search(r"layout", name, re.I):
                return None
            if key.endswith("node") or name in ("node", "Node", "register_node"):
                return ("0.6's node module (tvm.node / tvm.runtime.Object): tepad's nodes "
                        "are Python classes")
            if key == "tvm.error":
                return "errors raised by relay operators, diagnostics and RPC"
            continue
    for file_re, reason in OUT_OF_SCOPE_FILES:
        if re.search(file_re, origin):
            return reason
    return None


# --------------------------------------------------------------------------- census
# Classes whose public methods and properties a TE program calls: each member is a name of
# its own (module key "<module>.<Class>"), read from the class body in TVM's source.
CLASSES = [("tvm.te", "Schedule"), ("tvm.te", "Stage"), ("tvm.te", "Tensor"),
           ("tvm.te", "ComputeOp"), ("tvm.tir", "Buffer"), ("tvm.tir", "IterVar"),
           ("tvm.tir", "PrimFunc"), ("tvm.tir.ir_builder", "IRBuilder"),
           ("tvm.nd", "NDArray"), ("tvm.runtime", "Module"), ("tvm.runtime", "Device"),
           ("tvm.target", "Target"), ("tvm.ir", "IRModule"), ("tvm.transform", "PassContext"),
           ("tvm.autotvm.task", "ConfigSpace"), ("tvm.autotvm.task", "ConfigEntity"),
           ("tvm.autotvm.task", "Task"), ("tvm.autotvm.tuner", "Tuner"),
           ("tvm.arith", "Analyzer")]


def class_members(rel: Release, key: str, cls: str) -> dict:
    """Public methods / properties / class attributes of ``cls`` as ``key`` exports it in
    ``rel``: name -> (origin, kind, params)."""
    path = rel.module_file(key)
    if path is None:
        return {}
    entry = rel.names(path).get(cls)
    if entry is None or entry[1] != "class":
        return {}
    src_path = entry[0].split(":")[0]
    try:
        tree = ast.parse(rel.text(src_path) or "")
    except SyntaxError:
        return {}
    node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
    out = {}
    for b in node.body if node is not None else ():
        if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) and not b.name.startswith("_"):
            prop = any(getattr(d, "id", getattr(d, "attr", "")) in ("property", "setter")
                       for d in b.decorator_list)
            static = any(getattr(d, "id", "") == "staticmethod" for d in b.decorator_list)
            out[b.name] = (f"{src_path}:{cls}.{b.name}", "property" if prop else "method",
                           None if prop else _params(b, skip_self=not static))
        elif isinstance(b, ast.Assign):
            for t in b.targets:
                if isinstance(t, ast.Name) and not t.id.startswith("_"):
                    out[t.id] = (f"{src_path}:{cls}.{t.id}", "value", None)
    return out


# Out-of-scope names tepad defines only to raise a TepadError that says why and what to
# write instead.
REFUSED = {("tvm.te.Stage", "env_threads")}


def census(tags, members=True):
    """name key -> record with the releases that have it, its origin and params (newest)."""
    recs: dict = {}
    for tag in tags:
        rel = Release(tag)
        for key, cls in CLASSES if members else ():
            for name, (origin, kind, params) in class_members(rel, key, cls).items():
                r = recs.setdefault((f"{key}.{cls}", name),
                                    {"module": f"{key}.{cls}", "name": name, "releases": [],
                                     "spelled": set(), "member": True})
                r["releases"].append(tag)
                r["spelled"].add(f"{key}.{cls}")
                r.update(origin=origin, kind=kind, params=params)
        for key in MODULES:
            path = rel.module_file(key)
            if path is None:
                continue
            shown = OLD_KEY.get(path, key)
            for name, (origin, kind, params) in rel.names(path).items():
                r = recs.setdefault((key, name), {"module": key, "name": name, "releases": [],
                                                  "spelled": set()})
                r["releases"].append(tag)
                r["spelled"].add(shown)
                r.update(origin=origin, kind=kind, params=params)
    out = []
    for (key, name), r in sorted(recs.items()):
        obj = member_lookup(key, name) if r["kind"] in ("method", "property") or \
            r.get("member") else tepad_lookup(key, name)
        have = obj is not _MISSING
        # a name tepad answers is in scope, whatever the rules say of its kind, unless tepad
        # answers it only to refuse it with the reason (REFUSED)
        reason = scope(key, name, r["origin"])
        if have and (key, name) not in REFUSED:
            reason = None
        sig = sig_compatible(obj, r["params"]) \
            if have and r["kind"] in ("function", "class", "method") else None
        r.update(spelled=sorted(r["spelled"]), tepad=have, out_of_scope=reason,
                 sig_ok=None if sig is None else sig[0], sig_diff="" if sig is None else sig[1])
        out.append(r)
    return out


def _rescoped(recs):
    """Records of an earlier run (``--baseline``) with today's scope rules applied, so a
    before / after comparison counts the same names as in scope."""
    out = []
    for r in recs:
        r = dict(r)
        r["out_of_scope"] = scope(r["module"], r["name"], r["origin"])
        if r["tepad"] and (r["module"], r["name"]) not in REFUSED:
            r["out_of_scope"] = None
        out.append(r)
    return out


def group(key: str) -> str:
    if key.startswith("tvm.contrib."):
        return "tvm.contrib.*"
    if key in ("tvm.api", "tvm.intrin", "tvm.expr", "tvm.stmt", "tvm.make", "tvm.ir_pass",
               "tvm.schedule", "tvm.tensor", "tvm.ndarray", "tvm.build_module", "tvm.module",
               "tvm.codegen", "tvm.ir_builder", "tvm.container", "tvm.tag", "tvm.tensor_intrin",
               "tvm.generic", "tvm.node", "tvm.hybrid"):
        return "TVM 0.6 modules (tvm.api, tvm.make, ...)"
    return key


def summarize(recs):
    rows = defaultdict(lambda: defaultdict(int))
    for r in recs:
        g = rows[group(r["module"])]
        g["names"] += 1
        if r["out_of_scope"]:
            g["out"] += 1
            continue
        g["in"] += 1
        if r["tepad"]:
            g["have"] += 1
            if r["sig_ok"] is False:
                g["sigdiff"] += 1
        else:
            g["missing"] += 1
    return rows


def render(recs, cmd: str, baseline=None, baseline_label="before"):
    rows = summarize(recs)
    before = summarize(_rescoped(baseline)) if baseline else None
    tot, tot_b = defaultdict(int), defaultdict(int)
    extra = f" | missing {baseline_label} |" if before else " |"
    lines = ["| module | names | out of scope | in scope | tepad has | of which signature "
             "differs | missing" + extra, "|---|---|---|---|---|---|---|" +
             ("---|" if before else "")]
    for k in sorted(rows):
        g = rows[k]
        for f in ("names", "out", "in", "have", "sigdiff", "missing"):
            tot[f] += g[f]
        b = ""
        if before:
            tot_b["missing"] += before[k]["missing"]
            b = f" {before[k]['missing']} |"
        lines.append(f"| `{k}` | {g['names']} | {g['out']} | {g['in']} | {g['have']} | "
                     f"{g['sigdiff']} | {g['missing']} |" + b)
    lines.append(f"| **all** | {tot['names']} | {tot['out']} | {tot['in']} | {tot['have']} | "
                 f"{tot['sigdiff']} | {tot['missing']} |" +
                 (f" {tot_b['missing']} |" if before else ""))
    topi_missing = sorted(f"{r['module']}.{r['name']}" for r in recs
                          if r["module"].startswith("tvm.topi") and not r["tepad"])
    missing = sorted(f"{r['module']}.{r['name']}" for r in recs
                     if not r["out_of_scope"] and not r["tepad"]
                     and not r["module"].startswith("tvm.topi"))
    intro = (f"Every public name of TVM's TE-era Python API in releases {', '.join(TAGS)} "
             f"(read from the TVM git mirror's sources with `ast`; `{cmd}`), looked up through "
             "`import tepad as tvm`. *Out of scope*: TVMScript parsing, relay / relax, "
             "TensorIR schedules, meta_schedule, RPC, microTVM, VTA, targets and extern "
             "libraries tepad has no code generator for. topi's names are counted in their "
             "rows and their gaps listed apart (the operators are other work). *Signature "
             "differs*: tepad lacks a parameter name of TVM's newest signature (``span`` "
             "aside) or orders positional parameters differently.")
    body = [SECTION, "", BEGIN, "", intro, "", *lines, ""]
    body += [f"In-scope names tepad lacks ({len(missing)}): "
             + (", ".join(f"`{m}`" for m in missing) if missing else "none") + ".", ""]
    body += [f"topi names tepad lacks ({len(topi_missing)}, reported for the topi work): "
             + ", ".join(f"`{m}`" for m in topi_missing[:400])
             + (" ..." if len(topi_missing) > 400 else "") + ".", "", END]
    return "\n".join(body)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tags", nargs="*", default=TAGS)
    ap.add_argument("--list", choices=["missing", "sig", "out", "all", "topi"], default=None)
    ap.add_argument("--module", default=None, help="only this module key (with --list)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--tepad-root", default=None, help="look names up in this checkout")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="a --json of an earlier run: its missing counts shown beside")
    ap.add_argument("--baseline-label", default="before")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "RESULTS.md")
    a = ap.parse_args(argv)
    if not MIRROR.exists():
        print(f"no TVM mirror at {MIRROR}", file=sys.stderr)
        return 2
    recs = census(a.tags)
    for r in recs:
        if a.module and r["module"] != a.module:
            continue
        sel = {"missing": not r["out_of_scope"] and not r["tepad"]
               and not r["module"].startswith("tvm.topi"),
               "sig": r["sig_ok"] is False and not r["out_of_scope"],
               "out": bool(r["out_of_scope"]),
               "topi": r["module"].startswith("tvm.topi") and not r["tepad"],
               "all": True}.get(a.list, False)
        if sel:
            st = ("out: " + r["out_of_scope"]) if r["out_of_scope"] else (
                "yes" if r["tepad"] else "MISSING")
            if r["sig_ok"] is False:
                st += f" (sig: {r['sig_diff']})"
            print(f"{r['module']}.{r['name']}  [{r['kind']}]  {','.join(r['releases'])}  {st}")
    rows = summarize(recs)
    tot = defaultdict(int)
    for k in sorted(rows):
        g = rows[k]
        print(f"{k:45s} names {g['names']:4d}  out {g['out']:4d}  in {g['in']:4d}  "
              f"have {g['have']:4d}  sigdiff {g['sigdiff']:3d}  missing {g['missing']:4d}")
        for f in g:
            tot[f] += g[f]
    print(f"{'ALL':45s} names {tot['names']:4d}  out {tot['out']:4d}  in {tot['in']:4d}  "
          f"have {tot['have']:4d}  sigdiff {tot['sigdiff']:3d}  missing {tot['missing']:4d}")
    if a.json:
        a.json.write_text(json.dumps(recs, indent=1, default=str))
    if not a.no_write:
        baseline = json.loads(a.baseline.read_text()) if a.baseline else None
        write_section(a.out, render(recs, "python benchmarks/tvm_api_census.py", baseline,
                                    a.baseline_label), SECTION, BEGIN, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
