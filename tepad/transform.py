"""TVM's ``tvm.transform`` namespace: ``PassContext`` (see ``tepad.lower.pass_context``) and
``Sequential`` (pass objects run in order)."""
from .errors import TepadError
from .lower.pass_context import PassContext


class Sequential:
    """``Sequential([pass, ...])(mod)``: the passes (pass objects or functions on a PrimFunc or
    IRModule) applied in order, as TVM's ``tvm.transform.Sequential``."""

    def __init__(self, passes=None, opt_level=0, name="sequential", required=None):
        self.passes = list(passes or [])
        for p in self.passes:
            if not callable(p):
                raise TepadError(f"Sequential: {p!r} is not a pass (a callable on a module)")
        self.opt_level, self.name = opt_level, name

    def __call__(self, mod):
        for p in self.passes:
            mod = p(mod)
        return mod


__all__ = ["PassContext", "Sequential"]
