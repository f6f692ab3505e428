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
    'from tepad.fuzz.tensorize import matching_intrinsic',
    'T0_intrin = matching_intrinsic(s[T0], 1)',
    's[T0].tensorize(T0_j_1, T0_intrin)',
]

# sha256(case.script(exact=True))[:16] of cases "pinned:0".."pinned:15"
PINNED_DEFAULT = [
    "52caced3b52521af", "51f54679bb72dd9a", "77057d584d2bc069", "89404da5f706f25f",
    "ab6bb8c78cbd47c1", "3dba622795644587", "8dd96b781f20b28d", "073fb8734317fced",
    "a4e17d21d837de9d", "8eb58cccccf80283", "ab65808f85136563", "95e8e5778ed9b2d2",
    "5a4cf5c2123b2815", "e92aa71ed064b04b", "46a7b718cb92511e", "bdfdc12810a7a5d6",
]
# the same with layouts always on, many illegal steps and symbolic sizes
# (re-pinned for issue 19: a stage with a layout may now be drawn at a loop of its consumer;
# all re-pinned for issue 15: pragma, prefetch, storage_align and create_group are drawn)
PINNED_LAYOUT = [
    "41810d4904310216", "758010a490db3519", "8a6df7ff7e237f93", "0a76870a2c04f8ff",
    "41f923ca77ce8fe6", "5d91377e91e06460", "d312954958a61047", "73d3e78f812cffcb",
    "cfbc81960757fcac", "8eb58cccccf80283", "f3da9d6012918d60", "7c0ff2faafe069ed",
    "75cd20f6fce3fb3e", "9ea956507e6197c8", "2be9863edffa2b5d", "5fba51893f1d7a3a",
]


def _hashes(cfg):
    return [hashlib.sha256(generate(RandomSource(f"pinned:{i}"), cfg).script(exact=True)
                           .encode()).hexdigest()[:16] for i in range(16)]


def test_pinned_case_text():
    case = generate(RandomSource("pinned:3"), Config(max_stages=2))
    assert case.lines == PINNED_LINES
    assert case.data_seed == 248


def test_pinned_case_hashes_default_config():
    assert _hashes(Config()) == PINNED_DEFAULT


def test_pinned_case_hashes_layouts_and_illegal_steps():
    cfg = Config(layout_percent=100, illegal_rate=30, symbolic_percent=50)
    assert _hashes(cfg) == PINNED_LAYOUT
