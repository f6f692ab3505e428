"""Loop features of lowered candidates (the XGBTuner's input): fixed length, and they see the
loop extents, kinds and access strides a config changes."""
import numpy as np

from tepad import te, autotvm
from tepad.autotvm import feature

from . import templates  # noqa: F401 -- registers the templates

LEN = feature.MAX_LOOPS * feature.PER_LOOP + 3


def _row(fea, slot):
    return fea[slot * feature.PER_LOOP:(slot + 1) * feature.PER_LOOP]


def test_features_have_a_fixed_length_and_differ_by_config():
    task = autotvm.task.create("test/tiles", args=(64,), target="llvm")
    feats = [feature.config_features(task, task.config_space.get(i)) for i in (0, 10, 48)]
    assert all(f.shape == (LEN,) for f in feats)
    assert not np.array_equal(feats[0], feats[1]) and not np.array_equal(feats[1], feats[2])


def test_innermost_loop_row_has_its_extent_kind_and_strides():
    A = te.placeholder((64, 64), name="A")
    B = te.compute((64, 64), lambda i, j: A[i, j] + A[j, i], name="B")
    s = te.create_schedule(B.op)
    jo, ji = s[B].split(B.op.axis[1], factor=8)
    s[B].vectorize(ji)
    fea = feature.get_itervar_feature_flatten(s, [A, B])
    inner = _row(fea, feature.MAX_LOOPS - 1)
    assert inner[0] == np.float32(np.log2(9))                 # extent 8
    assert list(inner[1:5]) == [0, 0, 1, 0]                    # vectorized
    # along j: B[i, j] and A[i, j] stride 1, A[j, i] stride 64
    assert list(inner[6:9]) == [0, 2, 1] and inner[9] == np.float32(np.log2(65))
    outer = _row(fea, feature.MAX_LOOPS - 3)                   # the i loop
    assert outer[0] == np.float32(np.log2(65)) and outer[1] == 1
    assert _row(fea, 0).sum() == 0                              # unused slots stay zero
