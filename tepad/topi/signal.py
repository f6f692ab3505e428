"""Fourier transforms of TVM's ``topi`` (``topi.signal``): ``dft`` (the discrete Fourier
transform along the last axis, O(N^2) per row) and ``stft`` (the short-time transform of
windowed frames).

Both are extern stages, as TVM's are: one loop over the output elements, each summing its
row. Under a CUDA target that loop is bound to blockIdx.x / threadIdx.x (one thread per
output element, so ``topi.cuda.schedule_extern`` has nothing left to do); otherwise it is a
parallel loop. The angle is taken as ``2 pi ((k n) mod N) / N`` so it stays in one period
and keeps its precision; float16 data is summed in float32."""
from __future__ import annotations

import math

from ..errors import TepadError
from ..target import Target
from ..tensor import Tensor
from ..tensor.extern import extern
from ..tensor.operation import thread_axis
from ..tir import ir_builder
from ..tir import op as tirop
from ..tir.expr import const
from .utils import get_const_tuple

_THREADS = 64


def _on_gpu() -> bool:
    tgt = Target.current()
    return tgt is not None and ("cuda" in tgt.keys or "gpu" in tgt.keys)


def _element_loop(ib, total, gpu):
    """A context giving the flat index of the output element this iteration computes."""
    if not gpu:
        return ib.for_range(0, total, name="e", kind="parallel")
    bx, tx = thread_axis("blockIdx.x"), thread_axis("threadIdx.x")
    ib.scope_attr(bx, "thread_extent", (total + _THREADS - 1) // _THREADS)
    ib.scope_attr(tx, "thread_extent", _THREADS)
    flat = bx.var * _THREADS + tx.var

    class _Guard:
        def __enter__(self):
            self._scope = ib.if_scope(flat < total)
            self._scope.__enter__()
            return flat

        def __exit__(self, *exc):
            return self._scope.__exit__(*exc)
    return _Guard()


def _acc_dtype(dtype):
    return "float32" if dtype == "float16" else dtype


def _check_float(t, what, name):
    if not isinstance(t, Tensor):
        raise TepadError(f"topi.{what}: {name} must be a te.Tensor, got {t!r}")
    if "float" not in t.dtype:
        raise TepadError(f"topi.{what}: {name} ({t.name}) must be float, got {t.dtype}")


def dft(re_data, im_data, inverse):
    """``(re, im)``: the discrete Fourier transform of ``re_data + i im_data`` along the last
    axis (numpy's ``fft``; ``inverse``: ``ifft``, divided by N), same shape and dtype."""
    _check_float(re_data, "dft", "re_data")
    _check_float(im_data, "dft", "im_data")
    shape = get_const_tuple(re_data.shape)
    if shape != get_const_tuple(im_data.shape) or re_data.dtype != im_data.dtype:
        raise TepadError(f"topi.dft: re_data {re_data.dtype}{list(shape)} and im_data "
                         f"{im_data.dtype}{list(im_data.shape)} must match")
    n = shape[-1]
    total = math.prod(shape)
    gpu, sign = _on_gpu(), (1.0 if inverse else -1.0)
    dtype, acc = re_data.dtype, _acc_dtype(re_data.dtype)

    def body(ins, outs):
        ib = ir_builder.create()
        re, im = ib.buffer_ptr(ins[0]), ib.buffer_ptr(ins[1])
        ore, oim = ib.buffer_ptr(outs[0]), ib.buffer_ptr(outs[1])
        with _element_loop(ib, total, gpu) as e:
            row, k = e // n, e % n
            sums = ib.allocate(acc, (2,), name="sums", scope="local")
            sums[0] = const(0, acc)
            sums[1] = const(0, acc)
            with ib.for_range(0, n, name="j") as j:
                ang = ((k * j) % n).astype(acc) * const(2 * math.pi / n, acc)
                c, s = tirop.cos(ang), tirop.sin(ang) * const(sign, acc)
                xr = re[row * n + j].astype(acc)
                xi = im[row * n + j].astype(acc)
                sums[0] = sums[0] + xr * c - xi * s          # (xr + i xi)(c + i s)
                sums[1] = sums[1] + xi * c + xr * s
            scale = const(1.0 / n if inverse else 1.0, acc)
            ore[e] = (sums[0] * scale).astype(dtype)
            oim[e] = (sums[1] * scale).astype(dtype)
        return ib.get()

    return extern([shape, shape], [re_data, im_data], body, name="dft",
                  dtype=[dtype, dtype], tag="dft")


def stft(data, n_fft, hop_length, win_length, window, normalized, onesided,
         output_shape=None):
    """The short-time Fourier transform of ``data`` ((batch, length) or (length,)) as TVM
    computes it: ``out[b, r, c] = sum_w window[w] data[b, c hop + w] e^{-2 pi i r w /
    win_length}`` over ``w < win_length``, real and imaginary parts on a last axis of 2,
    divided by ``sqrt(n_fft)`` when ``normalized``. ``output_shape`` defaults to
    ``(batch, n_fft // 2 + 1 if onesided else n_fft, 1 + (length - n_fft) // hop_length, 2)``
    (without the batch axis for 1-d data)."""
    _check_float(data, "stft", "data")
    _check_float(window, "stft", "window")
    dshape = get_const_tuple(data.shape)
    if len(dshape) not in (1, 2):
        raise TepadError(f"topi.stft: data must be 1-d or (batch, length), got {list(dshape)}")
    batched = len(dshape) == 2
    batch, length = (dshape if batched else (1, dshape[0]))
    n_fft, hop, win = int(n_fft), int(hop_length), int(win_length)
    if min(n_fft, hop, win) <= 0 or n_fft > length or get_const_tuple(window.shape) != (win,):
        raise TepadError(f"topi.stft: need 0 < n_fft ({n_fft}) <= length ({length}), "
                         f"hop_length ({hop}) > 0 and a window of shape ({win},), got "
                         f"{list(window.shape)}")
    if output_shape is None:
        rows = n_fft // 2 + 1 if onesided else n_fft
        cols = 1 + (length - n_fft) // hop
        oshape = (batch, rows, cols, 2)
    else:
        oshape = tuple(int(v) for v in get_const_tuple(output_shape))
        oshape = oshape if batched else (1,) + oshape
        if len(oshape) != 4 or oshape[3] != 2:
            raise TepadError(f"topi.stft: output_shape must be (batch, rows, frames, 2), got "
                             f"{list(output_shape)}")
    _, rows, cols, _ = oshape
    if (cols - 1) * hop + win > length:
        raise TepadError(f"topi.stft: {cols} frames of {win} every {hop} run past the "
                         f"{length} samples")
    total = batch * rows * cols
    gpu = _on_gpu()
    dtype, acc = data.dtype, _acc_dtype(data.dtype)
    norm = 1.0 / math.sqrt(n_fft) if normalized else 1.0

    def body(ins, outs):
        ib = ir_builder.create()
        x, w, out = ib.buffer_ptr(ins[0]), ib.buffer_ptr(ins[1]), ib.buffer_ptr(outs[0])
        with _element_loop(ib, total, gpu) as e:
            b, r, c = e // (rows * cols), (e // cols) % rows, e % cols
            sums = ib.allocate(acc, (2,), name="sums", scope="local")
            sums[0] = const(0, acc)
            sums[1] = const(0, acc)
            with ib.for_range(0, win, name="j") as j:
                ang = ((r * j) % win).astype(acc) * const(2 * math.pi / win, acc)
                v = (w[j] * x[b * length + c * hop + j]).astype(acc)
                sums[0] = sums[0] + v * tirop.cos(ang)
                sums[1] = sums[1] - v * tirop.sin(ang)
            out[e * 2] = (sums[0] * const(norm, acc)).astype(dtype)
            out[e * 2 + 1] = (sums[1] * const(norm, acc)).astype(dtype)
        return ib.get()

    out_shape = oshape if batched else oshape[1:]
    return extern(out_shape, [data, window], body, name="stft", dtype=dtype, tag="stft")


__all__ = ["dft", "stft"]
