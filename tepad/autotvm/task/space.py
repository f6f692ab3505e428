"""Configuration spaces of schedule templates (TVM's ``autotvm.task.space``).

A template is called twice over: once with a ``ConfigSpace``, whose ``define_*`` calls collect
the knobs, and then once per candidate with a ``ConfigEntity``, which ignores the ``define_*``
calls and answers ``cfg[name]`` with one fixed choice per knob. Enumeration orders and counts
are TVM's, so a space's length and ``space.get(i)`` agree with TVM for the same template.
"""
from __future__ import annotations

import itertools
import math
from collections import OrderedDict

import numpy as np

from ...errors import TepadError
from ...tensor.operation import thread_axis
from ...tir.itervar import IterVar
from ...tir.expr import IntImm, FloatImm


class InstantiationError(TepadError):
    """A template refused a config (``cfg.raise_error``): the candidate is not built."""


# ---------------------------------------------------------------------------------------------
# axes
# ---------------------------------------------------------------------------------------------
class VirtualAxis:
    """An axis of known length standing for an IterVar (or a plain int) in a space definition."""

    _count = 0

    def __init__(self, var, name=None):
        if name is None:
            name = f"axis_{VirtualAxis._count}"
            VirtualAxis._count += 1
        self.name = name
        if isinstance(var, bool):
            raise TepadError(f"axis: expected an int or an IterVar, got {var!r}")
        if isinstance(var, int):
            self.length = var
        elif isinstance(var, IterVar):
            self.name = var.var.name
            ext = getattr(var.dom, "extent", None) if var.dom is not None else None
            # TVM reads it with get_const_int, so a plain int extent (a program that sets
            # ``dom`` of a fused axis itself) counts too
            if isinstance(ext, IntImm):
                self.length = int(ext.value)
            elif isinstance(ext, int) and not isinstance(ext, bool):
                self.length = ext
            else:
                self.length = -1
        elif isinstance(var, VirtualAxis):
            self.length = var.length
        else:
            raise TepadError(f"axis: expected an int or an IterVar, got {type(var).__name__}")

    def __repr__(self):
        return f"vaxis({self.name})"


def get_factors(n: int) -> list:
    """Every divisor of ``n``, ascending."""
    out = set()
    for i in range(1, math.isqrt(n) + 1):
        if n % i == 0:
            out.update((i, n // i))
    return sorted(out)


def get_pow2s(n: int) -> list:
    """The powers of two ``<= n``, ascending."""
    return [1 << x for x in range(int(math.floor(math.log2(n))) + 1)] if n >= 1 else []


# ---------------------------------------------------------------------------------------------
# knob spaces and their entities
# ---------------------------------------------------------------------------------------------
class TransformSpace:
    """One knob: the list of its possible choices (entities)."""

    num_output = 0

    def __init__(self):
        self.entities = []

    def __len__(self):
        return len(self.entities)

    def __getitem__(self, index):
        return self.entities[index]


class SplitEntity:
    """Split one axis into ``len(size)`` axes; ``size[0] == -1`` is "whatever is left"."""

    def __init__(self, size):
        self.size = list(size)

    def apply(self, sch, op, axis):
        """Split ``axis`` of ``sch[op]`` by the inner sizes, outermost first; returns the
        ``len(size)`` new axes, outermost first."""
        out = []
        for i in range(1, len(self.size)):
            outer, axis = sch[op].split(axis, math.prod(self.size[i:]))
            out.append(outer)
        return out + [axis]

    def __eq__(self, other):
        return isinstance(other, SplitEntity) and self.size == other.size

    def __hash__(self):
        return hash(tuple(self.size))

    def __repr__(self):
        return str(self.size)


class SplitSpace(TransformSpace):
    """Every way to split an axis into ``num_outputs`` axes under a policy: ``factors``
    (divisors, no tail), ``power2`` (powers of two, tails allowed), ``verbose`` (both) or
    ``candidate`` (given sizes); optional ``max_factor``, ``filter``, ``no_tail``."""

    def __init__(self, axes, policy, **kwargs):
        super().__init__()
        axis = axes[0]
        self.policy = policy
        self.product = axis.length
        self.num_output = kwargs.get("num_outputs", 0)
        if self.num_output < 1:
            raise TepadError("define_split: num_outputs must be >= 1 (the number of axes the "
                             f"split makes), got {self.num_output!r}")
        max_factor = kwargs.get("max_factor", 1 << 31)
        if policy == "candidate":
            for size in kwargs["candidate"]:
                if len(size) != self.num_output:
                    raise TepadError(f"define_split: candidate {size} does not have "
                                     f"num_outputs={self.num_output} sizes")
                self.entities.append(SplitEntity(size))
        else:
            if self.product < 1:
                raise TepadError(f"define_split: axis {axis.name} has no constant length; "
                                 "give policy='candidate' with explicit sizes")
            if policy == "factors":
                factors = get_factors(self.product)
            elif policy == "power2":
                factors = get_pow2s(self.product)
            elif policy == "verbose":
                factors = sorted(set(get_factors(self.product)) | set(get_pow2s(self.product)))
            else:
                raise TepadError(f"define_split: unknown policy {policy!r}; use 'factors', "
                                 "'power2', 'verbose' or 'candidate'")
            self.factors = [f for f in factors if f <= max_factor]
            no_tail = kwargs.get("no_tail", policy == "factors")
            for inner in itertools.product(self.factors, repeat=self.num_output - 1):
                prod = math.prod(inner)
                if prod > self.product:
                    continue
                if self.product % prod == 0 or (not no_tail and prod < self.product):
                    self.entities.append(SplitEntity([-1] + list(inner[::-1])))
        fil = kwargs.get("filter")
        if fil is not None:
            self.entities = [e for e in self.entities if fil(e)]
        if not self.entities:
            raise TepadError(f"define_split: no split of {axis.name} (length {self.product}) "
                             f"passes policy {policy!r} and the filter")

    def __repr__(self):
        return (f"Split(policy={self.policy}, product={self.product}, "
                f"num_outputs={self.num_output}) len={len(self)}")


class ReorderEntity:
    """A permutation of a list of axes."""

    def __init__(self, perm):
        self.perm = list(perm)

    def apply(self, sch, op, axes):
        """Reorder ``axes`` of ``sch[op]`` by the permutation; returns the new order."""
        order = [axes[i] for i in self.perm if i < len(axes)]
        sch[op].reorder(*order)
        return order

    def __eq__(self, other):
        return isinstance(other, ReorderEntity) and self.perm == other.perm

    def __hash__(self):
        return hash(tuple(self.perm))

    def __repr__(self):
        return str(self.perm)


class ReorderSpace(TransformSpace):
    """Orders of a list of axes: ``identity``, ``all`` (every permutation), ``interval_all``
    (every permutation of ``interval=(begin, end)``) or ``candidate`` (lists of the axes)."""

    def __init__(self, axes, policy, **kwargs):
        super().__init__()
        self.policy = policy
        self.num_output = len(axes)
        n = len(axes)
        if policy == "identity":
            self.entities = [ReorderEntity(range(n))]
        elif policy == "all":
            self.entities = [ReorderEntity(p) for p in itertools.permutations(range(n))]
        elif policy == "interval_all":
            begin, end = kwargs["interval"]
            self.entities = [ReorderEntity(tuple(range(begin)) + p + tuple(range(end, n)))
                             for p in itertools.permutations(range(begin, end))]
        elif policy == "candidate":
            self._axes = list(axes)
            self.entities = [ReorderEntity([self._index(x) for x in c])
                             for c in kwargs["candidate"]]
        else:
            raise TepadError(f"define_reorder: unknown policy {policy!r}; use 'identity', "
                             "'all', 'interval_all' or 'candidate'")

    def _index(self, axis):
        for i, a in enumerate(self._axes):
            if a is axis or getattr(a, "name", None) == getattr(axis, "name", object()):
                return i
        raise TepadError(f"define_reorder: candidate axis {axis!r} is not one of the axes given")

    def __repr__(self):
        return f"Reorder(policy={self.policy}) len={len(self)}"


_ANN_CODES = {"none": 0, "vec": 1, "unroll": 2, "blockIdx.x": 3, "blockIdx.y": 4,
              "blockIdx.z": 5, "threadIdx.x": 6, "threadIdx.y": 7, "threadIdx.z": 8,
              "vthread": 9, "fuse": 10}


class AnnotateEntity:
    """One annotation per axis: ``none``, ``unroll``, ``vec`` (or a thread tag, ``fuse``)."""

    def __init__(self, anns):
        self.anns = list(anns)

    def apply(self, sch, op, axes, axis_lens=None, max_unroll=None, vec_size=None, cfg=None,
              source=None):
        """Annotate ``axes`` of ``sch[op]``; ``max_unroll`` / ``vec_size`` refuse (through
        ``cfg.raise_error``) unrolling a longer axis / vectorizing another length."""
        axes = list(axes)
        if source is not None:
            for srcs, to in zip(source, self.anns):
                for t in srcs:
                    sch[t].compute_at(sch[op], axes[to])
            return axes
        for i, ann in enumerate(self.anns):
            if ann == "none":
                continue
            if ann == "unroll":
                if max_unroll and axis_lens and axis_lens[i] > max_unroll and cfg is not None:
                    cfg.raise_error("Too large factor for unrolling")
                sch[op].unroll(axes[i])
            elif ann == "vec":
                if vec_size and axis_lens and axis_lens[i] not in vec_size and cfg is not None:
                    cfg.raise_error("Wrong size of lanes in vectorization")
                sch[op].vectorize(axes[i])
            elif ann == "fuse":
                axes[i + 1] = sch[op].fuse(axes[i], axes[i + 1])
            else:
                sch[op].bind(axes[i], thread_axis(ann))
        return axes

    def __eq__(self, other):
        return isinstance(other, AnnotateEntity) and self.anns == other.anns

    def __hash__(self):
        return hash(tuple(map(str, self.anns)))

    def __repr__(self):
        return str(self.anns)


class AnnotateSpace(TransformSpace):
    """Annotations of a list of axes. Policies are ``_``-joined choices among ``none``/``try``,
    ``unroll`` and ``vec`` (``try_unroll``, ``try_vec``, ``try_unroll_vec``, ``unroll``, ...):
    every axis takes one of them, at most one axis ``vec``; or ``locate_cache``
    (``num_anchor=``)."""

    def __init__(self, axes, policy, **kwargs):
        super().__init__()
        self.policy = policy
        self.num_output = len(axes)
        n = len(axes)
        if policy == "locate_cache":
            self.entities = [AnnotateEntity(c) for c in
                             itertools.combinations(range(n), kwargs["num_anchor"])]
            return
        choices = policy.replace("try", "none").split("_")
        bad = [c for c in choices if c not in ("none", "unroll", "vec")]
        if bad:
            raise TepadError(f"define_annotate: unknown policy {policy!r}; use 'try_unroll', "
                             "'try_vec', 'try_unroll_vec', 'unroll', 'vec' or 'locate_cache'")
        for combo in itertools.product(choices, repeat=n):
            if combo.count("vec") <= 1:
                self.entities.append(AnnotateEntity(combo))

    def __repr__(self):
        return f"Annotate(policy={self.policy}) len={len(self)}"


class OtherOptionEntity:
    """One value of a ``define_knob`` knob (``.val``)."""

    def __init__(self, val):
        self.val = val

    def __eq__(self, other):
        return isinstance(other, OtherOptionEntity) and self.val == other.val

    def __hash__(self):
        return hash(repr(self.val))

    def __repr__(self):
        return str(self.val)


class OtherOptionSpace(TransformSpace):
    """A knob with explicit candidate values."""

    def __init__(self, axes, policy, **kwargs):
        super().__init__()
        candidate = list(kwargs["candidate"])
        if not candidate:
            raise TepadError("define_knob: the candidate list is empty")
        self.entities = [OtherOptionEntity(v) for v in candidate]

    def __repr__(self):
        return f"OtherOption({self.entities}) len={len(self)}"


# ---------------------------------------------------------------------------------------------
# spaces and configs
# ---------------------------------------------------------------------------------------------
class ConfigSpace:
    """The knobs a template defines; ``len(space)`` is the product of their sizes and
    ``space.get(i)`` the ``i``-th config (the first knob varies fastest, as in TVM)."""

    def __init__(self):
        self.space_map = OrderedDict()
        self._entity_map = OrderedDict()
        self._collect = True
        self.errors = []
        self.code_hash = None
        self.flop = 0.0
        self.cost = None
        self.is_fallback = False

    @staticmethod
    def axis(var):
        """A virtual axis of an IterVar's length (or of the int ``var``)."""
        return VirtualAxis(var)

    reduce_axis = axis

    def define_split(self, name, axis, policy="factors", **kwargs):
        """Knob ``name``: the ways to split ``axis`` (see ``SplitSpace``)."""
        if policy == "candidate" and "num_outputs" not in kwargs and kwargs.get("candidate"):
            kwargs["num_outputs"] = len(kwargs["candidate"][0])
        return self._add(SplitSpace, name, [axis], policy, **kwargs)

    def define_reorder(self, name, axes, policy, **kwargs):
        """Knob ``name``: orders of ``axes`` (see ``ReorderSpace``)."""
        return self._add(ReorderSpace, name, axes, policy, **kwargs)

    def define_annotate(self, name, axes, policy, **kwargs):
        """Knob ``name``: annotations of ``axes`` (see ``AnnotateSpace``)."""
        return self._add(AnnotateSpace, name, axes, policy, **kwargs)

    def define_knob(self, name, candidate):
        """Knob ``name``: one of the values in ``candidate``."""
        return self._add(OtherOptionSpace, name, [], None, candidate=candidate)

    def add_flop(self, flop):
        """Add ``flop`` floating-point operations to the task's count (for GFLOPS)."""
        if isinstance(flop, (IntImm, FloatImm)):
            flop = flop.value
        self.flop += float(flop)

    def raise_error(self, msg):
        """Mark this config invalid (it is recorded as an instantiation error, not built)."""
        self.errors.append(msg)

    def valid(self) -> bool:
        return not self.errors

    def _add(self, space_class, name, axes, policy, **kwargs):
        if not isinstance(name, str):
            raise TepadError(f"knob name must be a string, got {name!r}")
        if not self._collect:
            return None
        if name in self.space_map:
            # a template called again with the same space (e.g. twice in a row) defines the
            # same knobs; the first definition stands
            return self.space_map[name]
        axes = [a if isinstance(a, VirtualAxis) else VirtualAxis(a) for a in axes]
        space = space_class(axes, policy, **kwargs)
        self.space_map[name] = space
        self._entity_map[name] = space[0]
        return space

    def __len__(self):
        return math.prod(len(s) for s in self.space_map.values())

    def get(self, index: int) -> "ConfigEntity":
        """The config number ``index`` in ``[0, len(self))``."""
        index = int(index)
        if not 0 <= index < len(self):
            raise TepadError(f"ConfigSpace.get: index {index} outside [0, {len(self)})")
        entities = OrderedDict()
        t = index
        for name, space in self.space_map.items():
            entities[name] = space[t % len(space)]
            t //= len(space)
        return ConfigEntity(index, self.code_hash, entities, [])

    def knob_sizes(self) -> list:
        """The number of choices of every knob, in definition order."""
        return [len(s) for s in self.space_map.values()]

    def index_of(self, choices) -> int:
        """The index of the config with per-knob choice numbers ``choices``."""
        index, mul = 0, 1
        for c, n in zip(choices, self.knob_sizes()):
            index += int(c) * mul
            mul *= n
        return index

    def choices_of(self, index) -> list:
        """Per-knob choice numbers of config ``index`` (inverse of ``index_of``)."""
        out = []
        for n in self.knob_sizes():
            out.append(index % n)
            index //= n
        return out

    # --- TVM 0.12's index helpers (tepad's space has no constraint filters: every index in
    # [0, len) is a valid config) -------------------------------------------------------------
    @property
    def dims(self) -> list:
        """The number of choices of every knob (TVM's name of ``knob_sizes``)."""
        return self.knob_sizes()

    @property
    def range_length(self) -> int:
        """The number of indices of the space (``len``)."""
        return len(self)

    def subrange_length(self, start: int, end: int) -> int:
        """The number of valid indices in ``[start, end)``."""
        return max(0, min(end, len(self)) - max(start, 0))

    def is_index_valid(self, index: int) -> bool:
        """Whether ``index`` names a config of the space."""
        return 0 <= int(index) < len(self)

    def point2knob(self, point: int) -> list:
        """Per-knob choice numbers of the config at ``point``."""
        return self.choices_of(int(point))

    def knob2point(self, knob) -> int:
        """The index of the config with per-knob choice numbers ``knob``."""
        return self.index_of(knob)

    def get_next_index(self, index: int, n: int = 1, start: int | None = None,
                       end: int | None = None) -> int | None:
        """The index ``n`` valid indices after ``index`` (before it for a negative ``n``)
        inside ``[start, end)``, or None past the ends."""
        lo, hi = (start or 0), (len(self) if end is None else end)
        nxt = int(index) + int(n)
        return nxt if lo <= nxt < hi else None

    def get_rand_index(self, start: int | None = None, end: int | None = None,
                       to_exclude=None) -> int | None:
        """A random index of ``[start, end)`` not in ``to_exclude`` (None when none is
        left)."""
        lo, hi = (start or 0), (len(self) if end is None else end)
        excluded = set(to_exclude or ())
        if hi - lo <= len(excluded):
            left = [i for i in range(lo, hi) if i not in excluded]
            return int(np.random.choice(left)) if left else None
        while True:
            i = int(np.random.randint(lo, hi))
            if i not in excluded:
                return i

    def random_walk(self, point: int) -> int:
        """A neighbour of ``point``: one knob moved to another of its choices."""
        knob = self.point2knob(point)
        movable = [k for k, n in enumerate(self.dims) if n > 1]
        if not movable:
            return int(point)
        k = int(np.random.choice(movable))
        knob[k] = int(np.random.choice([c for c in range(self.dims[k]) if c != knob[k]]))
        return self.knob2point(knob)

    def sample_ints(self, m: int) -> list:
        """``m`` distinct valid indices drawn at random."""
        m = min(int(m), len(self))
        return [int(i) for i in np.random.choice(len(self), m, replace=False)] \
            if len(self) < (1 << 24) else \
            list({int(np.random.randint(0, len(self))) for _ in range(4 * m)})[:m]

    def multi_filter(self, filter):  # noqa: A002 - TVM's parameter name
        """TVM filters the space by ``filter(config)``; tepad's spaces take no filters (a
        template raises ``InstantiationError`` for a config it refuses instead)."""
        raise TepadError("ConfigSpace.multi_filter: tepad's config spaces are not filtered; "
                         "reject a config inside the template with "
                         "cfg.raise_error(...) / InstantiationError")

    def clear_cache(self) -> None:
        """TVM drops its cache of valid indices; tepad keeps none."""

    def __iter__(self):
        return iter(self._entity_map)

    def __getitem__(self, name):
        try:
            return self._entity_map[name]
        except KeyError:
            raise TepadError(f"config has no knob {name!r}; knobs: "
                             f"{list(self._entity_map)}") from None

    def __repr__(self):
        lines = [f"ConfigSpace (len={len(self)}, space_map="]
        for i, (name, space) in enumerate(self.space_map.items()):
            lines.append(f"  {i:2d} {name}: {space}")
        return "\n".join(lines) + "\n)"


class ConfigEntity(ConfigSpace):
    """One config of a space: a fixed entity per knob; ``define_*`` calls are ignored."""

    def __init__(self, index, code_hash, entity_map, constraints=()):
        super().__init__()
        self.index = index
        self._collect = False
        self._entity_map = entity_map
        self._constraints = list(constraints)
        self.code_hash = code_hash

    def get_flatten_feature(self) -> np.ndarray:
        """The knob choices as numbers (split sizes, permutations, one-hot annotations)."""
        fea = []
        for v in self._entity_map.values():
            if isinstance(v, SplitEntity):
                fea.extend(v.size)
            elif isinstance(v, ReorderEntity):
                fea.extend(v.perm)
            elif isinstance(v, AnnotateEntity):
                for ann in v.anns:
                    one = [0] * len(_ANN_CODES)
                    one[_ANN_CODES.get(ann, 0) if isinstance(ann, str) else 0] = 1
                    fea.extend(one)
            elif isinstance(v, OtherOptionEntity):
                fea.append(v.val if isinstance(v.val, (int, float)) else hash(str(v.val)) % 97)
        return np.array(fea, dtype=np.float32)

    def get_other_option(self) -> dict:
        return {k: v.val for k, v in self._entity_map.items()
                if isinstance(v, OtherOptionEntity)}

    def to_json_dict(self) -> dict:
        """TVM's JSON form: ``{"index", "code_hash", "entity": [[name, kind, value], ...]}``
        with kinds ``sp`` (split), ``re`` (reorder), ``an`` (annotate), ``ot`` (knob)."""
        ents = []
        for k, v in self._entity_map.items():
            if isinstance(v, SplitEntity):
                ents.append([k, "sp", list(v.size)])
            elif isinstance(v, ReorderEntity):
                ents.append([k, "re", list(v.perm)])
            elif isinstance(v, AnnotateEntity):
                ents.append([k, "an", list(v.anns)])
            elif isinstance(v, OtherOptionEntity):
                ents.append([k, "ot", v.val])
            else:
                raise TepadError(f"config knob {k!r}: cannot serialize {v!r}")
        return {"index": int(self.index), "code_hash": self.code_hash, "entity": ents}

    @staticmethod
    def from_json_dict(json_dict) -> "ConfigEntity":
        """The config ``to_json_dict`` wrote."""
        kinds = {"sp": SplitEntity, "re": ReorderEntity, "an": AnnotateEntity,
                 "ot": OtherOptionEntity}
        ents = OrderedDict()
        for key, kind, val in json_dict["entity"]:
            if kind not in kinds:
                raise TepadError(f"config knob {key!r}: unknown kind {kind!r}")
            ents[str(key)] = kinds[kind](val)
        return ConfigEntity(json_dict["index"], json_dict.get("code_hash"), ents, [])

    def __eq__(self, other):
        return isinstance(other, ConfigEntity) and \
            self.to_json_dict()["entity"] == other.to_json_dict()["entity"]

    def __hash__(self):
        return hash(str(self.to_json_dict()["entity"]))

    def __repr__(self):
        body = ", ".join(f"({k!r}, {v!r})" for k, v in self._entity_map.items())
        return f"[{body}],{self.code_hash},{self.index}"


class FallbackConfigEntity(ConfigSpace):
    """The config a template gets when no log has one for its workload: it collects the
    space as it goes and answers every knob with its first choice (TVM's fallback)."""

    def __init__(self):
        super().__init__()
        self.is_fallback = True

    def fallback_split(self, name, constraints):
        """Set split knob ``name`` to the largest sizes within ``constraints`` (innermost
        first; ``-1`` is no limit) that divide the axis."""
        space = self.space_map[name]
        if len(constraints) != space.num_output:
            raise TepadError(f"fallback_split({name!r}): {len(constraints)} constraints for "
                             f"{space.num_output} axes")
        limits = [c if c != -1 else float("inf") for c in constraints]
        size = [1] * space.num_output
        now = space.product
        for i in reversed(range(space.num_output)):
            ok = [f for f in get_factors(now) if f <= limits[i]]
            if not ok:
                raise TepadError(f"fallback_split({name!r}): no factor of {now} is <= "
                                 f"{constraints[i]}")
            size[i] = ok[-1]
            now //= ok[-1]
        self._entity_map[name] = SplitEntity(size)

    def fallback_with_reference_log(self, ref_log):
        """TVM's fallback from reference records (``[(MeasureInput, MeasureResult)]``, e.g.
        ``tophub.load_reference_log``): take the record whose split sizes share the most
        factors with this space's axes, mimic its tiling (inner sizes; the outer one is what
        the split leaves) and
        copy its other knobs. An empty ``ref_log`` changes nothing."""
        names = [k for k, v in self.space_map.items() if isinstance(v, SplitSpace)]
        mine = [set(get_factors(self.space_map[k].product)) for k in names]
        best, best_score = None, 0.0
        for inp, _ in ref_log:
            cfg = inp.config
            score = 0.0
            for k, factors in zip(names, mine):
                ent = cfg._entity_map.get(k) if hasattr(cfg, "_entity_map") else None
                if isinstance(ent, SplitEntity) and factors:
                    theirs = set(get_factors(max(1, math.prod(ent.size))))
                    score += len(factors & theirs) / len(factors)
            if score > best_score:
                best, best_score = cfg, score
        if best is None:
            return
        for k in names:
            constraint = list(best._entity_map[k].size)
            constraint[0] = 1           # as TVM: the outer size is what the split leaves
            self.fallback_split(k, constraint)
        for k in self.space_map:
            if k not in names and k in best._entity_map:
                self._entity_map[k] = best._entity_map[k]

    def __setitem__(self, name, entity):
        self._entity_map[name] = entity

    def __repr__(self):
        body = ", ".join(f"({k!r}, {v!r})" for k, v in self._entity_map.items())
        return f"[{body}],{self.code_hash}"
