"""Tagged storage scopes (TVM's ``StorageScope``: a rank and a tag): accepted where TVM
accepts them, kept in the IR, placed as their rank."""
import numpy as np
import pytest

import tepad
from tepad import te
from tepad.tir.storage_scope import split_storage_scope, storage_rank


@pytest.mark.parametrize("scope,rank,tag", [
    ("", "global", ""), ("global", "global", ""), ("global:pool", "global", ":pool"),
    ("global.texture", "global", ".texture"), ("shared.dyn", "shared", ".dyn"),
    ("local.x", "local", ".x"), ("warp", "warp", "")])
def test_split(scope, rank, tag):
    assert split_storage_scope(scope) == (rank, tag)
    assert storage_rank(scope) == rank


def test_unknown_scope_is_refused_naming_the_stage():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    C = te.compute((8,), lambda i: B[i] * 2, name="C")
    s = te.create_schedule(C.op)
    with pytest.raises(tepad.TepadError, match="stage B: unknown storage scope 'l1'"):
        s[B].set_scope("l1")
    with pytest.raises(tepad.TepadError, match=r"cache_read\(A\): unknown storage scope"):
        s.cache_read(A, "texture2", [B])


@pytest.mark.parametrize("scope", ["global:pool", "global.texture", "local.scratch"])
def test_tagged_scope_builds_and_keeps_its_name(scope):
    A = te.placeholder((8, 16), name="A")
    B = te.compute((8, 16), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((8, 16), lambda i, j: B[i, j] * 2, name="C")
    s = te.create_schedule(C.op)
    s[B].set_scope(scope)
    AA = s.cache_read(A, scope, [B])
    s[AA].compute_at(s[B], B.op.axis[0])
    s[B].compute_at(s[C], C.op.axis[0])
    text = str(tepad.lower(s, [A, C]))
    assert repr(scope) in text
    f = tepad.build(s, [A, C])
    a = np.random.RandomState(0).rand(8, 16).astype("float32")
    c = np.zeros_like(a)
    f(a, c)
    np.testing.assert_allclose(c, (a + 1) * 2, rtol=1e-6)
