"""Random small compute DAGs with random legal schedules, for differential tests.

The generator lives in ``tepad.fuzz.generator`` (shared with the ``python -m tepad.fuzz`` CLI).
``draw_program(draw)`` takes a hypothesis ``draw`` (or any callable ``draw(strategy)``) and
returns ``(schedule, args, inputs, outputs, log)`` where ``log`` is the list of code lines that
built the definition and the schedule (joined, a runnable reproducer; printed when a case fails).
"""
from tepad.fuzz.generator import draw_program  # noqa: F401

__all__ = ["draw_program"]
