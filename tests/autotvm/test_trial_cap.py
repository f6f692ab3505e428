"""``TEPAD_MAX_TRIALS`` caps the trials of autotvm's tuners and of the auto-scheduler's
TuningOptions, whatever count the program asks for; a malformed cap is a TepadError."""
import pytest

from tepad import TepadError, auto_scheduler, autotvm
from tepad.autotvm.trial_cap import TRIAL_CAP_ENV, cap_trials
from tepad.autotvm.tuner import tuner as tuner_module

from .test_tuners import OPTION, FakeBatch, _task


def test_cap_applies_only_when_set(monkeypatch):
    monkeypatch.delenv(TRIAL_CAP_ENV, raising=False)
    assert cap_trials(1000) == 1000
    monkeypatch.setenv(TRIAL_CAP_ENV, "5")
    assert cap_trials(1000) == 5 and cap_trials(3) == 3
    monkeypatch.setenv(TRIAL_CAP_ENV, "")
    assert cap_trials(7) == 7


@pytest.mark.parametrize("raw", ["-1", "ten", "2.5"])
def test_malformed_cap_names_the_variable(monkeypatch, raw):
    monkeypatch.setenv(TRIAL_CAP_ENV, raw)
    with pytest.raises(TepadError, match=TRIAL_CAP_ENV):
        cap_trials(10)


def test_tuner_measures_no_more_than_the_cap(monkeypatch):
    batch = FakeBatch()
    monkeypatch.setattr(tuner_module, "create_measure_batch", lambda task, opt: batch)
    monkeypatch.setenv(TRIAL_CAP_ENV, "6")
    tuner = autotvm.tuner.RandomTuner(_task())
    tuner.tune(n_trial=40, measure_option=OPTION)
    assert len(batch.seen) == 6


def test_tuning_options_are_capped(monkeypatch):
    monkeypatch.setenv(TRIAL_CAP_ENV, "4")
    assert auto_scheduler.TuningOptions(num_measure_trials=200).num_measure_trials == 4
    assert auto_scheduler.TuningOptions(num_measure_trials=0).num_measure_trials == 0
