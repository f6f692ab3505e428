"""``TEPAD_MAX_TRIALS``: an upper bound on the trials every tuner measures, whatever the
program asks for (``tuner.tune(n_trial=...)``, ``auto_scheduler.TuningOptions(
num_measure_trials=...)``). It lets a tutorial or a CI job written for hours of tuning run its
whole program in minutes; unset (or empty), the programs' counts stand."""
from __future__ import annotations

from .. import config
from ..errors import TepadError

TRIAL_CAP_ENV = config.MAX_TRIALS


def cap_trials(n: int) -> int:
    """``n``, or the cap in ``TEPAD_MAX_TRIALS`` when that is smaller. A cap that is not a
    whole number >= 0 raises a TepadError naming the variable."""
    raw = config.text(TRIAL_CAP_ENV)
    if not raw:
        return n
    try:
        cap = int(raw)
    except ValueError:
        cap = -1
    if cap < 0:
        raise TepadError(f"{TRIAL_CAP_ENV}={raw!r}: the trial cap must be a whole number >= 0 "
                         "(or unset for no cap)")
    return min(n, cap)
