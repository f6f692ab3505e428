"""Config spaces: enumeration counts and orders as TVM's, configs as JSON, the fallback."""
import math

import pytest
from hypothesis import given, strategies as st

from tepad import te, autotvm
from tepad.errors import TepadError
from tepad.autotvm.task.space import (ConfigEntity, ConfigSpace, FallbackConfigEntity, get_factors,
                                 get_pow2s)


@pytest.mark.parametrize("n, policy, count", [
    (256, "factors", 45), (256, "power2", 45), (256, "verbose", 45),
    (224, "factors", 63), (224, "power2", 36), (224, "verbose", 84)])
def test_three_way_split_counts_match_tvm(n, policy, count):
    cfg = ConfigSpace()
    cfg.define_split("t", cfg.axis(n), policy=policy, num_outputs=3)
    assert len(cfg.space_map["t"]) == count


def test_split_of_a_huge_axis_counts_every_factorization():
    # 2**25 into 4 factors: the solutions of a + b + c + d = 25, counted directly
    cfg = ConfigSpace()
    cfg.define_split("x", cfg.axis(2 ** 25), policy="factors", num_outputs=4)
    expect = sum(1 for a in range(26) for b in range(26 - a) for c in range(26 - a - b))
    assert len(cfg.space_map["x"]) == expect == 3276


def test_two_way_factor_split_of_512_has_ten_entries_with_the_outer_left_open():
    cfg = ConfigSpace()
    cfg.define_split("tile", cfg.axis(512), num_outputs=2)
    sizes = [e.size for e in cfg.space_map["tile"].entities]
    assert sizes == [[-1, 2 ** k] for k in range(10)]


def test_power2_split_allows_tails_and_factors_does_not():
    cfg = ConfigSpace()
    cfg.define_split("p", cfg.axis(100), policy="power2", num_outputs=2)
    cfg.define_split("f", cfg.axis(100), policy="factors", num_outputs=2)
    assert [e.size[1] for e in cfg.space_map["p"].entities] == [1, 2, 4, 8, 16, 32, 64]
    assert [e.size[1] for e in cfg.space_map["f"].entities] == get_factors(100)
    assert get_pow2s(100) == [1, 2, 4, 8, 16, 32, 64]


def test_split_filter_max_factor_and_candidates():
    cfg = ConfigSpace()
    cfg.define_split("a", cfg.axis(64), num_outputs=2, filter=lambda e: e.size[-1] <= 4)
    cfg.define_split("b", cfg.axis(64), num_outputs=2, max_factor=8)
    cfg.define_split("c", cfg.axis(64), policy="candidate", candidate=[[-1, 4], [2, 32]])
    assert [e.size[1] for e in cfg.space_map["a"].entities] == [1, 2, 4]
    assert [e.size[1] for e in cfg.space_map["b"].entities] == [1, 2, 4, 8]
    assert [e.size for e in cfg.space_map["c"].entities] == [[-1, 4], [2, 32]]
    assert len(cfg) == 3 * 4 * 2


def test_reorder_and_annotate_counts():
    cfg = ConfigSpace()
    axes = [cfg.axis(4), cfg.axis(8), cfg.axis(16)]
    cfg.define_reorder("all", axes, "all")
    cfg.define_reorder("id", axes, "identity")
    cfg.define_reorder("cand", axes, "candidate", candidate=[[axes[2], axes[0], axes[1]]])
    cfg.define_annotate("unroll", axes, "try_unroll")
    cfg.define_annotate("both", axes, "try_unroll_vec")
    assert len(cfg.space_map["all"]) == math.factorial(3)
    assert cfg.space_map["id"][0].perm == [0, 1, 2]
    assert cfg.space_map["cand"][0].perm == [2, 0, 1]
    assert len(cfg.space_map["unroll"]) == 2 ** 3
    # three choices per axis, at most one axis vectorized: 2**3 + 3 * 2**2
    assert len(cfg.space_map["both"]) == 20


def test_get_enumerates_the_first_knob_fastest():
    cfg = ConfigSpace()
    cfg.define_knob("a", [1, 2, 3])
    cfg.define_knob("b", ["x", "y"])
    assert len(cfg) == 6
    got = [(cfg.get(i)["a"].val, cfg.get(i)["b"].val) for i in range(6)]
    assert got == [(1, "x"), (2, "x"), (3, "x"), (1, "y"), (2, "y"), (3, "y")]
    assert [cfg.index_of(cfg.choices_of(i)) for i in range(6)] == list(range(6))
    with pytest.raises(TepadError, match="outside"):
        cfg.get(6)


def test_config_json_round_trip():
    cfg = ConfigSpace()
    axes = [cfg.axis(8), cfg.axis(8)]
    cfg.define_split("s", cfg.axis(64), num_outputs=3)
    cfg.define_reorder("r", axes, "all")
    cfg.define_annotate("a", axes, "try_unroll_vec")
    cfg.define_knob("k", [0, 16])
    for i in (0, 7, len(cfg) - 1):
        e = cfg.get(i)
        d = e.to_json_dict()
        assert d["index"] == i and [x[1] for x in d["entity"]] == ["sp", "re", "an", "ot"]
        back = ConfigEntity.from_json_dict(d)
        assert back == e and back.index == i and back.to_json_dict() == d


def test_fallback_split_takes_the_largest_factors_within_the_limits():
    cfg = FallbackConfigEntity()
    cfg.define_split("t", cfg.axis(128), num_outputs=3)
    cfg.fallback_split("t", [-1, 8, 4])
    cfg.define_split("t", cfg.axis(128), num_outputs=3)      # a second define keeps it
    assert cfg["t"].size == [4, 8, 4]
    cfg = FallbackConfigEntity()
    cfg.define_split("t", cfg.axis(49), num_outputs=3)
    cfg.fallback_split("t", [-1, 8, 4])
    assert cfg["t"].size == [7, 7, 1]
    with pytest.raises(TepadError, match="no factor"):
        cfg.fallback_split("t", [-1, 1, 0])


def test_split_entity_apply_makes_the_axes_of_its_sizes():
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    cfg = ConfigSpace()
    cfg.define_split("t", B.op.axis[0], num_outputs=3)
    assert cfg.space_map["t"].product == 64
    entity = [e for e in cfg.space_map["t"].entities if e.size == [-1, 4, 2]][0]
    axes = entity.apply(s, B, B.op.axis[0])
    assert len(axes) == 3
    import tepad
    f = tepad.lower(s, [A, B])["main"]
    assert "for" in f.script() and f.script().count("for ") == 3


def test_bad_definitions_are_refused():
    cfg = ConfigSpace()
    with pytest.raises(TepadError, match="policy"):
        cfg.define_split("t", cfg.axis(8), policy="nope", num_outputs=2)
    with pytest.raises(TepadError, match="empty"):
        cfg.define_knob("k", [])
    with pytest.raises(TepadError, match="no knob"):
        cfg["missing"]
    with pytest.raises(TepadError, match="annotate"):
        cfg.define_annotate("a", [cfg.axis(4)], "try_bogus")


def test_get_config_outside_a_template_is_the_fallback():
    assert isinstance(autotvm.get_config(), FallbackConfigEntity)


def _ordered_factorizations(n, parts):
    """Brute force: tuples of ``parts`` positive ints whose product is ``n``."""
    if parts == 1:
        return 1
    return sum(_ordered_factorizations(n // d, parts - 1) for d in range(1, n + 1) if n % d == 0)


@given(n=st.integers(1, 360), parts=st.integers(1, 4))
def test_factor_split_is_every_ordered_factorization(n, parts):
    cfg = ConfigSpace()
    cfg.define_split("t", cfg.axis(n), policy="factors", num_outputs=parts)
    entities = cfg.space_map["t"].entities
    assert len(entities) == _ordered_factorizations(n, parts)
    for e in entities:
        assert e.size[0] == -1 and len(e.size) == parts
        assert n % math.prod(e.size[1:]) == 0
    assert len({tuple(e.size) for e in entities}) == len(entities)


@given(n=st.integers(2, 300))
def test_power2_and_verbose_splits_keep_inner_products_within_the_axis(n):
    cfg = ConfigSpace()
    cfg.define_split("p", cfg.axis(n), policy="power2", num_outputs=3)
    cfg.define_split("v", cfg.axis(n), policy="verbose", num_outputs=3)
    for name in ("p", "v"):
        for e in cfg.space_map[name].entities:
            inner = math.prod(e.size[1:])
            assert inner <= n and (inner < n or n % inner == 0)
    # verbose holds every factors entity and every power2 entity
    f = ConfigSpace()
    f.define_split("f", f.axis(n), policy="factors", num_outputs=3)
    verbose = {tuple(e.size) for e in cfg.space_map["v"].entities}
    assert {tuple(e.size) for e in f.space_map["f"].entities} <= verbose
    assert {tuple(e.size) for e in cfg.space_map["p"].entities} <= verbose
