"""TVM's ``tvm.testing.CompareBeforeAfter``: a test class comparing a pass's output with the
function expected, for PrimFuncs tepad can hold (built from TE, with ``tir.ir_builder`` or by
constructing nodes). TVM's own subclasses write ``before``/``expected`` in TVMScript, which
tepad does not parse: such a test fails with a TepadError saying so."""
from __future__ import annotations

import inspect

from ..errors import TepadError
from ..tir.function import PrimFunc
from ..tir.module import IRModule
from ..tir.structural import assert_structural_equal


class CompareBeforeAfter:
    """Subclass it (``class TestX(CompareBeforeAfter)``) and give ``transform`` (a pass, or a
    method returning one), ``before`` (a PrimFunc or IRModule, or a method returning one) and
    ``expected`` (the same, or an exception type the pass must raise). ``test_compare``
    applies the pass to ``before`` and asserts the result structurally equal to
    ``expected``."""

    def _value(self, name):
        v = getattr(self, name, None)
        if v is None:
            raise TepadError(f"{type(self).__name__}: CompareBeforeAfter needs a '{name}' "
                             "attribute (a PrimFunc, an IRModule or a method returning one)")
        if isinstance(v, (PrimFunc, IRModule, type)):
            return v
        if callable(v) and not isinstance(v, (PrimFunc, IRModule)):
            params = [p for p in inspect.signature(v).parameters.values()
                      if p.default is inspect.Parameter.empty]
            if not params:
                return v()
            if name in ("before", "expected"):
                raise TepadError(
                    f"{type(self).__name__}.{name} is a Python function of "
                    f"({', '.join(p.name for p in params)}), not a PrimFunc: TVMScript "
                    "(@T.prim_func) is not parsed by tepad; build the function with te or "
                    "tir.ir_builder")
        return v

    @staticmethod
    def _module(x, what):
        if isinstance(x, PrimFunc):
            return IRModule({"main": x})
        if isinstance(x, IRModule):
            return x
        raise TepadError(f"CompareBeforeAfter: {what} must be a PrimFunc or IRModule, got "
                         f"{type(x).__name__}")

    def test_compare(self):
        transform = self._value("transform")
        before = self._module(self._value("before"), "before")
        expected = self._value("expected")
        if isinstance(expected, type) and issubclass(expected, BaseException):
            try:
                transform(before)
            except expected:
                return
            raise AssertionError(f"{type(self).__name__}: the pass did not raise "
                                 f"{expected.__name__}")
        after = transform(before)
        # parameters are definitions: matched by position, as TVM's structural equality does
        assert_structural_equal(self._module(after, "the pass's result"),
                                self._module(expected, "expected"), map_free_vars=True)
