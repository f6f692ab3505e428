"""check_assumes: turn ``tir.assume`` statements into runtime checks (``build(checked=True)``).

Guarantees: every ``Evaluate(tir.assume(c))`` becomes ``assert c`` with a message naming the
buffer(s) the fact is about, so a caller whose padding does not hold the promised value gets a
``TepadError`` instead of silently wrong results. Assumes nested inside expressions are left
for remove_assume.
"""
from __future__ import annotations

from ...tir.expr import BufferLoad, Call, StringImm
from ...tir.function import PrimFunc
from ...tir.functor import Mutator, post_order_visit
from ...tir.stmt import AssertStmt, Evaluate
from ...tir.transform import register_pass


class _ToAsserts(Mutator):
    def visit_Evaluate(self, s):
        v = s.value
        if not (isinstance(v, Call) and v.op == "tir.assume"):
            return s
        cond = v.args[0]
        names = []
        post_order_visit(cond, lambda n: names.append(n.buffer.name)
                         if isinstance(n, BufferLoad) and n.buffer.name not in names else None)
        what = ", ".join(names) if names else "an argument"
        msg = (f"argument {what}: the padding does not hold the pad_value promised by "
               f"transform_layout (checked: {cond!r})")
        return AssertStmt(cond, StringImm(msg), Evaluate(0))


@register_pass()
def check_assumes(func: PrimFunc) -> PrimFunc:
    """Every statement-level ``tir.assume`` as an assert (see the module docstring); ``func``
    itself when it has none."""
    body = _ToAsserts().visit(func.body)
    return func if body is func.body else func.with_body(body)
