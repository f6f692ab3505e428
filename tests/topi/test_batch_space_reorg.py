"""topi.nn.space_to_batch_nd / batch_to_space_nd and topi.vision.reorg against element-by-
element numpy loops, with the plain, x86 and emulated cuda schedules."""
import itertools

import numpy as np
import pytest

import tepad
from tepad import topi
from topi_helpers import placeholder, rand, run


def _s2b_loop(x, blocks, before, after, fill):
    m, n = len(blocks), x.shape[0]
    out_shape = [n * int(np.prod(blocks))] + [
        (x.shape[i + 1] + before[i] + after[i]) // b for i, b in enumerate(blocks)] + \
        list(x.shape[m + 1:])
    out = np.empty(out_shape, x.dtype)
    for idx in itertools.product(*[range(e) for e in out_shape]):
        k, nn = divmod(idx[0], n)
        offs = np.unravel_index(k, blocks)
        pos = [idx[i + 1] * b + offs[i] - before[i] for i, b in enumerate(blocks)]
        inside = all(0 <= p < x.shape[i + 1] for i, p in enumerate(pos))
        out[idx] = x[(nn, *pos, *idx[m + 1:])] if inside else fill
    return out


def _b2s_loop(x, blocks, begin, end):
    m = len(blocks)
    n = x.shape[0] // int(np.prod(blocks))
    out_shape = [n] + [x.shape[i + 1] * b - begin[i] - end[i] for i, b in enumerate(blocks)] + \
        list(x.shape[m + 1:])
    out = np.empty(out_shape, x.dtype)
    for idx in itertools.product(*[range(e) for e in out_shape]):
        full = [idx[i + 1] + begin[i] for i in range(m)]
        k = np.ravel_multi_index([f % b for f, b in zip(full, blocks)], blocks)
        out[idx] = x[(k * n + idx[0], *[f // b for f, b in zip(full, blocks)], *idx[m + 1:])]
    return out


TARGETS = [(None, "llvm"), ("schedule_injective", "llvm"), ("schedule_injective", "cuda")]


def _sched(name, target):
    if name is None:
        return None
    return getattr(topi.x86 if target == "llvm" else topi.cuda, name)


@pytest.mark.parametrize("sched,target", TARGETS)
@pytest.mark.parametrize("shape,blocks,before,after", [
    ((2, 4, 3), [2], [0], [0]),
    ((2, 3, 5, 2), [2, 3], [1, 0], [0, 1]),
    ((1, 2, 3, 4), [2, 2, 2], [1, 0, 0], [1, 1, 0]),
])
def test_space_to_batch_nd(shape, blocks, before, after, sched, target):
    x = rand(shape)
    A = placeholder(x, "A")
    B = topi.nn.space_to_batch_nd(A, blocks, before, after, 0.5)
    got = run(B, [A], [x], _sched(sched, target), target)
    ref = _s2b_loop(x, blocks, before, after, 0.5)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(
        topi.testing.space_to_batch_nd_python(x, blocks, before, after, 0.5), ref)


@pytest.mark.parametrize("sched,target", TARGETS)
@pytest.mark.parametrize("shape,blocks,begin,end", [
    ((4, 2, 3), [2], [1], [0]),
    ((12, 2, 2, 3), [2, 3], [1, 0], [0, 2]),
    ((8, 1, 2, 2), [2, 2, 2], [0, 1, 0], [1, 0, 1]),
])
def test_batch_to_space_nd(shape, blocks, begin, end, sched, target):
    x = rand(shape)
    A = placeholder(x, "A")
    B = topi.nn.batch_to_space_nd(A, blocks, begin, end)
    got = run(B, [A], [x], _sched(sched, target), target)
    ref = _b2s_loop(x, blocks, begin, end)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(
        topi.testing.batch_to_space_nd_python(x, blocks, begin, end), ref)


def test_space_batch_round_trip():
    x = rand((2, 4, 6, 3))
    A = placeholder(x, "A")
    B = topi.nn.batch_to_space_nd(topi.nn.space_to_batch_nd(A, [2, 3], [0, 0], [0, 0]),
                                  [2, 3], [0, 0], [0, 0])
    np.testing.assert_array_equal(run(B, [A], [x], topi.x86.schedule_injective), x)


def _reorg_loop(a, s):
    """TVM's definition: output element ``cnt`` (input-shaped, row-major) reads flat index
    w2 + W*s*(h2 + H*s*(c2 + C/s^2 * b)) of the input."""
    n, c, h, w = a.shape
    flat = a.reshape(-1)
    cq = c // (s * s)
    out = np.empty(a.size, a.dtype)
    cnt = 0
    for b, k, j, i in itertools.product(range(n), range(c), range(h), range(w)):
        off = k // cq
        out[cnt] = flat[(i * s + off % s) + w * s * ((j * s + off // s) + h * s * (k % cq + cq * b))]
        cnt += 1
    return out.reshape(n, c * s * s, h // s, w // s)


@pytest.mark.parametrize("sched,target", [(None, "llvm"), ("schedule_reorg", "llvm"),
                                          ("schedule_reorg", "cuda")])
@pytest.mark.parametrize("shape,stride", [((1, 4, 4, 4), 2), ((2, 8, 6, 6), 2),
                                          ((1, 9, 3, 6), 3)])
def test_reorg(shape, stride, sched, target):
    x = rand(shape)
    A = placeholder(x, "A")
    B = topi.vision.reorg(A, stride)
    got = run(B, [A], [x], _sched(sched, target), target)
    ref = _reorg_loop(x, stride)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(topi.testing.reorg_python(x, stride), ref)


def test_errors():
    A = tepad.te.placeholder((2, 5, 3), name="A")
    with pytest.raises(tepad.TepadError, match="does not divide"):
        topi.nn.space_to_batch_nd(A, [2], [0], [0])
    with pytest.raises(tepad.TepadError, match="one entry per spatial axis"):
        topi.nn.space_to_batch_nd(A, [1, 1, 1], [0, 0, 0], [0, 0, 0])
    with pytest.raises(tepad.TepadError, match="block product"):
        topi.nn.batch_to_space_nd(A, [3], [0], [0])
    with pytest.raises(tepad.TepadError, match="stride"):
        topi.vision.reorg(tepad.te.placeholder((1, 6, 4, 4), name="B"), 2)
