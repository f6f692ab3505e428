"""Test-suite configuration (no fixtures here; per-area conftests add their own).

Sets TEPAD_VERIFY_IR=1 so that every lowering in the suite (and in the CLI subprocesses it
starts) runs the IR verifier after every pass of the pipeline.

Registers the hypothesis profile "ci" (no deadline: the first call of a property often pays
for LLVM JIT start-up; modest example counts keep CI inside its time budget; derandomized so
a CI run is reproducible) and loads it. Set HYPOTHESIS_PROFILE=dev for a longer, randomized
local run; `python -m tepad.fuzz` explores further.
"""
import os

os.environ.setdefault("TEPAD_VERIFY_IR", "1")

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", deadline=None, max_examples=30, print_blob=True, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", deadline=None, max_examples=300, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
