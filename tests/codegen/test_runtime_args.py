"""Module argument checking, symbolic shape binding, axis separators, assert failures."""
import numpy as np
import pytest

import tepad
from tepad import tir
from tepad.runtime import ArgInfo, build_module
from codegen_helpers import make_func, loop


@pytest.fixture(scope="module")
def mod_abc():
    """C[i, j] = A[i, j] + B[i, j] over (16, 16) float32."""
    A, B, C = (tir.Buffer((16, 16), "float32", nm) for nm in "ABC")
    f = make_func([A, B, C], lambda a, b, c: loop(256, lambda i: tir.BufferStore(c, a[i] + b[i], [i])))
    info = [ArgInfo(nm, "float32", (16, 16), (16, 16), (), None, nm == "C") for nm in "ABC"]
    return build_module(f, arg_info=info)


def _arrays():
    return [np.ones((16, 16), "float32") for _ in range(3)]


def test_ok_and_arg_info(mod_abc):
    a, b, c = _arrays()
    mod_abc(a, b, c)
    assert (c == 2).all()
    assert [x.is_output for x in mod_abc.arg_info] == [False, False, True]


def test_wrong_count(mod_abc):
    with pytest.raises(TypeError, match=r"expected 3 arguments \(A, B, C\), got 2"):
        mod_abc(*_arrays()[:2])


def test_wrong_type(mod_abc):
    a, b, c = _arrays()
    with pytest.raises(TypeError, match=r"argument 1 'B': expected a numpy.ndarray, got list"):
        mod_abc(a, b.tolist(), c)


def test_wrong_dtype(mod_abc):
    a, b, c = _arrays()
    with pytest.raises(TypeError, match=r"argument 0 'A': expected dtype float32, got float64"):
        mod_abc(a.astype("float64"), b, c)


def test_wrong_shape(mod_abc):
    a, b, _ = _arrays()
    c = np.zeros((16, 15), "float32")
    with pytest.raises(ValueError, match=r"argument 2 'C': expected shape \(16, 16\), got \(16, 15\)"):
        mod_abc(a, b, c)
    with pytest.raises(ValueError, match=r"argument 2 'C': expected shape \(16, 16\), got \(256,\)"):
        mod_abc(a, b, np.zeros(256, "float32"))


def test_non_contiguous(mod_abc):
    a, b, c = _arrays()
    big = np.ones((16, 32), "float32")
    with pytest.raises(ValueError, match=r"argument 1 'B': array must be C-contiguous"):
        mod_abc(a, big[:, ::2], c)
    with pytest.raises(ValueError, match=r"argument 0 'A'.*C-contiguous"):
        mod_abc(np.asfortranarray(np.random.rand(16, 16).astype("float32")), b, c)


def test_read_only_output(mod_abc):
    a, b, c = _arrays()
    c.flags.writeable = False
    with pytest.raises(ValueError, match=r"argument 2 'C': output array is read-only"):
        mod_abc(a, b, c)
    a.flags.writeable = False  # read-only inputs are fine
    c2 = np.zeros((16, 16), "float32")
    mod_abc(a, b, c2)
    assert (c2 == 2).all()


def test_nothing_runs_before_checks(mod_abc):
    a, b, c = _arrays()
    c[:] = 5
    with pytest.raises(TypeError):
        mod_abc(a, b.astype("int32"), c)
    assert (c == 5).all()


def test_symbolic_shapes_bound_and_checked():
    n, m = tir.Var("n"), tir.Var("m")
    A = tir.Buffer((n, m), "float32", "A")
    B = tir.Buffer((m,), "float32", "B")
    C = tir.Buffer((n, m + 1), "float32", "C")

    def body(a, b, c):
        return loop(n, lambda i: tir.seq(
            loop(m, lambda j: tir.BufferStore(c, a[i * m + j] * b[j], [i * (m + 1) + j]), name="j"),
            tir.BufferStore(c, tir.const(-1.0), [i * (m + 1) + m])))
    mod = build_module(make_func([A, B, C], body))
    assert [v.name for v in mod.shape_vars] == ["n", "m"]
    for nn, mm in [(3, 4), (1, 1), (7, 2)]:
        a = np.random.rand(nn, mm).astype("float32")
        b = np.random.rand(mm).astype("float32")
        c = np.zeros((nn, mm + 1), "float32")
        mod(a, b, c)
        np.testing.assert_allclose(c[:, :mm], a * b, rtol=1e-6)
        assert (c[:, mm] == -1).all()
    a = np.zeros((3, 4), "float32")
    with pytest.raises(ValueError, match=r"argument 1 'B': expected shape \(4,\), got \(5,\)"):
        mod(a, np.zeros(5, "float32"), np.zeros((3, 5), "float32"))
    with pytest.raises(ValueError, match=r"argument 2 'C': expected shape \(3, 5\), got \(3, 4\)"):
        mod(a, np.zeros(4, "float32"), np.zeros((3, 4), "float32"))


def test_axis_separators_accept_physical_and_grouped_shape():
    A = tir.Buffer((2, 3, 4), "int32", "A", axis_separators=[1])
    flat = A.get_flattened_buffer()          # shape (2, 12), two physical axes
    assert len(flat.shape) == 2
    C = tir.Buffer((24,), "int32", "C")
    params = [tir.Var("A", "handle"), tir.Var("C", "handle")]
    # Flattened memory is contiguous: index = g0 * 12 + g1 over the 24 elements.
    Aflat = tir.Buffer((24,), "int32", "A", data=A.data)
    body = loop(24, lambda i: tir.BufferStore(C, Aflat[i] * 2, [i]))
    f = tir.PrimFunc(params, body, {params[0]: A, params[1]: C.get_flattened_buffer()})
    mod = build_module(f)
    for shape in [(2, 3, 4), (2, 12)]:
        a = np.arange(24, dtype="int32").reshape(shape)
        c = np.zeros(24, "int32")
        mod(a, c)
        np.testing.assert_array_equal(c, np.arange(24) * 2)
    with pytest.raises(ValueError, match=r"argument 0 'A'"):
        mod(np.zeros((6, 4), "int32"), np.zeros(24, "int32"))


def test_assert_failure_raises_tepad_error():
    n = tir.Var("n")
    A = tir.Buffer((n,), "float32", "A")
    f = make_func([A], lambda a: tir.AssertStmt(
        n >= 4, tir.StringImm("A needs at least 4 elements"),
        loop(n, lambda i: tir.BufferStore(a, a[i] + 1.0, [i]))))
    mod = build_module(f)
    a = np.zeros(4, "float32")
    mod(a)
    assert (a == 1).all()
    with pytest.raises(tepad.TepadError, match="at least 4 elements"):
        mod(np.zeros(3, "float32"))


def test_assert_inside_heap_allocation_frees_and_reports():
    n = tir.Var("n")
    A = tir.Buffer((n,), "int32", "A")
    tv = tir.Var("tmp", "handle")
    T = tir.Buffer((n,), "int32", "tmp", data=tv)
    f = make_func([A], lambda a: tir.Allocate(tv, "int32", [n], tir.const(True), loop(
        n, lambda i: tir.AssertStmt(a[i] != 13, "unlucky value", tir.BufferStore(T, a[i], [i])))))
    mod = build_module(f)
    mod(np.zeros(100, "int32"))
    a = np.zeros(100, "int32")
    a[50] = 13
    for _ in range(3):
        with pytest.raises(tepad.TepadError, match="unlucky value"):
            mod(a)


def test_free_var_not_in_shapes_is_rejected():
    k = tir.Var("k")
    A = tir.Buffer((4,), "int32", "A")
    f = make_func([A], lambda a: loop(4, lambda i: tir.BufferStore(a, k, [i])))
    with pytest.raises(tepad.TepadError, match="k"):
        build_module(f)
