"""A general LSTM layer as one ``te.scan`` (TVM's ``topi.nn.lstm``)."""
from __future__ import annotations

from ...errors import TepadError
from ...tensor import Tensor, compute, placeholder, reduce_axis, scan
from ...tensor import operation as te_op
from ...tir import op as tirop
from ...tir.expr import IntImm, const


def lstm(Xs, Wi, Wh, Bi=None, Bh=None, h_init=None, c_init=None, proj=None, p_i=None,
         p_f=None, p_o=None, f_act=tirop.sigmoid, g_act=tirop.tanh, h_act=tirop.tanh,
         reverse=False, weight_layout: str = "IFGO"):
    """An LSTM over the sequence ``Xs`` (seq_len, batch, in_dim).

    ``Wi`` (4 * hidden, in_dim) and ``Wh`` (4 * hidden, hidden or proj_dim) hold the four
    gates' weights stacked in the order ``weight_layout`` names them (a permutation of
    "IFGO": input, forget, cell, output); ``Bi`` / ``Bh`` (4 * hidden,) the biases likewise.
    ``h_init`` / ``c_init`` (batch, .) start the states (zero when None); ``proj``
    (proj_dim, hidden) projects the hidden state; ``p_i`` / ``p_f`` / ``p_o`` (batch,
    hidden) are peephole weights (``p_i`` and ``p_f`` are used only together). Per step::

        i = f_act(x Wi_i + h Wh_i + b_i [+ p_i * c])   f = f_act(... [+ p_f * c])
        g = g_act(x Wi_g + h Wh_g + b_g)                c' = f * c + i * g
        o = f_act(x Wi_o + h Wh_o + b_o [+ p_o * c'])   h' = o * h_act(c') [@ proj.T]

    ``reverse`` reads the sequence from its end. The input products are one matmul stage
    (``Xi2h``) outside the scan ``lstm_scan``. Returns ``(hidden_states, cell_states)``,
    (seq_len, batch, proj_dim or hidden) and (seq_len, batch, hidden)."""
    if not (isinstance(weight_layout, str) and sorted(weight_layout) == sorted("IFGO")):
        raise TepadError(f"lstm: weight_layout must be a permutation of 'IFGO', got "
                         f"{weight_layout!r}")
    for t, nm in ((Xs, "Xs"), (Wi, "Wi"), (Wh, "Wh")):
        if not isinstance(t, Tensor):
            raise TepadError(f"lstm: {nm} must be a te.Tensor, got {t!r}")
    if len(Xs.shape) != 3 or len(Wi.shape) != 2 or len(Wh.shape) != 2:
        raise TepadError("lstm: Xs is (seq_len, batch, in_dim), Wi and Wh are 2-d")
    gi, gf, gg, go = (weight_layout.index(c) for c in "IFGO")
    seq_len, batch, in_dim = Xs.shape
    four_h = Wi.shape[0]
    if not isinstance(four_h, IntImm) or four_h.value % 4:
        raise TepadError(f"lstm: Wi's first extent ({four_h}) must be 4 * hidden_dim")
    hidden = four_h.value // 4
    out_dim = proj.shape[0] if proj is not None else hidden
    dtype = Xs.dtype
    steps = seq_len + 1                     # the scan's first step holds the initial state

    ki = reduce_axis((0, in_dim), name="ki2h")
    xi2h = compute((seq_len * batch, 4 * hidden), lambda tb, j: te_op.sum(
        Xs[tb // batch, tb % batch, ki] * Wi[j, ki], axis=ki), name="Xi2h")
    if Bi is not None:
        xi2h_nb = xi2h
        xi2h = compute(xi2h.shape, lambda tb, j: xi2h_nb[tb, j] + Bi[j], name="Xi2h_bias",
                       tag="injective")
    h_state = placeholder((steps, batch, out_dim), dtype=dtype, name="h_state")
    c_state = placeholder((steps, batch, hidden), dtype=dtype, name="c_state")
    zero = const(0.0, dtype)
    h0 = compute((1, batch, out_dim), lambda _, b, i: h_init[b, i] if h_init is not None
                 else zero, name="h_init")
    c0 = compute((1, batch, hidden), lambda _, b, i: c_init[b, i] if c_init is not None
                 else zero, name="c_init")
    kh = reduce_axis((0, out_dim), name="kh2h")
    h2h = compute((steps, batch, 4, hidden), lambda t, b, g, j: te_op.sum(
        h_state[t - 1, b, kh] * Wh[g * hidden + j, kh], axis=kh), name="s_h2h")
    if Bh is not None:
        h2h_nb = h2h
        h2h = compute(h2h.shape, lambda t, b, g, j: h2h_nb[t, b, g, j] + Bh[g * hidden + j],
                      name="s_h2h_bias", tag="injective")

    def x_step(t):
        return seq_len - t if reverse else t - 1
    gates = compute((steps, batch, 4, hidden), lambda t, b, g, j:
                    xi2h[x_step(t) * batch + b, g * hidden + j] + h2h[t, b, g, j],
                    name="gates", tag="injective")
    shape = (steps, batch, hidden)
    peep = p_i is not None and p_f is not None
    i_gate = compute(shape, lambda t, b, j: f_act(
        gates[t, b, gi, j] + (p_i[b, j] * c_state[t - 1, b, j] if peep else zero)),
        name="i_gate_p" if peep else "i_gate", tag="injective")
    f_gate = compute(shape, lambda t, b, j: f_act(
        gates[t, b, gf, j] + (p_f[b, j] * c_state[t - 1, b, j] if peep else zero)),
        name="f_gate_p" if peep else "f_gate", tag="injective")
    g_gate = compute(shape, lambda t, b, j: g_act(gates[t, b, gg, j]), name="g_gate",
                     tag="injective")
    next_c = compute(shape, lambda t, b, j: f_gate[t, b, j] * c_state[t - 1, b, j] +
                     i_gate[t, b, j] * g_gate[t, b, j], name="next_c")
    o_gate = compute(shape, lambda t, b, j: f_act(
        gates[t, b, go, j] + (p_o[b, j] * next_c[t, b, j] if p_o is not None else zero)),
        name="o_gate_p" if p_o is not None else "o_gate", tag="injective")
    next_h = compute(shape, lambda t, b, j: o_gate[t, b, j] * h_act(next_c[t, b, j]),
                     name="next_h")
    if proj is not None:
        kr = reduce_axis((0, hidden), name="kh2p")
        unproj = next_h
        next_h = compute((steps, batch, out_dim), lambda t, b, j: te_op.sum(
            unproj[t, b, kr] * proj[j, kr], axis=kr), name="next_h_proj")
    scan_h, scan_c = scan([h0, c0], [next_h, next_c], [h_state, c_state], name="lstm_scan")
    hs = compute((seq_len, batch, out_dim), lambda t, b, j: scan_h[t + 1, b, j],
                 name="hidden_states")
    cs = compute((seq_len, batch, hidden), lambda t, b, j: scan_c[t + 1, b, j],
                 name="cell_states")
    return hs, cs


__all__ = ["lstm"]
