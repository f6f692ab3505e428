"""What a backend is: the passes a target kind adds after ``PIPELINE``, its code generation and
the Module it returns.

``Backend.build`` is the whole build half for one function: the Options of the call,
``lower`` (``PIPELINE`` then ``passes``, both recorded in one ``PassLog``, so
``TEPAD_PRINT_PASSES`` / ``TEPAD_VERIFY_IR`` and ``tepad lower --pass all`` see every step),
then ``compile(func, target)``. ``tepad.backend.backend_for`` picks the backend of a Target.
"""
from __future__ import annotations

import dataclasses

from ..support.deep_stack import deep_stack
from ..lower.pipeline import BUILD, Options, PassLog, lower_for_codegen, run_pipeline
from ..target import Target
from ..tir.function import PrimFunc


class Backend:
    """One target kind's build half. Subclasses set ``name`` and ``passes`` (``Pass`` entries
    of the build phase, run after ``PIPELINE`` in order; a PassContext cannot disable them)
    and define ``compile``."""

    name: str = ""
    passes: tuple = ()

    def options(self, target: Target, checked=False, bounds_check=False,
                index_check=None) -> Options:
        """The pipeline Options of a build for ``target`` (merged with the PassContext)."""
        return Options.from_context(checked=checked, bounds_check=bounds_check, target=target,
                                    index_check=index_check)

    def lower(self, s_or_func, args, name, opts: Options, exact_bounds=False, log=None):
        """``PIPELINE`` (entry and both phases for a schedule, the build phase for a lowered
        function), then this backend's ``passes``, all recorded in ``log``."""
        log = log if log is not None else PassLog()
        func = lower_for_codegen(s_or_func, args, name, opts, exact_bounds, log)
        return self.run_passes(func, opts, log)

    def run_passes(self, func, opts: Options, log=None, passes=None):
        """This backend's ``passes`` (or ``passes``) on a function PIPELINE gave."""
        steps = self.passes if passes is None else passes
        if not steps:
            return func
        own = dataclasses.replace(opts, disabled=frozenset(), user_passes=())
        return run_pipeline(func, (BUILD,), own, log, pipeline=steps)

    def compile(self, func, target: Target):
        """The Module of ``func`` (what ``lower`` gave) for ``target``."""
        raise NotImplementedError

    def build(self, s_or_func, args, name, target: Target, *, checked=False, bounds_check=False,
              exact_bounds=False, index_check=None):
        """``tepad.build`` for this backend (``target``: a Target of its kind)."""
        opts = self.options(target, checked, bounds_check, index_check)
        return self._build(named(s_or_func, name), args, name, opts, exact_bounds, target)

    @deep_stack
    def _build(self, s_or_func, args, name, opts, exact_bounds, target):
        return self.compile(self.lower(s_or_func, args, name, opts, exact_bounds), target)


def named(s_or_func, name):
    """A lowered function given another name than its own takes it (``global_symbol``)."""
    if isinstance(s_or_func, PrimFunc) and name != "main" and s_or_func.name != name:
        return s_or_func.with_attr("global_symbol", name)
    return s_or_func


__all__ = ["Backend", "named"]
