"""Which config a template gets when it is called (TVM's ``autotvm.task.dispatcher``).

``DispatchContext.current`` answers ``query(target, workload)``: inside ``ApplyConfig(cfg)`` it
is ``cfg`` (how the tuner instantiates candidates), inside ``apply_history_best(log)`` the best
logged config for the workload, and otherwise a ``FallbackConfigEntity`` (each knob's first
choice), with one warning per workload.
"""
from __future__ import annotations

import logging

from .space import FallbackConfigEntity

logger = logging.getLogger("autotvm")


class DispatchContext:
    """Base of the config-choosing contexts; they nest as ``with`` blocks."""

    current = None

    def __init__(self):
        self._old = None

    def query(self, target, workload):
        """The config for ``workload`` on ``target``: this context's answer, or its parent's."""
        cfg = self._query_inside(target, workload)
        if cfg is None and self._old is not None:
            cfg = self._old.query(target, workload)
        return cfg

    def _query_inside(self, target, workload):
        raise NotImplementedError

    def __enter__(self):
        self._old = DispatchContext.current
        DispatchContext.current = self
        return self

    def __exit__(self, *exc):
        DispatchContext.current = self._old


class ApplyConfig(DispatchContext):
    """Every template called inside gets ``config`` (a ConfigSpace collects the knobs)."""

    def __init__(self, config):
        super().__init__()
        self._config = config

    def _query_inside(self, target, workload):
        return self._config


class FallbackContext(DispatchContext):
    """The outermost context: one FallbackConfigEntity per (target, workload)."""

    root = None

    def __init__(self):
        super().__init__()
        self.memory = {}
        self.silent = False

    def _query_inside(self, target, workload):
        key = (str(target), workload)
        if key not in self.memory:
            if not self.silent:
                logger.warning("Cannot find config for target=%s, workload=%s. A fallback "
                               "configuration is used, which may bring great performance "
                               "regression.", target, workload)
            self.memory[key] = FallbackConfigEntity()
        return self.memory[key]

    def clear_cache(self, target, workload):
        self.memory.pop((str(target), workload), None)


FallbackContext.root = FallbackContext()
DispatchContext.current = FallbackContext.root


def clear_fallback_cache(target, workload):
    """Forget the fallback config made for ``(target, workload)`` (so a later query makes a
    fresh one)."""
    FallbackContext.root.clear_cache(target, workload)


def get_config():
    """The config of the template being called (``cfg = autotvm.get_config()``)."""
    return DispatchContext.current.query(None, None)
