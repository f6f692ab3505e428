"""TVM's ``tvm.ir.instrument`` (also ``tvm.instrument``): ``pass_instrument``, the
``PassInstrument`` base and the ready-made instruments; see ``tepad.lower.instrument``."""
from ..lower.instrument import (PassInfo, PassInstrument, PassTimingInstrument, PrintAfterAll,
                                PrintBeforeAll, pass_instrument)

__all__ = ["PassInfo", "PassInstrument", "PassTimingInstrument", "PrintAfterAll",
           "PrintBeforeAll", "pass_instrument"]
