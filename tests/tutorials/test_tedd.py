"""``tvm.contrib.tedd``: the dataflow graph, schedule tree and IterVar relationship graph of
a schedule as Graphviz DOT text, produced without graphviz; the facts a reader looks for
(which stage reads which tensor, where a stage is attached, how a split and a fuse derive
the leaf loops) are in the text."""
import re

import numpy as np
import pytest

import tepad as tvm
from tepad import TepadError, te, topi
from tepad.contrib import tedd


def _schedule():
    A = te.placeholder((64, 32), name="A")
    B = te.compute((64, 32), lambda i, j: A[i, j] + 1.0, name="B")
    C = te.compute((64, 32), lambda i, j: B[i, j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=8)
    s[C].fuse(xi, C.op.axis[1])
    s[B].compute_at(s[C], xo)
    return s, A, B, C


def _edges(dot):
    return re.findall(r"^\s*(\w+)(?::\w+)? -> (\w+)", dot, re.M)


def _node_of(dot, text):
    """The id of the node whose label starts with ``text``."""
    m = re.search(r"^\s*(\w+) \[[^\n]*label=(?:\"|<<TABLE[^>]*><TR><TD[^>]*>)" + re.escape(text),
                  dot, re.M)
    assert m, (text, dot)
    return m.group(1)


def test_dataflow_graph_links_tensors_and_stages():
    s, A, B, C = _schedule()
    dot = tedd.viz_dataflow_graph(s, output_dot_string=True)
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    edges = set(_edges(dot))
    stage_b, stage_c = _node_of(dot, "B\\nComputeOp"), _node_of(dot, "C\\nComputeOp")
    tensor_a, tensor_b = _node_of(dot, "A\\n(64, 32)"), _node_of(dot, "B\\n(64, 32)")
    assert {(tensor_a, stage_b), (stage_b, tensor_b), (tensor_b, stage_c)} <= edges
    assert (tensor_a, stage_c) not in edges


def test_schedule_tree_hangs_a_compute_at_stage_off_its_loop():
    s, *_ = _schedule()
    dot = tedd.viz_schedule_tree(s, output_dot_string=True)
    stage_b, stage_c = _node_of(dot, "B (ComputeOp"), _node_of(dot, "C (ComputeOp")
    assert "compute_at C.i.outer" in dot
    # C's leaf loops in order: i.outer (port IV0), then the fused loop
    assert re.search(r'PORT="IV0">0: i\.outer<', dot) and "1: i.inner.j.fused" in dot
    assert f"{stage_c}:IV0 -> {stage_b};" in dot
    assert f"ScheduleTreeRoot -> {stage_c};" in dot


def test_itervar_graph_shows_split_and_fuse(tmp_path):
    s, *_ = _schedule()
    path = tmp_path / "itervar.dot"
    assert tedd.viz_itervar_relationship_graph(s, dot_file_path=str(path)) is None
    dot = path.read_text()
    assert 'label="Split\\nfactor=8"' in dot and 'label="Fuse"' in dot
    ids = dict(re.findall(r'^\s*(\w+) \[shape=(?:box|diamond), label="([^"\\]+)', dot, re.M))
    by_label = {v: k for k, v in ids.items() if k.startswith("IV_2") or k.startswith("Rel_2")}
    split, fuse = by_label["Split"], by_label["Fuse"]
    edges = set(_edges(dot))
    assert (by_label["i"], split) in edges
    assert {(split, by_label["i.outer"]), (split, by_label["i.inner"])} <= edges
    assert {(by_label["i.inner"], fuse), (by_label["j"], fuse),
            (fuse, by_label["i.inner.j.fused"])} <= edges


def test_the_schedule_still_builds_and_computes():
    s, A, B, C = _schedule()
    tedd.viz_schedule_tree(s.normalize(), output_dot_string=True)
    f = tvm.build(s, [A, C])
    a = np.random.default_rng(0).uniform(size=(64, 32)).astype("float32")
    c = tvm.nd.empty((64, 32), "float32")
    f(tvm.nd.array(a), c)
    np.testing.assert_allclose(c.numpy(), (a + 1.0) * 2.0, rtol=1e-6)


def test_conv2d_hwcn_graphs_have_every_stage():
    A = te.placeholder((16, 16, 8, 1), name="A")
    W = te.placeholder((3, 3, 8, 8), name="W")
    with tvm.target.Target("llvm"):
        out = topi.nn.relu(topi.nn.conv2d_hwcn(A, W, 1, "SAME", 1))
        s = topi.generic.schedule_conv2d_hwcn([out])
    dot = tedd.viz_dataflow_graph(s, output_dot_string=True)
    for st in s.stages:
        assert f'"{st.op.name}\\n' in dot


def test_show_svg_without_graphviz_is_a_tepad_error(monkeypatch):
    monkeypatch.setattr(tedd.shutil, "which", lambda name: None)
    s, *_ = _schedule()
    with pytest.raises(TepadError, match="Graphviz"):
        tedd.viz_dataflow_graph(s, show_svg=True)
    with pytest.raises(TepadError, match="te.Schedule"):
        tedd.viz_schedule_tree("not a schedule")
