"""TVM's ``tvm.ir.instrument`` (also ``tvm.instrument``): ``pass_instrument``, the
``PassInstrument`` base and the ready-made instruments; see ``tepad.lower.instrument``."""
from ..lower.instrument import (PassInfo, PassInstrument, PassTimingInstrument, PrintAfterAll,
                                PrintBeforeAll, pass_instrument)

__all__ = ["PassInfo", "PassInstrument", "PassTimingInstrument", "PrintAfterAll",
           "PrintBeforeAll", "pass_instrument", "PassPrintingInstrument"]


class PassPrintingInstrument:
    """Prints the IR before the passes named in ``print_before_pass_names`` and after those
    in ``print_after_pass_names`` (TVM 0.16's instrument)."""

    def __init__(self, print_before_pass_names=(), print_after_pass_names=()):
        self.print_before = set(print_before_pass_names)
        self.print_after = set(print_after_pass_names)

    def run_before_pass(self, mod, info):
        if info.name in self.print_before:
            print(f"Before Running Pass: {info}")
            print(mod)

    def run_after_pass(self, mod, info):
        if info.name in self.print_after:
            print(f"After Running Pass: {info}")
            print(mod)

