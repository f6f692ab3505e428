"""Measurement databases (TVM's ``autotvm.database``): records keyed by what they measured,
so a tuning run can skip candidates measured before.

``DummyDatabase`` keeps records in a dict in this process; ``RedisDatabase`` keeps them in a
Redis server (the optional package ``redis``; host from ``$TVM_FLEET_HOST``). Keys are
``record.measure_str_key`` of the input; values are encoded records joined by ``$``.
"""
from __future__ import annotations

import os

from .record import decode, encode, measure_str_key


class Database:
    """What a record database does."""

    def load(self, inp, get_all=False):
        """The newest result saved for ``inp`` (all of them, oldest first, with
        ``get_all``), or None."""
        raise NotImplementedError

    def save(self, inp, res, extend=False):
        """Save ``res`` for ``inp``: replacing what was saved, or appended with ``extend``."""
        raise NotImplementedError


def filter_inputs(db, measure_inputs, retry=False) -> tuple:
    """``(partial_results, unsaved)``: per input its saved result or None, and the inputs
    with nothing saved (or, with ``retry``, whose saved result was an error)."""
    partial, unsaved = [], []
    for inp in measure_inputs:
        res = db.load(inp)
        if res is None or (retry and res.error_no != 0):
            unsaved.append(inp)
            partial.append(None)
        else:
            partial.append(res)
    return partial, unsaved


class RedisDatabase(Database):
    """Records in a Redis database ``db_index`` (``REDIS_TEST`` on 127.0.0.1, the others on
    ``$TVM_FLEET_HOST``), port 6379."""

    REDIS_PROD = 15
    REDIS_LOCA = 14
    REDIS_TEST = 13
    REDIS_NIGHT_TEMP = 12
    MAGIC_SPLIT = "$"

    def __init__(self, db_index=REDIS_PROD):
        try:
            import redis        # optional: only this database needs it
        except ImportError as err:
            raise ImportError("RedisDatabase needs the optional package redis (pip install "
                              "redis) and a Redis server; DummyDatabase keeps records in "
                              "memory instead") from err
        host = "127.0.0.1" if db_index == RedisDatabase.REDIS_TEST else \
            os.environ.get("TVM_FLEET_HOST")
        self.db = redis.StrictRedis(host=host, port=6379, db=db_index)
        self.db_index = db_index

    def set(self, key, value):
        self.db.set(key, value)

    def get(self, key):
        value = self.db.get(key)
        return value.decode() if isinstance(value, bytes) else value

    def _keys(self):
        return [k.decode() if isinstance(k, bytes) else k for k in self.db.keys()]

    def _records(self, value) -> list:
        return [r for r in (decode(x) for x in value.split(self.MAGIC_SPLIT)) if r is not None]

    def load(self, inp, get_all=False):
        value = self.get(measure_str_key(inp))
        if value is None:
            return None
        results = [res for _, res in self._records(value)]
        if get_all:
            return results
        return max(results, key=lambda r: r.timestamp) if results else None

    def save(self, inp, res, extend=False):
        key = measure_str_key(inp)
        value = self.get(key)
        line = encode(inp, res)
        if extend and value is not None:
            line = self.MAGIC_SPLIT.join(value.split(self.MAGIC_SPLIT) + [line])
        self.set(key, line)

    def filter(self, func) -> list:
        """``(input, newest result)`` of every saved input for which ``func(input,
        results)`` is true (``results``: all its saved results)."""
        out = []
        for key in self._keys():
            records = self._records(self.get(key))
            if not records:
                continue
            inps, results = zip(*records)
            if func(inps[0], results):
                out.append((inps[0], max(results, key=lambda r: r.timestamp)))
        return out

    def flush(self):
        self.db.flushdb()


class DummyDatabase(RedisDatabase):
    """A :class:`RedisDatabase` whose store is a dict in this process (for tests and
    single-process tuning)."""

    def __init__(self):             # noqa: D107 -- no server
        self.db = {}
        self.db_index = None

    def set(self, key, value):
        self.db[key] = value

    def get(self, key):
        return self.db.get(key)

    def _keys(self):
        return list(self.db)

    def flush(self):
        self.db = {}


__all__ = ["Database", "DummyDatabase", "RedisDatabase", "filter_inputs"]
