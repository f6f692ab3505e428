"""Bound inference: attach paths, InferRootBound, PassUp/PassDown domain (interval IntSets; exact ISL regions
with ``infer_bound(s, exact=True)``; ``explain(s)`` compares the two)."""
from .attach_path import attach_path, attach_paths
from .infer_bound import BoundMap, infer_bound, infer_root_bound
from .explain import explain
from .message_passing import (pass_down_domain, pass_up_domain, pass_up_index,
                              pass_up_bound_check)

__all__ = ["attach_path", "attach_paths", "BoundMap", "infer_bound", "infer_root_bound", "explain",
           "pass_down_domain", "pass_up_domain", "pass_up_index", "pass_up_bound_check"]
