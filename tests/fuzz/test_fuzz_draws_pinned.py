"""The fuzzer draws the same cases for the same seed (pinned text and hashes).

Case ``i`` of a seed must stay the same program across refactors: reported failures are
replayed by seed and index (``python -m tepad.fuzz --seed S --replay i``). A deliberate change
of what is drawn changes these pins; update them in the same commit and say so.
"""
import hashlib

from tepad.fuzz.generator import Config, RandomSource, generate

PINNED_LINES = [
    "A = te.placeholder((9, 1), 'float32', name='A')",
    "T0 = te.compute((9, 1), lambda i, j: (te.floor(tir.min(tir.max(A[i, j] * 4.0, tir.const(-100.0, 'float32')), tir.const(100.0, 'float32')))).astype('int8'), name='T0')",
    's = te.create_schedule([T0.op])',
    'T0_i_0 = s[T0].leaf_iter_vars[0]',
    'T0_j_1 = s[T0].leaf_iter_vars[1]',
    'T0_xo2, T0_yo3, T0_xi4, T0_yi5 = s[T0].tile(T0_i_0, T0_j_1, 4, 2)',
    'T0_xo6, T0_yo7, T0_xi8, T0_yi9 = s[T0].tile(T0_xo2, T0_yo3, 2, 3)',
    'T0_xo10, T0_yo11, T0_xi12, T0_yi13 = s[T0].tile(T0_xi4, T0_yi5, 4, 5)',
    's[T0].reorder(T0_xo6, T0_yo7, T0_xi8, T0_yi9, T0_xo10, T0_yo11, T0_xi12, T0_yi13)',
    's[T0].unroll(T0_xi8)',
    'from tepad.fuzz.tensorize import matching_intrinsic',
    'T0_intrin = matching_intrinsic(s[T0], 1)',
    's[T0].tensorize(T0_yi13, T0_intrin)',
]

# sha256(case.script(exact=True))[:16] of cases "pinned:0".."pinned:15"
# (re-pinned for issue 15: rfactor, cache_write after loop transforms and tensorize joined the
# fuzzer)
PINNED_DEFAULT = [
    "33b1fd2b24333400", "b97cf1bc271b93e8", "bed0cc1029ce396c", "57530b5ef45c6984",
    "28fdfba1753252f5", "f4a66c9f2ef83ebf", "154a5af858ef6d33", "4759794b05cdfd4b",
    "11ef6e284b1a6455", "f8deca4da2a419a0", "f4599c17d0624339", "8bd0f164104f0f67",
    "b0ffe078d27e7ee8", "98a5c32c55e6f925", "afe062fa9dbd767e", "da84b7b723cf7185",
]
# the same with layouts always on, many illegal steps and symbolic sizes
# (re-pinned for issue 19: a stage with a layout may now be drawn at a loop of its consumer;
# re-pinned for issue 15: rfactor and cache_write after loop transforms are drawn, and the
# illegal cache_write step is now one after a reduce-axis split)
PINNED_LAYOUT = [
    "870118d545ca6bbc", "a30418b333dc440b", "1189051f1619d33c", "03779b88a7a38957",
    "e948f7b92e9dccf5", "7deccb8dc414bfb2", "d8f532148387c464", "d7b1264533684e8c",
    "3ccfdd74c8d35645", "f8deca4da2a419a0", "2226fc67ebb7a4c7", "1c2c56e05edcb2f9",
    "143b978ffbb424fe", "18ff377098f80314", "1dc18a9aa4140e28", "7613e1cdfbb93101",
]


def _hashes(cfg):
    return [hashlib.sha256(generate(RandomSource(f"pinned:{i}"), cfg).script(exact=True)
                           .encode()).hexdigest()[:16] for i in range(16)]


def test_pinned_case_text():
    case = generate(RandomSource("pinned:3"), Config(max_stages=2))
    assert case.lines == PINNED_LINES
    assert case.data_seed == 50825


def test_pinned_case_hashes_default_config():
    assert _hashes(Config()) == PINNED_DEFAULT


def test_pinned_case_hashes_layouts_and_illegal_steps():
    cfg = Config(layout_percent=100, illegal_rate=30, symbolic_percent=50)
    assert _hashes(cfg) == PINNED_LAYOUT
