"""Fact containers that notice changes, and the simplification memo keyed by the facts.

An Analyzer's facts live in ``TrackedDict`` / ``TrackedList`` containers: every mutation,
whoever makes it (``bind``, ``constraint_scope``, ``set_const_bound``, ...), calls the
analyzer's ``_touch``, which forgets its *context id*. The context id
(``context_id``) is computed from the *contents* of the facts: two analyzers (or one
analyzer at two times) with exactly the same facts get the same id, and different facts get
different ids; ids are never reused for other facts.

``MEMO`` maps ``(context id, flags)`` to a table of results. Since a context id names one
exact set of facts, a cached result is used exactly when the facts are the same again:
leaving a ``constraint_scope`` returns to the outer facts, so results computed inside the
scope are never seen outside it, while the next Simplify pass over the same loop nest (with
the same facts) reuses them.
"""
from __future__ import annotations

import itertools

from .canonical import Key

_IDS = itertools.count(1)
_CONTEXT_IDS: dict = {}      # signature of the facts -> context id
_MAX_CONTEXT_IDS = 10000


def _keys(t):
    return tuple(Key(x) for x in t)


# the signature of one fact, per fact container (vars by identity, expressions by structure)
def bound_sig(v, b):
    return (v, b)


def expr_sig(v, e):
    return (v, Key(e))


def exprs_sig(v, t):
    return (v, _keys(t))


def range_sig(v, r):
    return (v, Key(r.min_value), Key(r.max_value))


def _sig(ana):
    """The facts of ``ana`` as a hashable value. Each container keeps the signatures of its
    facts as they are set, and their frozenset until it changes: a new fact costs its own
    signature, not the signatures of every fact in scope again (a 50-stage pipeline binds
    some 300 loop vars, and its Simplify passes enter a new scope at every loop)."""
    return (ana._bounds.frozen(), ana._subst.frozen(), ana._sym_lo.frozen(),
            ana._sym_hi.frozen(), ana._ranges.frozen(), _keys(ana._facts))


def context_id(ana) -> int:
    """An int naming the current facts of ``ana``: equal ids exactly for equal facts."""
    sig = _sig(ana)
    cid = _CONTEXT_IDS.get(sig)
    if cid is None:
        if len(_CONTEXT_IDS) >= _MAX_CONTEXT_IDS:
            _CONTEXT_IDS.clear()        # ids are never reused, so old tables just go stale
        cid = _CONTEXT_IDS[sig] = next(_IDS)
    return cid


class TrackedDict(dict):
    """A dict that gives ``owner`` a new version on every mutation, and keeps the signature
    of each entry (``sig(key, value)``) and their frozenset (``frozen``) up to date."""

    __slots__ = ("_owner", "_sigfn", "_isig", "_frozen")

    def __init__(self, owner, sig, data=(), isig=None, frozen=None):
        super().__init__(data)
        self._owner = owner
        self._sigfn = sig
        self._isig = dict(isig) if isig is not None else \
            {k: sig(k, v) for k, v in self.items()}
        self._frozen = frozen if isig is not None else None

    def state(self):
        """What ``TrackedDict(owner, sig, *state)`` rebuilds this dict from."""
        return dict(self), dict(self._isig), self._frozen

    def frozen(self) -> frozenset:
        """The frozenset of the entries' signatures."""
        f = self._frozen
        if f is None:
            f = self._frozen = frozenset(self._isig.values())
        return f

    def __setitem__(self, k, v):
        super().__setitem__(k, v)
        self._isig[k] = self._sigfn(k, v)
        self._frozen = None
        self._owner._touch()

    def __delitem__(self, k):
        super().__delitem__(k)
        del self._isig[k]
        self._frozen = None
        self._owner._touch()

    def pop(self, k, *default):
        if k not in self:
            return super().pop(k, *default)     # nothing changes (or KeyError)
        r = super().pop(k)
        del self._isig[k]
        self._frozen = None
        self._owner._touch()
        return r

    def popitem(self):
        k, v = super().popitem()
        del self._isig[k]
        self._frozen = None
        self._owner._touch()
        return k, v

    def setdefault(self, k, default=None):
        if k in self:
            return self[k]
        self[k] = default
        return default

    def update(self, *args, **kw):
        for k, v in dict(*args, **kw).items():
            self[k] = v

    def clear(self):
        super().clear()
        self._isig.clear()
        self._frozen = None
        self._owner._touch()

    def __ior__(self, other):
        self.update(other)
        return self


class TrackedList(list):
    """A list that gives ``owner`` a new version on every mutation."""

    __slots__ = ("_owner",)

    def __init__(self, owner, *args):
        super().__init__(*args)
        self._owner = owner


def _tracked(name):
    base = getattr(list, name)

    def method(self, *args, **kw):
        r = base(self, *args, **kw)
        self._owner._touch()
        return r
    method.__name__ = name
    return method


for _name in ("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
              "__setitem__", "__delitem__", "__iadd__", "__imul__"):
    setattr(TrackedList, _name, _tracked(_name))


class ContextMemo:
    """Results keyed by ``(context, Key(expr))``; ``context`` is any hashable.

    Holds at most ``max_contexts`` contexts, at most ``max_entries`` results per context and
    about ``max_total`` results in all (the oldest contexts are dropped first), so memory
    stays bounded. A lowering passes the same loop nest through Simplify several times, each
    loop, let and guard a context of its own: the memo must hold a whole function's contexts
    for the later passes to find the earlier ones' results (a 50-stage pipeline has ~750;
    with 256 the second and third passes redid all of the first's work).
    """

    def __init__(self, max_contexts: int = 4096, max_entries: int = 5000,
                 max_total: int = 300_000):
        self.max_contexts = max_contexts
        self.max_entries = max_entries
        self.max_total = max_total
        self._tables: dict = {}
        self._created = 0

    def _drop_oldest_half(self):
        for k in list(self._tables)[: max(1, len(self._tables) // 2)]:
            self._tables.pop(k, None)

    def table(self, context) -> dict:
        t = self._tables.get(context)
        if t is None:
            if len(self._tables) >= self.max_contexts:
                self._drop_oldest_half()
            self._created += 1
            if self._created % 256 == 0 and \
                    sum(len(x) for x in self._tables.values()) > self.max_total:
                self._drop_oldest_half()
            t = self._tables[context] = {}
        elif len(t) >= self.max_entries:
            t.clear()
        return t

    def clear(self):
        self._tables.clear()


MEMO = ContextMemo()


__all__ = ["TrackedDict", "TrackedList", "ContextMemo", "MEMO", "context_id"]
