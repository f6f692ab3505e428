"""A StringImm prints as TVMScript writes it: in double quotes (single quotes only when the
text holds a double quote), and the printed literal reads back as the same Python string."""
import ast

import pytest

import tepad
from tepad import te, tir


@pytest.mark.parametrize("text", ["vadd", "it's", 'say "hi"', "tab\there\n"])
def test_string_literal_round_trips(text):
    printed = str(tir.StringImm(text))
    assert ast.literal_eval(printed) == text
    if '"' not in text:
        assert printed.startswith('"') and printed.endswith('"')


def test_packed_call_name_prints_double_quoted():
    x = te.placeholder((8,), name="x")
    y = te.compute((8,), lambda i: x[i] + 1, name="y")
    s = te.create_schedule(y.op)
    intrin = te.decl_tensor_intrin(
        y.op, lambda ins, outs: tir.call_packed("my_add_one", ins[0].data, outs[0].data))
    s[y].tensorize(y.op.axis[0], intrin)
    body = tepad.lower(s, [x, y])["main"].body
    calls = []
    tir.stmt_functor.post_order_visit(
        body, lambda n: calls.append(n) if isinstance(n, tir.Call) and n.args and
        isinstance(n.args[0], tir.StringImm) else None)
    assert str(calls[0].args[0]) == '"my_add_one"'
    assert '"my_add_one"' in str(body)
