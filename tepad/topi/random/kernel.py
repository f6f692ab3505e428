"""The Threefry kernels and distributions of ``topi.random`` (see the package doc).

Threefry-4x64-20 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11; the
rotation constants are Skein's): the 4-word block ``counter + i`` is mixed with the key
over 20 rounds, with a key injection before each group of four rounds (five injections,
none after the last group, as TVM's kernel does, so outputs agree with TVM's). The word
permutation between rounds is tracked as a renaming of the four slots of a local block
rather than by copying."""
from __future__ import annotations

import math

import numpy as np

from ...errors import TepadError
from ...target import Target
from ...tensor import Tensor
from ...tensor.extern import extern
from ...driver import build
from ...schedule import create_schedule
from ...tensor.operation import thread_axis
from ...tir import ir_builder
from ...tir.expr import const
from .. import broadcast, math as tmath, reduction, transform
from ..scan import cumsum
from ..utils import get_const_tuple

U64 = "uint64"
ALL_ONES = (1 << 64) - 1
_ROUNDS = 20
# Skein's rotation constants for four 64-bit words, by round modulo 8 and word pair
_ROTATE = ((14, 16), (52, 57), (23, 40), (5, 37), (25, 33), (46, 12), (58, 22), (32, 32))
_PERMUTE = (0, 3, 2, 1)
_KEY_PARITY = 0x1BD11BDAA9FC1A22


def _u(v):
    return const(v, U64)


def _rotl(x, r):
    return (x << _u(r)) | (x >> _u(64 - r))


def _threefry_blocks(ib, key, key_off, counter, counter_off, out, out_off, blocks):
    """Emit Threefry of (``key[key_off:+4]``, ``counter[counter_off:+4] + l``) into
    ``out[out_off + 4 l : +4]`` for each block ``l < blocks`` (reads all inputs before any
    write, so ``out`` may alias the key or counter only when ``blocks`` is 1)."""
    ks = ib.allocate(U64, (5,), name="ks", scope="local")
    ks[4] = _u(_KEY_PARITY)
    for j in range(4):
        ks[j] = key[key_off + j]
        ks[4] = ks[4] ^ ks[j]
    ctr = ib.allocate(U64, (4,), name="ctr", scope="local")
    for j in range(4):
        ctr[j] = counter[counter_off + j]
    x = ib.allocate(U64, (4,), name="x", scope="local")
    with ib.for_range(0, blocks, name="l") as l:
        for j in range(4):
            x[j] = ctr[j] + l.astype(U64)
        slot = [0, 1, 2, 3]                  # logical word -> slot of x holding it
        for g in range(_ROUNDS // 4):
            for j in range(4):
                inject = ks[(g + j) % 5]
                if j == 3:
                    inject = inject + _u(g)
                x[slot[j]] = x[slot[j]] + inject
            for k in range(4):
                for p in range(2):
                    a, b = slot[2 * p], slot[2 * p + 1]
                    x[a] = x[a] + x[b]
                    x[b] = _rotl(x[b], _ROTATE[(g * 4 + k) % 8][p]) ^ x[a]
                slot = [slot[_PERMUTE[j]] for j in range(4)]
        for j in range(4):
            out[out_off + l.astype("int32") * 4 + j] = x[slot[j]]


def _shift_mask_right(ib, hi, lo, out, hi_at, lo_at):
    """The 128-bit one-hot mask (hi, lo) moved one bit toward the low end."""
    with ib.if_scope(hi == _u(1)):
        out[hi_at] = _u(0)
        out[lo_at] = _u(1 << 63)
    with ib.else_scope():
        with ib.if_scope(hi == _u(0)):
            out[hi_at] = _u(0)
            out[lo_at] = lo >> _u(1)
        with ib.else_scope():
            out[hi_at] = hi >> _u(1)
            out[lo_at] = _u(0)


def _gpu_single_thread(ib):
    tgt = Target.current()
    if tgt is not None and ("cuda" in tgt.keys or "gpu" in tgt.keys):
        for tag in ("blockIdx.x", "threadIdx.x"):
            ib.scope_attr(thread_axis(tag), "thread_extent", 1)


def _check_gen(gen, what):
    if not isinstance(gen, Tensor) or gen.dtype != U64 or \
            get_const_tuple(gen.shape) != (10,):
        got = gen if not isinstance(gen, Tensor) else f"{gen.dtype} {list(gen.shape)}"
        raise TepadError(f"topi.random.{what}: gen must be a uint64 tensor of shape (10,) "
                         f"(a Threefry state), got {got}")


def threefry_generate(gen, out_shape):
    """``(new_gen, values)``: ``prod(out_shape)`` uint64 random words from the state ``gen``
    (blocks of four, the counter advanced by the number drawn; a partial last block still
    uses four counter steps). When the counter has no room left, the path is extended (or,
    if full, the state re-keyed) first, as TVM does."""
    _check_gen(gen, "threefry_generate")
    out_shape = [int(s) for s in get_const_tuple(out_shape)]
    n = math.prod(out_shape)
    if n > ALL_ONES:
        raise TepadError(f"topi.random.threefry_generate: {n} values requested; at most "
                         "2**64 - 1")

    def body(ins, outs):
        ib = ir_builder.create()
        _gpu_single_thread(ib)
        g = ib.buffer_ptr(ins[0])
        new_gen, vals = ib.buffer_ptr(outs[0]), ib.buffer_ptr(outs[1])
        st = ib.allocate(U64, (10,), name="state", scope="local")
        with ib.if_scope(g[7] < _u(ALL_ONES - n)):
            for j in range(10):
                st[j] = g[j]
        with ib.else_scope():
            with ib.if_scope((g[8] == _u(0)) & (g[9] == _u(0))):
                ones = ib.allocate(U64, (4,), name="ones", scope="local")
                for j in range(4):
                    ones[j] = _u(ALL_ONES)
                _threefry_blocks(ib, g, 0, ones, 0, st, 0, 1)
                for j, v in zip(range(4, 10), (0, 0, 0, 0, 1 << 63, 0)):
                    st[j] = _u(v)
            with ib.else_scope():
                for j in range(4):
                    st[j] = g[j]
                st[4] = g[4] | g[8]
                st[5] = g[5] | g[9]
                st[6] = _u(0)
                st[7] = _u(0)
                _shift_mask_right(ib, g[8], g[9], st, 8, 9)
        full, rest = divmod(n, 4)
        if full:
            _threefry_blocks(ib, st, 0, st, 4, vals, 0, full)
        if rest:
            tail = ib.allocate(U64, (4,), name="tail", scope="local")
            st[7] = st[7] + _u(full * 4)
            _threefry_blocks(ib, st, 0, st, 4, tail, 0, 1)
            for j in range(rest):
                vals[full * 4 + j] = tail[j]
        for j in range(6):
            new_gen[j] = st[j]
        new_gen[6] = _u(0)
        new_gen[7] = st[7] + _u(4 if rest else n)
        new_gen[8] = st[8]
        new_gen[9] = st[9]
        return ib.get()

    return extern([(10,), out_shape], [gen], body, name="threefry_generate",
                  dtype=[U64, U64], tag="threefry_generate")


def threefry_split(gen):
    """``(left, right)``: two states that draw independent streams from ``gen`` (the path
    gets a 0 / a 1 bit; a full path is hashed into a new key first)."""
    _check_gen(gen, "threefry_split")

    def body(ins, outs):
        ib = ir_builder.create()
        _gpu_single_thread(ib)
        g = ib.buffer_ptr(ins[0])
        left, right = ib.buffer_ptr(outs[0]), ib.buffer_ptr(outs[1])
        with ib.if_scope((g[8] == _u(0)) & (g[9] == _u(0))):
            _threefry_blocks(ib, g, 0, g, 4, left, 0, 1)
            for j, v in zip(range(4, 10), (0, 0, 0, 0, 1 << 62, 0)):
                left[j] = _u(v)
            for j in range(4):
                right[j] = left[j]
            for j, v in zip(range(4, 10), (1 << 63, 0, 0, 0, 1 << 62, 0)):
                right[j] = _u(v)
        with ib.else_scope():
            for j in range(8):
                left[j] = g[j]
                right[j] = g[j]
            right[4] = g[4] | g[8]
            right[5] = g[5] | g[9]
            _shift_mask_right(ib, g[8], g[9], left, 8, 9)
            _shift_mask_right(ib, g[8], g[9], right, 8, 9)
        return ib.get()

    return extern([(10,), (10,)], [gen], body, name="threefry_split", dtype=[U64, U64],
                  tag="threefry_split")


def threefry_test_wrapping(target, device=None):
    """Whether ``uint64`` addition wraps on overflow in kernels built for ``target`` (a
    Target or a string; Threefry relies on it): builds and runs a kernel computing
    ``(2**64 - 1) + 1``. ``device`` is accepted for TVM's signature; the kernel runs on the
    target's device."""
    tgt = Target(target) if isinstance(target, str) else target

    def body(ins, outs):
        ib = ir_builder.create()
        if "gpu" in tgt.keys:
            ib.scope_attr(thread_axis("threadIdx.x"), "thread_extent", 1)
        out = ib.buffer_ptr(outs[0])
        out[0] = _u(ALL_ONES) + _u(1)
        return ib.get()
    t = extern((1,), [], body, name="wrap", dtype=U64)
    f = build(create_schedule(t.op), [t], target=tgt)
    arr = np.ones((1,), U64)
    f(arr)
    return bool(arr[0] == 0)


_FLOAT_BITS = {"float32": ("uint32", 32, 23), "float64": ("uint64", 64, 52)}


def uniform(gen, low, high, out_shape, out_dtype):
    """``(new_gen, values)``: samples uniform over ``[low, high)`` (``low`` / ``high``: 0-d
    tensors or scalars of ``out_dtype``, "float32" or "float64"), made from the top mantissa
    bits of ``threefry_generate``'s words (TVM's construction: ``1.m - 1``)."""
    if out_dtype not in _FLOAT_BITS:
        raise TepadError(f"topi.random.uniform: out_dtype must be float32 or float64, got "
                         f"{out_dtype!r}")
    bits_dtype, nbits, nfrac = _FLOAT_BITS[out_dtype]
    new_gen, words = threefry_generate(gen, out_shape)
    words = tmath.cast(words, bits_dtype)
    frac = broadcast.right_shift(words, const(nbits - nfrac, bits_dtype))
    one_exp = const(((1 << (nbits - nfrac - 2)) - 1) << nfrac, bits_dtype)
    unit = tmath.reinterpret(broadcast.bitwise_or(frac, one_exp), out_dtype)
    unit = broadcast.subtract(unit, const(1, out_dtype))
    # a stage of its own, so that a schedule whose outputs are (state, samples) does not
    # hold the generator's op, whose raw words are then an intermediate
    new_gen = transform.reshape(new_gen, (10,))
    return new_gen, broadcast.add(broadcast.multiply(unit, broadcast.subtract(high, low)), low)


def normal(gen, mean, scale, out_shape, out_dtype):
    """``(new_gen, values)``: normal samples with ``mean`` and standard deviation ``scale``
    by the Box-Muller transform of two uniform draws per value."""
    out_shape = [int(s) for s in get_const_tuple(out_shape)]
    new_gen, u = uniform(gen, const(0.0, out_dtype), const(1.0, out_dtype),
                         [2] + out_shape, out_dtype)
    u1 = transform.squeeze(transform.strided_slice(u, [0], [1], axes=[0]), axis=0)
    u2 = transform.squeeze(transform.strided_slice(u, [1], [2], axes=[0]), axis=0)
    radius = tmath.sqrt(broadcast.multiply(
        const(-2.0, out_dtype), tmath.log(broadcast.subtract(const(1.0, out_dtype), u1))))
    angle = tmath.sin(broadcast.multiply(const(2.0 * math.pi, out_dtype), u2))
    return new_gen, broadcast.add(broadcast.multiply(broadcast.multiply(radius, angle), scale),
                                  mean)


def multinomial(gen, probs, num_samples):
    """``(new_gen, indices)``: ``num_samples`` category indices per row of ``probs`` (last
    axis: weights; negative weights count as 0; normalized per row), drawn by inverting the
    cumulative distribution at uniform draws. ``indices`` has shape ``probs.shape[:-1] +
    (num_samples,)``."""
    probs = broadcast.maximum(tmath.cast(probs, "float32"), const(0.0, "float32"))
    probs = broadcast.divide(probs, transform.expand_dims(reduction.sum(probs, axis=-1), -1))
    cdf = cumsum(probs, axis=-1)
    lead = list(get_const_tuple(probs.shape[:-1]))
    new_gen, u = uniform(gen, const(0.0, "float32"), const(1.0, "float32"),
                         lead + [int(num_samples)], "float32")
    gap = broadcast.subtract(transform.expand_dims(cdf, -1), transform.expand_dims(u, -2))
    above = transform.where(broadcast.greater(gap, const(0.0, "float32")), gap,
                            transform.full_like(gap, 1.0))
    return new_gen, reduction.argmin(above, axis=-2)


__all__ = ["threefry_generate", "threefry_split", "threefry_test_wrapping", "uniform",
           "normal", "multinomial"]
