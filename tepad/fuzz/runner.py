"""Run one generated case differentially and classify what happened.

``run_source(src, cfg, exact)`` draws a case from ``src``, lowers it (interval bounds, and ISL
bounds too when ``exact`` and available), builds it with ``bounds_check=True``, runs it on
random inputs (for every binding of the symbolic sizes) and compares every output with
``tepad.testing.reference``. Arguments with a ``transform_layout`` are passed in their physical
layout and read back through ``tepad.layout`` (``tepad/fuzz/layouts.py``); a GPU case
(``Config(gpu=True)``) is built for ``"cuda"`` on the emulator with its race check
(``emulate=True, race_check=True``: a data race is a ``legal_refused``, a TepadError at run
time);
an output whose padding does not hold its ``pad_value`` is a ``mismatch``. The ``Outcome.status`` is one of

* ``pass``           numbers equal the oracle's;
* ``refused``        a deliberately illegal step was refused with a ``TepadError`` (correct);
* ``mismatch``       wrong numbers (or an input buffer was written);
* ``out_of_bounds``  the bounds-checked build caught an access outside a buffer;
* ``exception``      an exception that is not a ``TepadError`` (a bug wherever it comes from);
* ``missed_error``   a deliberately illegal schedule was lowered and built without complaint;
* ``legal_refused``  a ``TepadError`` for a schedule the generator considers legal;
* ``crash``          the process died (only the supervising CLI can observe this).
"""
from __future__ import annotations

import importlib.util
import traceback
from dataclasses import dataclass, field

import numpy as np

import tepad

from ..errors import TepadError
from ..testing import reference
from . import layouts
from .arrays import random_array
from .case import Config
from .generator import generate

FAILURES = ("mismatch", "out_of_bounds", "exception", "missed_error", "legal_refused", "crash")


@dataclass
class Outcome:
    status: str
    where: str = ""
    detail: str = ""
    case: object = None
    choices: list = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.status in FAILURES

    def signature(self):
        """What must stay the same while shrinking (status, phase, exception type)."""
        first = self.detail.splitlines()[0] if self.detail else ""
        kind = first.split(":")[0] if self.status == "exception" else ""
        return (self.status, self.where if self.status != "mismatch" else "", kind)


def exact_available() -> bool:
    return importlib.util.find_spec("tepad.bound.exact") is not None


def _close(got, want):
    if got.dtype.kind == "f":
        scale = max(1.0, float(np.abs(want).max(initial=0)))
        return np.allclose(got, want, rtol=1e-4, atol=1e-4 * scale, equal_nan=True)
    return np.array_equal(got, want)


def _exc_text(err):
    return f"{type(err).__name__}: {err}\n" + "".join(
        traceback.format_exception(type(err), err, err.__traceback__)[-6:])


def run_source(src, cfg: Config | None = None, exact: bool = False) -> Outcome:
    """Draw a case from ``src`` and check it; never raises (except KeyboardInterrupt)."""
    try:
        case = generate(src, cfg)
    except TepadError as err:
        return Outcome("legal_refused", "schedule", _exc_text(err))
    except Exception as err:  # noqa: BLE001 - classifying is the point
        return Outcome("exception", "generate", _exc_text(err))
    choices = list(getattr(src, "record", []))
    return _check(case, choices, exact)


def _check(case, choices, exact) -> Outcome:
    """Lower, build, run and compare a drawn case (see the module docstring)."""
    ns = case.ns
    pending_illegal = len(case.illegal) > len(case.refused)

    def out(status, where="", detail=""):
        return Outcome(status, where, detail, case, choices)

    lay = layouts.namespace()
    modes = ["interval"] + (["exact"] if exact and exact_available() else [])
    s = ns["s"]
    args = [ns[t.name] for t in case.placeholders + case.outputs]
    outputs = [ns[t.name] for t in case.outputs]
    for mode in modes:
        try:
            if case.gpu:        # the emulator, built from the schedule (exact or not)
                mod = tepad.build(s, args, target="cuda", bounds_check=True,
                                  exact_bounds=(mode == "exact"), emulate=True,
                                  race_check=True)
            else:
                f = tepad.lower(s, args, exact_bounds=(mode == "exact"))
                mod = tepad.build(f, bounds_check=True)
        except TepadError as err:
            if pending_illegal:
                return out("refused", f"lower[{mode}]", str(err))
            return out("legal_refused", f"lower[{mode}]", _exc_text(err))
        except Exception as err:  # noqa: BLE001
            return out("exception", f"lower[{mode}]", _exc_text(err))
        for values in (case.base_values or [{}]):
            rng = np.random.default_rng(case.data_seed)
            inputs = {ns[t.name]: random_array(rng, case.concrete_shape(t, values), t.dtype)
                      for t in case.placeholders}
            # arguments with a transform_layout are passed in their physical layout
            kin = [lay["to_kernel"](s[ns[t.name]], a)
                   for t, a in zip(case.placeholders, inputs.values())]
            saved = [a.copy() for a in kin]
            res = [lay["new_output"](s[ns[t.name]], case.concrete_shape(t, values), t.dtype,
                                     rng) for t in case.outputs]
            try:
                mod(*kin, *res)
            except TepadError as err:
                if str(err).startswith("bounds check failed"):
                    return out("out_of_bounds", f"run[{mode}] sizes={values}", str(err))
                return out("legal_refused", f"run[{mode}] sizes={values}", _exc_text(err))
            except Exception as err:  # noqa: BLE001
                return out("exception", f"run[{mode}] sizes={values}", _exc_text(err))
            try:
                expect = reference(outputs, inputs)
            except Exception as err:  # noqa: BLE001 - the oracle failing is a finding too
                return out("exception", "reference", _exc_text(err))
            for t, phys, want in zip(case.outputs, res, expect):
                try:
                    got, pad_problem = lay["from_kernel"](s[ns[t.name]], phys,
                                                          case.concrete_shape(t, values))
                except Exception as err:  # noqa: BLE001
                    return out("exception", "from_physical", _exc_text(err))
                if pad_problem:
                    return out("mismatch", f"run[{mode}] sizes={values}",
                               f"output {t.name}: {pad_problem}")
                if got.shape != want.shape or not _close(got, want):
                    bad = int(np.sum(~np.isclose(got, want))) if got.shape == want.shape else -1
                    return out("mismatch", f"run[{mode}] sizes={values}",
                               f"output {t.name}: {bad} elements differ")
            for a, b in zip(kin, saved):
                if not np.array_equal(a, b, equal_nan=True):
                    return out("mismatch", f"run[{mode}] sizes={values}",
                               "an input buffer was modified")
    if pending_illegal:
        return out("missed_error", "lower", "deliberately illegal step(s) accepted: " +
                   ", ".join(case.illegal))
    return out("refused" if case.refused else "pass")


__all__ = ["Outcome", "run_source", "exact_available", "FAILURES"]
