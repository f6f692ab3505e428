"""The fuzzer draws the same cases for the same seed (pinned text and hashes).

Case ``i`` of a seed must stay the same program across refactors: reported failures are
replayed by seed and index (``python -m tepad.fuzz --seed S --replay i``). A deliberate change
of what is drawn changes these pins; update them in the same commit and say so.
"""
import hashlib

from tepad.fuzz.generator import Config, RandomSource, generate

PINNED_LINES = [
    "A = te.placeholder((9, 1), 'float32', name='A')",
    "T0 = te.compute((9, 1), lambda i, j: (te.floor(tir.min(tir.max(A[i, j] * 4.0, "
    "tir.const(-100.0, 'float32')), tir.const(100.0, 'float32')))).astype('int8'), name='T0')",
    "s = te.create_schedule([T0.op])",
    "T0_i_0 = s[T0].leaf_iter_vars[0]",
    "T0_j_1 = s[T0].leaf_iter_vars[1]",
    "T0_xo2, T0_yo3, T0_xi4, T0_yi5 = s[T0].tile(T0_i_0, T0_j_1, 4, 2)",
    "T0_xo6, T0_yo7, T0_xi8, T0_yi9 = s[T0].tile(T0_xo2, T0_yo3, 2, 3)",
    "T0_xo10, T0_yo11, T0_xi12, T0_yi13 = s[T0].tile(T0_xi4, T0_yi5, 4, 5)",
    "s[T0].reorder(T0_xo6, T0_yo7, T0_xi8, T0_yi9, T0_xo10, T0_yo11, T0_xi12, T0_yi13)",
    "s[T0].unroll(T0_xi8)",
]

# sha256(case.script(exact=True))[:16] of cases "pinned:0".."pinned:15"
# (re-pinned for issue 15: rfactor and cache_write after loop transforms joined the fuzzer)
PINNED_DEFAULT = [
    "0c89aac958433d27", "470457a94f32dcf3", "fea38f55b9b056c7", "d5dbb4c56fec42e8",
    "28fdfba1753252f5", "d0b589774a5b3bdd", "154a5af858ef6d33", "4759794b05cdfd4b",
    "036c71a05f6ffb18", "5023151e462ba8e4", "a37a60dec79e6583", "7188e3aa95e31583",
    "1a21891cf8901a8c", "ae2f1e885e5c877b", "afe062fa9dbd767e", "8fb580c404b80575",
]
# the same with layouts always on, many illegal steps and symbolic sizes
# (re-pinned for issue 19: a stage with a layout may now be drawn at a loop of its consumer;
# re-pinned for issue 15: rfactor and cache_write after loop transforms are drawn, and the
# illegal cache_write step is now one after a reduce-axis split)
PINNED_LAYOUT = [
    "52b1b998ec912539", "e1b66c4dfb254ceb", "a9cf0d2663129f14", "9e93f7b38d359e92",
    "e948f7b92e9dccf5", "addaa314b4b7a09a", "0ddc18f1eecffc7f", "d7b1264533684e8c",
    "1bd43c5261f0afe9", "5023151e462ba8e4", "0961538e8d8e04d1", "1c2c56e05edcb2f9",
    "4b67876ba7653b2b", "ebe31aad504f22db", "cf9e9f23d423edbb", "c8ecdc087d5f0bf0",
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
