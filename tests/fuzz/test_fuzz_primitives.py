"""The fuzzer draws every schedule primitive tepad offers.

The primitives are read off ``Stage`` and ``Schedule`` themselves, so a new primitive fails
this test until the generator draws it (legally, or as a deliberately illegal step).
"""
from tepad.fuzz.generator import Config, RandomSource, generate
from tepad.schedule.schedule import Schedule
from tepad.schedule.stage import Stage

# public attributes that are not schedule primitives
NOT_PRIMITIVES = {"name", "leaf_kind", "copy", "current_tensor", "normalize", "fingerprint",
                  # always refused with a TepadError (no grid-wide barrier between scan steps)
                  "env_threads"}


def _primitives():
    names = [n for cls in (Stage, Schedule) for n in vars(cls) if not n.startswith("_")]
    return sorted(set(names) - NOT_PRIMITIVES)


def test_every_schedule_primitive_is_drawn():
    missing = set(_primitives())
    cfg = Config(illegal_rate=50, layout_percent=50)
    for i in range(400):
        case = generate(RandomSource(f"primitives:{i}"), cfg)
        missing = {p for p in missing if not any(f".{p}(" in line for line in case.lines)}
        if not missing:
            return
    assert not missing, f"never drawn in 400 cases: {sorted(missing)}"
