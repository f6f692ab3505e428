"""TVM's ``autotvm.tophub``: TVM downloads pre-tuned configs per target from its TopHub
repository. tepad has no such repository (and its topi schedules read no autotvm configs),
so ``context`` holds only the records of ``extra_files``; every other query falls through to
the enclosing context (the fallback configs), as TVM does when TopHub has no entry."""
from __future__ import annotations

from ..errors import TepadError
from .history import ApplyHistoryBest


def context(target, extra_files=None) -> ApplyHistoryBest:
    """A dispatch context (``with autotvm.tophub.context(target): ...``) with the best
    configs of ``extra_files`` (log paths) and nothing downloaded. ``target``: a Target, a
    target string, or a list of them (as TVM accepts)."""
    targets = target if isinstance(target, (list, tuple)) else [target]
    for t in targets:
        if t is None or not (isinstance(t, str) or hasattr(t, "kind")):
            raise TepadError(f"autotvm.tophub.context: target must be a Target or a target "
                             f"string, got {t!r}")
    return ApplyHistoryBest(list(extra_files) if extra_files else [])


def load_reference_log(backend, model, workload_name, template_key=None) -> list:
    """TVM's reference records of ``backend`` / ``model`` / ``workload_name`` from the TopHub
    package, for ``FallbackConfigEntity.fallback_with_reference_log`` (``template_key``:
    TVM 0.6's fourth argument, "direct" / "winograd", gone in 0.7). tepad has no TopHub
    package, so there are none: ``[]`` (what TVM answers when the package cannot be had)."""
    for what, v in (("backend", backend), ("workload_name", workload_name)):
        if not isinstance(v, str):
            raise TepadError(f"autotvm.tophub.load_reference_log: {what} must be a string, "
                             f"got {v!r}")
    return []


__all__ = ["context", "load_reference_log"]
