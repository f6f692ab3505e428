"""Every TIR pass on its own: ``tepad.lower.passes.<name>(func) -> func``; each also takes the
IRModule ``tepad.lower`` returns and gives back a module (``tir.module.accepts_module``).

The order they run in is ``tepad.lower.pipeline.PIPELINE`` (phases ``lower`` and ``build``);
RFC 0077's opt-in passes (remove_branching_through_overcompute, ...) are applied by calling
them on what ``tepad.lower`` returns and building the result.
"""
from .apply_buffer_transforms import apply_buffer_transforms
from .check_assumes import check_assumes
from .convert_blocks_to_opaque import convert_blocks_to_opaque
from .default_storage_scope import default_storage_scope
from .flatten_physical_axes import flatten_physical_axes
from .hoist_expression import hoist_expression
from .hoist_if_then_else import hoist_if_then_else
from .inject_copy_intrin import inject_copy_intrin
from .inject_double_buffer import CONFIG_KEY as _DOUBLE_BUFFER_KEY
from .inject_double_buffer import double_buffer_config, inject_double_buffer
from .inject_prefetch import inject_prefetch
from .inject_rolling_buffer import inject_rolling_buffer
from .inject_virtual_thread import inject_virtual_thread
from .instrument_bound_checks import instrument_bound_checks, instrument_index_checks
from .loop_partition import CONFIG_KEY as _LOOP_PARTITION_KEY
from .loop_partition import loop_partition, loop_partition_config
from .lower_init_block import lower_init_block
from .lower_intrin import lower_intrin
from .lower_opaque_block import lower_opaque_block
from .lower_thread_allreduce import lower_thread_allreduce
from .lower_warp_memory import lower_warp_memory
from .merge_adjacent_loops import merge_adjacent_loops
from .narrow_datatype import narrow_datatype
from .reduce_loop_extents import reduce_loop_extents
from .remove_assume import remove_assume
from .remove_branching_through_overcompute import remove_branching_through_overcompute
from .remove_no_op import remove_no_op
from .remove_overcompute_through_branching import remove_overcompute_through_branching
from .remove_skipped_regions import remove_skipped_regions
from .remove_store_undef import remove_store_undef
from .rewrite_unsafe_select import rewrite_unsafe_select
from .simplify import simplify
from .skip_assert import skip_assert
from .simplify_with_facts import simplify_with_facts
from .storage_flatten import storage_flatten
from .storage_rewrite import storage_rewrite
from .thread_sync import thread_sync
from .unroll_loop import unroll_loop
from .vectorize_loop import vectorize_loop
from .verify_gpu_code import verify_gpu_code
from .tvm_pass_objects import register_all as _register_tvm_pass_objects
from ...tir import transform as tir_transform
from ...tir.module import accepts_module
from ...tir.ssa import convert_ssa

hoist_if_then_else = accepts_module(hoist_if_then_else)
narrow_datatype = accepts_module(narrow_datatype)
(apply_buffer_transforms, check_assumes, flatten_physical_axes, hoist_expression,
 inject_rolling_buffer, instrument_bound_checks, merge_adjacent_loops, reduce_loop_extents,
 remove_assume, remove_branching_through_overcompute, remove_no_op,
 remove_overcompute_through_branching, remove_store_undef, simplify, simplify_with_facts,
 storage_flatten, unroll_loop, vectorize_loop, remove_skipped_regions,
 inject_prefetch, default_storage_scope, inject_virtual_thread, lower_thread_allreduce,
 thread_sync, verify_gpu_code, instrument_index_checks, lower_warp_memory, loop_partition,
 lower_init_block, convert_blocks_to_opaque, lower_opaque_block, storage_rewrite, lower_intrin,
 inject_copy_intrin, skip_assert, rewrite_unsafe_select,
 inject_double_buffer) = map(accepts_module, (
    apply_buffer_transforms, check_assumes, flatten_physical_axes, hoist_expression,
    inject_rolling_buffer, instrument_bound_checks, merge_adjacent_loops, reduce_loop_extents,
    remove_assume, remove_branching_through_overcompute, remove_no_op,
    remove_overcompute_through_branching, remove_store_undef, simplify, simplify_with_facts,
    storage_flatten, unroll_loop, vectorize_loop, remove_skipped_regions, inject_prefetch,
    default_storage_scope, inject_virtual_thread, lower_thread_allreduce, thread_sync,
    verify_gpu_code, instrument_index_checks, lower_warp_memory, loop_partition, lower_init_block,
    convert_blocks_to_opaque, lower_opaque_block, storage_rewrite, lower_intrin, inject_copy_intrin,
    skip_assert, rewrite_unsafe_select, inject_double_buffer))

# TVM's names for tepad's passes: ``tepad.tir.transform.<Name>()`` makes a pass object of
# each, and PassContext(disabled_pass=["tir.<Name>"]) finds them.
TVM_NAMES = {
    "InjectRollingBuffer": inject_rolling_buffer,
    "InjectPrefetch": inject_prefetch,
    "ApplyLayoutTransforms": apply_buffer_transforms,
    "Simplify": simplify,
    "StorageFlatten": storage_flatten,
    "HoistExpression": hoist_expression,
    "HoistIfThenElse": hoist_if_then_else,
    "UnrollLoop": unroll_loop,
    "VectorizeLoop": vectorize_loop,
    "RemoveNoOp": remove_no_op,
    "RemoveAssume": remove_assume,
    "RemoveStoreUndef": remove_store_undef,
    "ReduceLoopExtents": reduce_loop_extents,
    "MergeAdjacentLoops": merge_adjacent_loops,
    "InstrumentBoundCheckers": instrument_bound_checks,
    "ConvertSSA": convert_ssa,
    "InjectVirtualThread": inject_virtual_thread,
    "LowerThreadAllreduce": lower_thread_allreduce,
    "ThreadSync": thread_sync,
    "LowerWarpMemory": lower_warp_memory,
    "LoopPartition": loop_partition,
    "LowerInitBlock": lower_init_block,
    "ConvertBlocksToOpaque": convert_blocks_to_opaque,
    "LowerOpaqueBlock": lower_opaque_block,
    "StorageRewrite": storage_rewrite,
    "LowerIntrin": lower_intrin,
    "InjectCopyIntrin": inject_copy_intrin,
    "SkipAssert": skip_assert,
    "RewriteUnsafeSelect": rewrite_unsafe_select,
    "FlattenBuffer": storage_flatten,
    "InjectDoubleBuffer": inject_double_buffer,
    "NarrowDataType": narrow_datatype,
}
for _name, _fn in TVM_NAMES.items():
    tir_transform.register(_name, _fn)


def _loop_partition_from_context(func):
    """TVM's LoopPartition(): its options come from the PassContext config."""
    config = tir_transform.current_config().get(_LOOP_PARTITION_KEY)
    return loop_partition(func, **loop_partition_config(config))


tir_transform.register("LoopPartition", _loop_partition_from_context)


def _double_buffer_from_context(func):
    """TVM's InjectDoubleBuffer(): split_loop comes from the PassContext config
    tir.InjectDoubleBuffer."""
    config = tir_transform.current_config().get(_DOUBLE_BUFFER_KEY)
    return inject_double_buffer(func, **double_buffer_config(config))


tir_transform.register("InjectDoubleBuffer", _double_buffer_from_context)
_register_tvm_pass_objects()


__all__ = ["apply_buffer_transforms", "inject_prefetch", "check_assumes", "flatten_physical_axes",
           "hoist_expression", "inject_rolling_buffer", "instrument_bound_checks",
           "instrument_index_checks",
           "merge_adjacent_loops", "reduce_loop_extents", "remove_assume",
           "remove_branching_through_overcompute", "remove_no_op",
           "remove_overcompute_through_branching", "remove_store_undef", "remove_skipped_regions",
           "simplify", "simplify_with_facts", "storage_flatten", "unroll_loop", "vectorize_loop",
           "default_storage_scope", "inject_virtual_thread", "lower_thread_allreduce",
           "thread_sync", "verify_gpu_code", "lower_warp_memory", "loop_partition", "lower_init_block",
           "convert_blocks_to_opaque", "lower_opaque_block", "storage_rewrite", "lower_intrin",
           "inject_copy_intrin", "skip_assert", "rewrite_unsafe_select", "inject_double_buffer",
           "hoist_if_then_else", "narrow_datatype", "TVM_NAMES"]
