"""Every TIR pass on its own: ``tepad.lower.passes.<name>(func) -> func``; each also takes the
IRModule ``tepad.lower`` returns and gives back a module (each pass file declares its pass
with ``tir.transform.register_pass``, which makes it take modules and registers its TVM
names).

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
from .inject_double_buffer import inject_double_buffer
from .inject_prefetch import inject_prefetch
from .inject_rolling_buffer import inject_rolling_buffer
from .inject_virtual_thread import inject_virtual_thread
from .instrument_bound_checks import instrument_bound_checks, instrument_index_checks
from .loop_partition import loop_partition
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
from . import tvm_pass_objects  # noqa: F401 - registers the TVM passes tepad has no work for
from ...tir import transform as tir_transform

# TVM's names for tepad's passes, as the pass files registered them (``@register_pass``):
# ``tepad.tir.transform.<Name>()`` makes a pass object of each, and
# PassContext(disabled_pass=["tir.<Name>"]) finds them.
TVM_NAMES = tir_transform.pass_functions()


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
