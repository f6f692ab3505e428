"""Pass instruments (TVM's ``tvm.ir.instrument``): objects a ``PassContext`` calls around the
passes that run inside it.

    @tepad.ir.instrument.pass_instrument
    class Names:
        def __init__(self):
            self.seen = []
        def run_before_pass(self, mod, info):
            self.seen.append(info.name)

    names = Names()
    with tepad.transform.PassContext(instruments=[names]):
        tepad.build(s, [A, B])          # names.seen: tir.Simplify, tir.StorageFlatten, ...

The hooks, all optional, with TVM's signatures: ``enter_pass_ctx()`` / ``exit_pass_ctx()``
when the ``with`` block is entered and left; ``should_run(mod, info)`` before each pass (a
False from any instrument skips it -- for passes the code generator needs, the pass runs
anyway, since skipping it would leave IR codegen cannot compile); ``run_before_pass(mod,
info)`` and ``run_after_pass(mod, info)`` around each pass that runs. ``mod`` is an
``IRModule`` holding the function the pass gets / returned; ``info`` a ``PassInfo`` whose
``name`` is TVM's name of the pass (``tir.VectorizeLoop``) when it has one, else tepad's step
label (``remove_store_undef``, ``user1:my_pass``). The passes are every step of the pipeline
``tepad.lower`` and ``tepad.build`` run, and pass objects of ``tepad.tir.transform`` called
inside the context.
"""
from __future__ import annotations

import time

from ..errors import TepadError
from ..tir.transform import (HOOKS, PassInfo, after, as_module, before, current_instruments,
                             enter, exit_, should_run)

class PassInstrument:
    """Base of instruments: every hook does nothing (``should_run`` says yes)."""

    def enter_pass_ctx(self):
        pass

    def exit_pass_ctx(self):
        pass

    def should_run(self, mod, info) -> bool:
        return True

    def run_before_pass(self, mod, info):
        pass

    def run_after_pass(self, mod, info):
        pass


def pass_instrument(pi_cls=None):
    """Class decorator making ``pi_cls`` an instrument (TVM's ``@pass_instrument``): the
    class gains PassInstrument's no-op hooks for those it does not define."""
    def wrap(cls):
        if not isinstance(cls, type):
            raise TepadError(f"pass_instrument decorates a class, got {cls!r}")
        if issubclass(cls, PassInstrument):
            return cls
        return type(cls.__name__, (cls, PassInstrument),
                    {"__module__": cls.__module__, "__qualname__": cls.__qualname__,
                     "__doc__": cls.__doc__})
    return wrap(pi_cls) if pi_cls is not None else wrap


def check_instruments(instruments) -> list:
    """``instruments`` as a list, each checked to have at least one hook."""
    out = list(instruments or [])
    for k, inst in enumerate(out):
        if isinstance(inst, type) or not any(callable(getattr(inst, h, None)) for h in HOOKS):
            raise TepadError(f"PassContext(instruments=...): item {k} ({inst!r}) is not a pass "
                             "instrument; pass instances of a class decorated with "
                             "tepad.ir.instrument.pass_instrument (hooks: " +
                             ", ".join(HOOKS) + ")")
    return out


@pass_instrument
class PrintBeforeAll:
    """Prints each pass's name and its input IR before the pass runs."""

    def run_before_pass(self, mod, info):
        print(f"Before Running Pass: {info}")
        print(mod)


@pass_instrument
class PrintAfterAll:
    """Prints each pass's name and its output IR after the pass runs."""

    def run_after_pass(self, mod, info):
        print(f"After Running Pass: {info}")
        print(mod)


@pass_instrument
class PassTimingInstrument:
    """Times every pass; ``render()`` (a static method, as TVM's) gives the table of the
    timing instrument of the current PassContext, ``timings`` the ``[(name, seconds)]``."""

    def __init__(self):
        self.timings: list = []
        self._t0 = None

    def enter_pass_ctx(self):
        self.timings = []

    def run_before_pass(self, mod, info):
        self._t0 = time.perf_counter()

    def run_after_pass(self, mod, info):
        if self._t0 is not None:
            self.timings.append((info.name, time.perf_counter() - self._t0))
            self._t0 = None

    def table(self) -> str:
        total = sum(t for _, t in self.timings)
        lines = [f"Total: {total * 1e6:.0f}us"]
        lines += [f"  {name}: {t * 1e6:.0f}us" for name, t in self.timings]
        return "\n".join(lines)

    @staticmethod
    def render() -> str:
        from_ctx = [i for i in current_instruments() if isinstance(i, PassTimingInstrument)]
        return "\n".join(i.table() for i in from_ctx)


__all__ = ["PassInfo", "HOOKS", "after", "as_module", "before", "enter", "exit_", "should_run", "PassInstrument", "pass_instrument", "PrintBeforeAll", "PrintAfterAll",
           "PassTimingInstrument", "check_instruments"]
