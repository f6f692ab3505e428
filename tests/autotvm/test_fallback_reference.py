"""TVM 0.6-era fallback helpers FlexTensor's autotvm baselines call: ``tophub.load_reference_log``
(no TopHub package in tepad: no records), ``FallbackConfigEntity.fallback_with_reference_log``
(mimic the closest record's tiling, copy its other knobs) and ``cfg.axis`` / ``define_split``
of a fused axis whose ``dom`` the program set itself with a plain int extent."""
from collections import namedtuple

import numpy as np
import pytest

import tepad
from tepad import autotvm, te
from tepad.autotvm.task.space import FallbackConfigEntity, OtherOptionEntity, SplitEntity

Rec = namedtuple("Rec", ["config"])


def _matmul(n=32):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


def _run(s, args):
    A, B, C = args
    rng = np.random.default_rng(0)
    a, b = rng.random((32, 32), "float32"), rng.random((32, 32), "float32")
    f = tepad.build(s, [A, B, C], "llvm")
    c = tepad.nd.array(np.zeros((32, 32), "float32"))
    f(tepad.nd.array(a), tepad.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4)


def test_load_reference_log_is_empty():
    assert autotvm.tophub.load_reference_log("cuda", "unknown", "conv2d") == []
    # TVM 0.6's signature had a template key too
    assert autotvm.tophub.load_reference_log("cuda", "unknown", "conv2d", "direct") == []
    with pytest.raises(tepad.TepadError, match="backend"):
        autotvm.tophub.load_reference_log(None, "unknown", "conv2d")


def test_fallback_with_reference_log_mimics_closest_record():
    A, B, C = _matmul()
    s = te.create_schedule(C.op)
    cfg = FallbackConfigEntity()
    i, j = s[C].op.axis
    cfg.define_split("tile_i", i, num_outputs=3)
    cfg.define_knob("unroll", [0, 1])
    before = list(cfg["tile_i"].size)
    cfg.fallback_with_reference_log([])            # nothing to follow: unchanged
    assert cfg["tile_i"].size == before
    near, far = FallbackConfigEntity(), FallbackConfigEntity()
    near._entity_map = {"tile_i": SplitEntity([4, 2, 4]), "unroll": OtherOptionEntity(1)}
    far._entity_map = {"tile_i": SplitEntity([1, 3, 3]), "unroll": OtherOptionEntity(0)}
    cfg.fallback_with_reference_log([(Rec(far), None), (Rec(near), None)])
    assert cfg["tile_i"].size[1:] == [2, 4]        # the near record's inner tiling
    assert cfg["unroll"].val == 1
    io, im, ii = cfg["tile_i"].apply(s, C, i)
    assert [int(x.dom.extent) if x.dom is not None else None for x in (im, ii)] in (
        [2, 4], [None, None])
    _run(s, (A, B, C))


def test_define_split_of_fused_axis_with_int_dom():
    A, B, C = _matmul()
    s = te.create_schedule(C.op)
    cfg = FallbackConfigEntity()
    i, j = s[C].op.axis
    ij = s[C].fuse(i, j)
    ij.dom = namedtuple("dom", ("extent",))
    ij.dom.extent = 32 * 32                          # as FlexTensor's tune_conv2d_nchw_cuda
    cfg.define_split("tile_ij", ij, num_outputs=2)
    assert cfg.space_map["tile_ij"].product == 1024
    assert len(cfg.space_map["tile_ij"]) == 11      # the ways to split 1024 = 2**10 in two
    io, ii = cfg["tile_ij"].apply(s, C, ij)
    _run(s, (A, B, C))
