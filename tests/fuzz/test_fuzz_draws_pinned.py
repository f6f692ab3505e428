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

# sha256(case.script(exact=True))[:16] of cases "pinned:0".."pinned:15" (re-pinned for issue
# 15: tensorize is drawn)
PINNED_DEFAULT = [
    "d3d4ffb4a09bba88", "470457a94f32dcf3", "11d9c74683024dab", "427d3ce9cf9a6251",
    "3a51f45dd9369a41", "53a7616833622ac6", "bbd219c010ca623f", "b0312338ceb61406",
    "11ef6e284b1a6455", "f29f36b8d3ccb66a", "a08607a4ba26f6e6", "6d16647aa7a252b0",
    "87a0e11f8034a090", "19bf563878fbfade", "afe062fa9dbd767e", "18bd3987ca1c5569",
]
# the same with layouts always on, many illegal steps and symbolic sizes
# (re-pinned for issue 19: a stage with a layout may now be drawn at a loop of its consumer;
# re-pinned for issue 15: tensorize is drawn, legal and as an illegal step)
PINNED_LAYOUT = [
    "870118d545ca6bbc", "a30418b333dc440b", "56af760a283d46f0", "df8011cc6cc11d5e",
    "aaba4287bc7d870d", "40d17638e0ee09b5", "c00b4538ea8f278c", "37a0195cd70f4394",
    "7b4891ea8d542037", "f29f36b8d3ccb66a", "b119dbd6745e78f3", "bda5b28a067bac39",
    "752390e42998aa01", "65885d0d45426a9f", "e14cb16daf322fd9", "c8ecdc087d5f0bf0",
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
