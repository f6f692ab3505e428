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
    "T0_lc = s.cache_write(T0, 'local')",
    "s[T0_lc].set_scope('local')",
]

# sha256(case.script(exact=True))[:16] of cases "pinned:0".."pinned:15"
PINNED_DEFAULT = [
    "c89f6c5145ec1437", "51f54679bb72dd9a", "6da325f4c296ed2f", "adbce1a6f5dbc37d",
    "86950f715d7b0823", "5c30bdc9ae2199a5", "089c187870b76f5f", "b83f20710aa5afd2",
    "a4e17d21d837de9d", "4790c19cd9e36115", "970faad73a0b94b7", "979145e71e4624c9",
    "11840b1c1f786e84", "742668b0c3ecd118", "440094fb46195181", "d397989c064b9022",
]
# the same with layouts always on, many illegal steps and symbolic sizes
# (re-pinned for issue 19: a stage with a layout may now be drawn at a loop of its consumer;
# all re-pinned for issue 15: pragma, prefetch, storage_align and create_group are drawn)
PINNED_LAYOUT = [
    "41810d4904310216", "758010a490db3519", "95c69818d8d3b9c2", "672ed504dbf7ed8a",
    "fbe989eb83550bf9", "7ea208033d443e3e", "3fe1b87c6082c17b", "56efb20b3ddab18c",
    "cfbc81960757fcac", "4790c19cd9e36115", "ded4ced2dfe382ee", "086bde4cbc15c5c7",
    "51653788da88ab3d", "9ea956507e6197c8", "d083313ca0ea9257", "5fba51893f1d7a3a",
]


def _hashes(cfg):
    return [hashlib.sha256(generate(RandomSource(f"pinned:{i}"), cfg).script(exact=True)
                           .encode()).hexdigest()[:16] for i in range(16)]


def test_pinned_case_text():
    case = generate(RandomSource("pinned:3"), Config(max_stages=2))
    assert case.lines == PINNED_LINES
    assert case.data_seed == 22672


def test_pinned_case_hashes_default_config():
    assert _hashes(Config()) == PINNED_DEFAULT


def test_pinned_case_hashes_layouts_and_illegal_steps():
    cfg = Config(layout_percent=100, illegal_rate=30, symbolic_percent=50)
    assert _hashes(cfg) == PINNED_LAYOUT
