"""Bugs the fuzzer found that are not fixed yet, each an xfail(strict) test: when one starts
passing, move it to test_fuzz_regressions.py with the fix described."""
import numpy as np
import pytest

import tepad
from tepad.testing import reference

# layout-ci:6905 under test_fuzz_layouts.CFG (drawn once pragma/storage_align/groups joined
# the fuzzer; it uses none of them, and fails the same on main before that change)
ROLLING_LOCAL_LINES = [
    "A = te.placeholder((4, 5), 'int8', name='A')",
    "T0 = te.compute((4, 5), lambda i, j: te.if_then_else(tir.all(i >= 2, j >= 1), A[i - 2, j - 1], tir.const(0, 'int8')), name='T0')",
    "T1 = te.compute((4, 3), lambda i, j: A[i, j] + A[i, j + 2] * 3 + A[i, j], name='T1')",
    "T2 = te.compute((2, 3), lambda i, j: T1[i, j] + T1[i + 2, j] * 1 + T1[i + 2, j], name='T2')",
    's = te.create_schedule([T2.op, T0.op])',
    "A_s = s.cache_read(A, 'shared', [T1, T0])",
    "T1_l = s.cache_write(T1, 'local')",
    's[A].transform_layout(lambda i, j: [j, i], pad_value=0)',
    'T0_j_0 = s[T0].leaf_iter_vars[1]',
    'T0_o1, T0_i2 = s[T0].split(T0_j_0, factor=1)',
    'T0_i_3 = s[T0].leaf_iter_vars[0]',
    's[T0].reorder(T0_i_3, T0_i2, T0_o1)',
    's[T0].unroll(T0_i2)',
    's[T0].parallel(T0_i_3)',
    's[T2].transform_layout(lambda i, j: [(j + 3) // 8, i, (j + 3) % 8])',
    'T2_ax1_4 = s[T2].leaf_iter_vars[1]',
    'T2_o5, T2_i6 = s[T2].split(T2_ax1_4, nparts=4)',
    'T2_ax2_7 = s[T2].leaf_iter_vars[3]',
    'T2_ax0_8 = s[T2].leaf_iter_vars[0]',
    's[T2].reorder(T2_ax2_7, T2_ax0_8, T2_o5, T2_i6)',
    's[T2].vectorize(T2_i6)',
    "s[T2].set_scope('shared')",
    'T1_i_9 = s[T1].leaf_iter_vars[0]',
    'T1_j_10 = s[T1].leaf_iter_vars[1]',
    's[T1].reorder(T1_i_9, T1_j_10)',
    'T1_o11, T1_i12 = s[T1].split(T1_j_10, factor=2)',
    'T1_o13, T1_i14 = s[T1].split(T1_i_9, nparts=5)',
    'T1_o15, T1_i16 = s[T1].split(T1_i14, factor=5)',
    's[T1].unroll(T1_i12)',
    's[T1].parallel(T1_o13)',
    's[T1].compute_at(s[T2], T2_o5)',
    's[T1].rolling_buffer()',
    'T1_l_i_c_17 = s[T1_l].leaf_iter_vars[0]',
    'T1_l_j_c_18 = s[T1_l].leaf_iter_vars[1]',
    'T1_l_f19 = s[T1_l].fuse(T1_l_i_c_17, T1_l_j_c_18)',
    's[T1_l].compute_at(s[T1], T1_o11)',
    's[A_s].transform_layout(lambda i, j: [i // 5, j, i % 5], pad_value=0)',
    'A_s_ax1_20 = s[A_s].leaf_iter_vars[1]',
    'A_s_ax0_21 = s[A_s].leaf_iter_vars[0]',
    'A_s_ax2_22 = s[A_s].leaf_iter_vars[2]',
    's[A_s].reorder(A_s_ax1_20, A_s_ax0_21, A_s_ax2_22)',
    'A_s_o23, A_s_i24 = s[A_s].split(A_s_ax1_20, factor=2)',
    'A_s_f25 = s[A_s].fuse(A_s_ax0_21, A_s_ax2_22)',
    'A_s_o26, A_s_i27 = s[A_s].split(A_s_o23, nparts=3)',
    's[A_s].parallel(A_s_o26)',
]


@pytest.mark.xfail(strict=True, raises=tepad.TepadError,
                   reason="exact bounds: a rolling buffer T1 whose cache_write stage T1.local "
                          "is computed at an inner loop of T1 loads T1.local outside its "
                          "realized region (bounds check: index i_outer + ax1_outer - "
                          "if_then_else(i_outer == 2, ...) outside [0, 1))")
def test_rolling_buffer_with_cache_write_local_at_inner_loop_exact():
    ns = {}
    exec("import tepad\nfrom tepad import te, tir", ns)
    for line in ROLLING_LOCAL_LINES:
        exec(line, ns)
    s, A, T0, T2 = ns["s"], ns["A"], ns["T0"], ns["T2"]
    mod = tepad.build(s, [A, T2, T0], exact_bounds=True, bounds_check=True)
    from tepad.layout import from_physical, physical_shape, to_physical
    a = np.random.default_rng(0).integers(-8, 8, size=(4, 5)).astype("int8")
    a_phys = np.ascontiguousarray(to_physical(a, list(s[A].layout_transforms), pad_value=0))
    t2 = np.zeros(physical_shape((2, 3), list(s[T2].layout_transforms)), "int8")
    t0 = np.zeros((4, 5), "int8")
    mod(a_phys, t2, t0)
    got = from_physical(t2, list(s[T2].layout_transforms), (2, 3))
    want_t2, want_t0 = reference([T2, T0], {A: a})
    np.testing.assert_array_equal(got, want_t2)
    np.testing.assert_array_equal(t0, want_t0)
