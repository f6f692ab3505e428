"""topi.random: Threefry-4x64-20 words against a pure-Python Threefry, the state layout's
counter / path / re-key transitions, splitting, and the uniform / normal / multinomial
distributions' statistics; on the CPU and through the CUDA emulator."""
import numpy as np
import pytest
from scipy import stats

import tepad
from tepad import te, topi
from tepad.errors import TepadError
from tepad.target import Target

from topi_helpers import run

M64 = (1 << 64) - 1
ROT = ((14, 16), (52, 57), (23, 40), (5, 37), (25, 33), (46, 12), (58, 22), (32, 32))


def threefry_py(key, ctr):
    """Threefry-4x64 with 20 rounds and five key injections (none after the last group)."""
    ks = list(key) + [0x1BD11BDAA9FC1A22 ^ key[0] ^ key[1] ^ key[2] ^ key[3]]
    x = list(ctr)
    for g in range(5):
        for j in range(4):
            x[j] = (x[j] + ks[(g + j) % 5] + (g if j == 3 else 0)) & M64
        for k in range(4):
            for p in range(2):
                a, b = x[2 * p], x[2 * p + 1]
                a = (a + b) & M64
                r = ROT[(g * 4 + k) % 8][p]
                b = (((b << r) | (b >> (64 - r))) & M64) ^ a
                x[2 * p], x[2 * p + 1] = a, b
            x = [x[0], x[3], x[2], x[1]]
    return x


def key(seed):
    return np.array([seed, seed * 3, 7, 11, 0, 0, 0, 0, 1 << 63, 0], "uint64")


def generate(gen, shape, target="llvm"):
    G = te.placeholder((10,), "uint64", name="gen")
    with Target(target):
        new, vals = topi.random.threefry_generate(G, shape)
    sched = topi.cuda.schedule_extern if target == "cuda" else topi.generic.schedule_extern
    return run([new, vals], [G], [gen], sched, target)


_SPLIT = []


def split(gen):
    """One built split kernel, called on each state."""
    if not _SPLIT:
        G = te.placeholder((10,), "uint64", name="gen")
        left, right = topi.random.threefry_split(G)
        s = topi.generic.schedule_extern([left, right])
        _SPLIT.append(tepad.build(s, [G, left, right]))
    a, b = np.zeros(10, "uint64"), np.zeros(10, "uint64")
    _SPLIT[0](gen, a, b)
    return a, b


@pytest.mark.parametrize("target", ["llvm", "cuda"])
@pytest.mark.parametrize("n", [8, 7])
def test_generate_matches_python_threefry(target, n):
    gen = key(5)
    gen[7] = 40                                         # counter already advanced
    new, vals = generate(gen, (n,), target)
    k = [int(v) for v in gen[:4]]
    want = []
    for blk in range(n // 4):
        want += threefry_py(k, [int(gen[4 + j]) + blk for j in range(4)])
    if n % 4:                                           # the partial block: counter moved on
        tail_ctr = [int(gen[4]), int(gen[5]), int(gen[6]), int(gen[7]) + n // 4 * 4]
        want += threefry_py(k, tail_ctr)[:n % 4]
    np.testing.assert_array_equal(vals, np.array(want, "uint64"))
    np.testing.assert_array_equal(new[:6], gen[:6])
    assert new[7] == gen[7] + (n // 4 * 4 + 4 if n % 4 else n)   # whole blocks used
    np.testing.assert_array_equal(new[8:], gen[8:])


def test_counter_overflow_extends_path_or_rekeys():
    gen = key(1)
    gen[7] = M64 - 1                                    # no room for 16 more
    new, vals = generate(gen, (16,))
    assert new[4] == gen[4] | gen[8] and new[7] == 16  # a path bit set, counter restarted
    assert new[8] == 1 << 62                            # next path bit one to the right
    np.testing.assert_array_equal(new[:4], gen[:4])
    gen[8] = gen[9] = 0                                 # path full: the state is re-keyed
    new2, _ = generate(gen, (16,))
    assert (new2[:4] != gen[:4]).any() and new2[8] == 1 << 63 and new2[4] == 0
    want_key = threefry_py([int(v) for v in gen[:4]], [M64] * 4)
    np.testing.assert_array_equal(new2[:4], np.array(want_key, "uint64"))


def test_split():
    gen = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1 << 63, 0], "uint64")
    a, b = split(gen)
    np.testing.assert_array_equal(a, [0, 0, 0, 0, 0, 0, 0, 0, 1 << 62, 0])
    np.testing.assert_array_equal(b, [0, 0, 0, 0, 1 << 63, 0, 0, 0, 1 << 62, 0])
    for _ in range(129):                                # past the 128-bit path: re-keyed
        a, b = split(b)
    np.testing.assert_array_equal(a[:4], b[:4])
    assert b[:4].any()
    _, ra = generate(a, (64,))
    _, rb = generate(b, (64,))
    assert (ra != rb).all()
    _, ra2 = generate(a, (64,))
    np.testing.assert_array_equal(ra, ra2)              # same state, same numbers
    assert topi.random.threefry_test_wrapping("llvm", tepad.cpu(0))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform(dtype):
    G = te.placeholder((10,), "uint64", name="gen")
    lo = te.placeholder((), dtype, name="lo")
    hi = te.placeholder((), dtype, name="hi")
    new, vals = topi.random.uniform(G, lo, hi, (256, 64), dtype)
    assert vals.dtype == dtype
    got_gen, got = run([new, vals], [G, lo, hi],
                       [key(3), np.array(5.0, dtype), np.array(10.0, dtype)],
                       topi.generic.schedule_extern)
    assert (got_gen != key(3)).any()
    assert got.min() >= 5.0 and got.max() < 10.0
    assert stats.kstest((got.ravel() - 5.0) / 5.0, "uniform").pvalue > 1e-3


def test_normal_and_multinomial():
    G = te.placeholder((10,), "uint64", name="gen")
    mean = te.placeholder((), "float32", name="mean")
    scale = te.placeholder((), "float32", name="scale")
    new, vals = topi.random.normal(G, mean, scale, (4096,), "float32")
    _, got = run([new, vals], [G, mean, scale], [key(9), np.array(2.0, "float32"),
                                       np.array(3.0, "float32")], topi.generic.schedule_extern)
    assert abs(got.mean() - 2.0) < 0.2 and abs(got.std() - 3.0) < 0.2
    assert stats.kstest((got - 2.0) / 3.0, "norm").pvalue > 1e-3

    probs = np.array([[1.0, 0.0, 3.0, -2.0], [0.0, 0.0, 0.0, 5.0]], "float32")
    P = te.placeholder(probs.shape, "float32", name="P")
    new, idx = topi.random.multinomial(G, P, 4000)
    _, got = run([new, idx], [G, P], [key(4), probs], topi.generic.schedule_extern)
    assert got.shape == (2, 4000)
    assert set(np.unique(got[0])) == {0, 2} and (got[1] == 3).all()
    assert abs((got[0] == 2).mean() - 0.75) < 0.04


def test_state_checks():
    with pytest.raises(TepadError, match="uint64 tensor of shape"):
        topi.random.threefry_split(te.placeholder((10,), "int64", name="g"))
    with pytest.raises(TepadError, match="float32 or float64"):
        topi.random.uniform(te.placeholder((10,), "uint64", name="g"), 0.0, 1.0, (3,),
                            "float16")
