"""hoist_if_then_else (TVM's HoistIfThenElse): where an ``if`` ends up, and that the hoisted
function computes what the original did."""
import numpy as np
import pytest

import tepad
from tepad import te, tir
from tepad.lower.passes import hoist_if_then_else
from tepad.tir import stmt as S


def grid(cond_of, else_value=None, n=5):
    """``out[i, j, k] = i*100 + j*10 + k if cond(i, j, k) [else else_value]`` over 3 loops
    of extent ``n`` (the last argument ``m`` is a scalar parameter usable in conditions)."""
    out = tir.decl_buffer((n, n, n), "int32", "out")
    m = tir.Var("m", "int32")
    i, j, k = tir.Var("i"), tir.Var("j"), tir.Var("k")
    then = tir.BufferStore(out, i * 100 + j * 10 + k, [i, j, k])
    other = tir.BufferStore(out, tir.const(else_value, "int32"), [i, j, k]) \
        if else_value is not None else None
    body = tir.IfThenElse(cond_of(i, j, k, m), then, other)
    for v in (k, j, i):
        body = tir.For(v, 0, n, body=body)
    return tir.PrimFunc([out, m], body)


def expected(pred, m, else_value=None, n=5):
    fill = -1 if else_value is None else else_value
    return np.array([[[i * 100 + j * 10 + k if pred(i, j, k, m) else fill
                       for k in range(n)] for j in range(n)] for i in range(n)], "int32")


def run(f, m, n=5):
    a = np.full((n, n, n), -1, "int32")
    tepad.build(f)(a, m)
    return a


def loop_names_above_if(stmt):
    """Names of the loops between the root and the first ``if`` (the ``if``'s position)."""
    names = []
    while not isinstance(stmt, S.IfThenElse):
        if isinstance(stmt, S.For):
            names.append(stmt.loop_var.name)
        stmt = stmt.body
    return names


@pytest.mark.parametrize("cond, pred, above", [
    (lambda i, j, k, m: m > 2, lambda i, j, k, m: m > 2, []),
    (lambda i, j, k, m: i < m, lambda i, j, k, m: i < m, ["i"]),
    (lambda i, j, k, m: i + j < m, lambda i, j, k, m: i + j < m, ["i", "j"]),
    (lambda i, j, k, m: k < m, lambda i, j, k, m: k < m, ["i", "j", "k"]),
])
@pytest.mark.parametrize("m", [1, 3])
def test_if_moves_to_just_inside_the_innermost_loop_it_uses(cond, pred, above, m):
    f = grid(cond, else_value=7)
    g = hoist_if_then_else(f)
    assert loop_names_above_if(g.body) == above
    if not above:
        # hoisted above everything: both branches hold the whole nest, without an inner if
        assert isinstance(g.body.then_case, S.For) and isinstance(g.body.else_case, S.For)
        assert not any(isinstance(n, S.IfThenElse) for n in _stmts(g.body.then_case))
    np.testing.assert_array_equal(run(g, m), expected(pred, m, else_value=7))


def _stmts(s):
    out = []
    tir.stmt_functor.post_order_visit(s, lambda n: out.append(n) if isinstance(n, S.Stmt)
                                      else None)
    return out


def test_if_without_else_gets_no_else_loop():
    f = grid(lambda i, j, k, m: m > 2)
    g = hoist_if_then_else(f)
    assert isinstance(g.body, S.IfThenElse) and g.body.else_case is None
    for m in (0, 5):
        np.testing.assert_array_equal(run(g, m), expected(lambda i, j, k, m: m > 2, m))


def test_a_sequence_in_a_loop_body_stops_the_if():
    out = tir.decl_buffer((4, 4), "int32", "out")
    m = tir.Var("m", "int32")
    i, j = tir.Var("i"), tir.Var("j")
    inner = S.seq(tir.IfThenElse(m > 1, tir.BufferStore(out, i + j, [i, j])),
                  tir.BufferStore(out, out[i, j] * 2, [i, j]))
    f = tir.PrimFunc([out, m], tir.For(i, 0, 4, body=tir.For(j, 0, 4, body=inner)))
    assert tepad.ir.structural_equal(hoist_if_then_else(f), f)


def test_conditions_reading_buffers_stay():
    out = tir.decl_buffer((4,), "int32", "out")
    flag = tir.decl_buffer((1,), "int32", "flag")
    i = tir.Var("i")
    body = tir.For(i, 0, 4, body=tir.IfThenElse(flag[0] > 0, tir.BufferStore(out, i, [i])))
    f = tir.PrimFunc([out, flag], body)
    assert tepad.ir.structural_equal(hoist_if_then_else(f), f)


def thread_kernel(cond_of):
    ib = tir.ir_builder.create()
    data = ib.pointer("float32", name="data")
    n = te.var("n")
    tx = te.thread_axis("threadIdx.x")
    ib.scope_attr(tx, "thread_extent", 32)
    with ib.for_range(0, n, "i") as i:
        with ib.for_range(0, n, "j") as j:
            with ib.if_scope(cond_of(tx, i, n)):
                data[i * n + j] = data[i * n + j] + 1.0
    return tir.PrimFunc([data, n], ib.get())


def test_block_scope_mode_moves_conditions_on_thread_variables():
    f = thread_kernel(lambda tx, i, n: tx + i < 3)
    # by default a condition using a thread variable is not touched
    assert tepad.ir.structural_equal(hoist_if_then_else(f), f)
    g = hoist_if_then_else(f, support_block_scope_hoisting=True)
    assert loop_names_above_if(g.body.body) == ["i"]
    h = thread_kernel(lambda tx, i, n: tx < 3)
    g = hoist_if_then_else(h, support_block_scope_hoisting=True)
    assert isinstance(g.body, S.AttrStmt) and isinstance(g.body.body, S.IfThenElse)


def test_pass_object_reads_the_config_and_rejects_unknown_options():
    f = thread_kernel(lambda tx, i, n: tx + i < 3)
    mod = tepad.IRModule.from_expr(f)
    assert tepad.ir.structural_equal(tir.transform.HoistIfThenElse()(mod)["main"], f)
    cfg = {"tir.HoistIfThenElse": {"support_block_scope_hosting": True}}
    with tepad.transform.PassContext(config=cfg):
        moved = tir.transform.HoistIfThenElse()(mod)["main"]
    assert not tepad.ir.structural_equal(moved, f)
    # "basic" ignores the config
    with tepad.transform.PassContext(config=cfg):
        basic = tir.transform.HoistIfThenElse("basic")(mod)["main"]
    assert tepad.ir.structural_equal(basic, f)
    with pytest.raises(tepad.TepadError, match="support_block_scope_hosting"):
        with tepad.transform.PassContext(config={"tir.HoistIfThenElse": {"hoist": True}}):
            tir.transform.HoistIfThenElse()(mod)


def test_relaunching_a_thread_with_another_extent_is_refused():
    ib = tir.ir_builder.create()
    data = ib.pointer("float32", name="data")
    tx = te.thread_axis("threadIdx.x")
    ib.scope_attr(tx, "thread_extent", 32)
    with ib.for_range(0, 4, "i") as i:
        ib.scope_attr(tx, "thread_extent", 16)
        with ib.if_scope(tx < 3):
            data[i] = 1.0
    f = tir.PrimFunc([data], ib.get())
    with pytest.raises(tepad.TepadError, match="threadIdx.x.*extent 16.*extent 32"):
        hoist_if_then_else(f)
