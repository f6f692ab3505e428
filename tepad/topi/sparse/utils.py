"""TVM's ``topi.sparse.utils``: random BSR matrices for tests and tutorials, and the
auto-scheduler's custom sketch rules for the BSR sparse operators (``sparse_sketch_rules``:
the block stage tiled together with the reshape, or the single elementwise consumer it is
inlined into, and computed inside that consumer's outer tile).

The helpers that rewrite relay models (``random_sparse_dense_params``,
``random_sparse_conv2d_params``, ``convert_model_dense_to_sparse``) are out of scope (tepad
has no relay) and raise TepadError."""
from __future__ import annotations

import itertools

import numpy as np

from ... import auto_scheduler
from ...auto_scheduler import _ffi_api
from ...errors import TepadError


def random_bsr_matrix(m, n, bs_r, bs_c, density, dtype):
    """A ``scipy.sparse.bsr_matrix`` of shape ``(m, n)`` with ``(bs_r, bs_c)`` blocks, about
    ``density`` of its entries in nonzero blocks (``int(density*m*n / (bs_r*bs_c)) + 1``
    blocks chosen at random, filled with standard normal values, ``numpy.random``'s
    state)."""
    import scipy.sparse as sp   # noqa: PLC0415 -- scipy is optional and slow to import
    if m % bs_r or n % bs_c:
        raise TepadError(f"random_bsr_matrix: the block size ({bs_r}, {bs_c}) must divide the "
                         f"shape ({m}, {n})")
    candidates = np.asarray(list(itertools.product(range(0, m, bs_r), range(0, n, bs_c))))
    num_blocks = int(density * m * n / (bs_r * bs_c)) + 1
    if num_blocks > len(candidates):
        raise TepadError(f"random_bsr_matrix: density {density} asks for {num_blocks} blocks "
                         f"but there are {len(candidates)}")
    dense = np.zeros((m, n), dtype=dtype)
    chosen = candidates[np.random.choice(len(candidates), size=num_blocks, replace=False)]
    for r, c in chosen:
        dense[r:r + bs_r, c:c + bs_c] = np.random.randn(bs_r, bs_c)
    out = sp.bsr_matrix(dense, blocksize=(bs_r, bs_c))
    if out.data.shape != (num_blocks, bs_r, bs_c):      # a block drew only zeros
        out = sp.bsr_matrix((out.data, out.indices, out.indptr), shape=(m, n))
    return out


def _relay_only(name):
    def f(*_args, **_kwargs):
        raise TepadError(f"topi.sparse.utils.{name} rewrites relay models; tepad has no relay "
                         "(out of scope)")
    f.__name__ = name
    f.__doc__ = f"Out of scope: ``{name}`` rewrites relay models (tepad has no relay)."
    return f


random_sparse_dense_params = _relay_only("random_sparse_dense_params")
random_sparse_conv2d_params = _relay_only("random_sparse_conv2d_params")
convert_model_dense_to_sparse = _relay_only("convert_model_dense_to_sparse")


def _meet(tags):
    def meet(search_policy, state, stage_id):
        s = auto_scheduler.loop_state.State(state, search_policy.search_task.compute_dag)
        if s.stages[stage_id].op.tag in tags:
            return auto_scheduler.PreloadCustomSketchRule.APPLY_AND_SKIP_REST
        return auto_scheduler.PreloadCustomSketchRule.PASS
    return meet


sparse_dense_meet_condition_func = _meet(("sparse_dense_sp_rhs_bsrmm",
                                          "sparse_dense_sp_rhs_bsrmm_block"))
sparse_dense_meet_condition_func.__name__ = "sparse_dense_meet_condition_func"
sparse_dense_meet_condition_func.__doc__ = ("APPLY_AND_SKIP_REST at a BSR sparse_dense "
                                            "stage (reshape or block), else PASS.")
sparse_conv2d_meet_condition_func = _meet(("sparse_conv2d_sp_bsrmm",
                                           "sparse_conv2d_sp_bsrmm_block"))
sparse_conv2d_meet_condition_func.__name__ = "sparse_conv2d_meet_condition_func"
sparse_conv2d_meet_condition_func.__doc__ = ("APPLY_AND_SKIP_REST at a BSR sparse_conv2d "
                                             "stage (reshape or block), else PASS.")


def _host(policy, s, stage_id):
    """The stage the block is computed in: the reshape stage, or its single elementwise
    consumer (then the reshape is inlined)."""
    reshape = s.stages[stage_id].op
    consumers = _ffi_api.SearchPolicyUtilsGetConsumers(policy.search_task, s.state_object,
                                                       stage_id)
    if len(consumers) == 1:
        cid = int(consumers.items()[0][0])
        if _ffi_api.SearchPolicyUtilsIsElementwiseMatch(policy.search_task, s.state_object,
                                                        stage_id, cid):
            s.compute_inline(reshape)
            return s.stages[cid].op
    return reshape


def sparse_dense_apply_func(search_policy, state, stage_id):
    """The sparse_dense sketch: the block's row loop split in three, its block-column loop
    in two (factors left to the search); the host's two loops follow those splits; the
    block is computed at the host's outer column tile."""
    s = auto_scheduler.loop_state.State(state, search_policy.search_task.compute_dag)
    if s.stages[stage_id].op.tag == "sparse_dense_sp_rhs_bsrmm_block":
        return [s.state_object, stage_id - 1]
    block = s.stages[stage_id - 1].op
    host = _host(search_policy, s, stage_id)
    i, nb_j, j, row_offset, c = s[block].iters
    m, n = s[host].iters
    i0, i1, i2 = s.split(block, i, [None, None])
    m0, m1 = s.follow_split(host, m, len(s.transform_steps) - 1, 1)
    j0, j1 = s.split(block, nb_j, [None])
    n0, n1 = s.follow_split(host, n, len(s.transform_steps) - 1, 1)
    s.reorder(block, [i0, j0, i1, j1, row_offset, i2, j, c])
    s.reorder(host, [m0, n0, m1, n1])
    s.compute_at(block, host, n0)
    return [[s.state_object, stage_id - 2]]


def sparse_conv2d_apply_func(search_policy, state, stage_id):
    """The sparse_conv2d sketch: as ``sparse_dense_apply_func`` over the batch, height,
    width and block-column loops of the block (layout from the stage's attrs)."""
    s = auto_scheduler.loop_state.State(state, search_policy.search_task.compute_dag)
    if s.stages[stage_id].op.tag == "sparse_conv2d_sp_bsrmm_block":
        return [s.state_object, stage_id - 1]
    block = s.stages[stage_id - 1].op
    layout = (block.attrs or {}).get("layout", "NHWC")
    host = _host(search_policy, s, stage_id)
    it = list(s[block].iters)
    reduce = it[5:]                         # elem_idx, and c unless the blocks are 1 wide
    if layout == "NHWC":
        i, h, w, nb_j, j = it[:5]
        m, x, y, n = s[host].iters
    else:
        i, nb_j, j, h, w = it[:5]
        m, n, x, y = s[host].iters
    parts = {}
    for name, loop, hloop, levels in (("i", i, m, 2), ("h", h, x, 2), ("w", w, y, 2),
                                      ("j", nb_j, n, 1)):
        parts[name] = s.split(block, loop, [None] * levels)
        parts[name + "_host"] = s.follow_split(host, hloop, len(s.transform_steps) - 1, 1)
    (i0, i1, i2), (h0, h1, h2), (w0, w1, w2) = parts["i"], parts["h"], parts["w"]
    j0, j1 = parts["j"]
    (m0, m1), (x0, x1), (y0, y1), (n0, n1) = (parts["i_host"], parts["h_host"],
                                              parts["w_host"], parts["j_host"])
    row_offset, c = reduce[0], reduce[1:]
    if layout == "NHWC":
        s.reorder(block, [i0, h0, w0, j0, i1, h1, w1, j1, row_offset, i2, h2, w2, j, *c])
        s.reorder(host, [m0, x0, y0, n0, m1, x1, y1, n1])
    else:
        s.reorder(block, [i0, j0, h0, w0, i1, j1, h1, w1, row_offset, i2, j, *c, h2, w2])
        s.reorder(host, [m0, n0, x0, y0, m1, n1, x1, y1])
    s.compute_at(block, host, n0)
    return [[s.state_object, stage_id - 2]]


def sparse_sketch_rules() -> list:
    """The custom sketch rules for BSR sparse_conv2d and sparse_dense."""
    return [auto_scheduler.PreloadCustomSketchRule(sparse_conv2d_meet_condition_func,
                                                   sparse_conv2d_apply_func, "SparseConv2D"),
            auto_scheduler.PreloadCustomSketchRule(sparse_dense_meet_condition_func,
                                                   sparse_dense_apply_func, "SparseDense")]


__all__ = ["random_bsr_matrix", "random_sparse_dense_params", "random_sparse_conv2d_params",
           "convert_model_dense_to_sparse", "sparse_sketch_rules",
           "sparse_dense_meet_condition_func", "sparse_dense_apply_func",
           "sparse_conv2d_meet_condition_func", "sparse_conv2d_apply_func"]
