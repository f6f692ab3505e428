"""tepad.support.lru.LRUCache: the cache behind the compile, rebuild and simplify caches."""
import threading

from tepad.support.context_stack import ContextStack
from tepad.support.lru import LRUCache


def test_the_least_recently_used_entry_goes_first():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1          # "a" is now the most recent
    c.put("c", 3)
    assert "b" not in c and c.get("a") == 1 and c.get("c") == 3 and len(c) == 2


def test_a_miss_gives_the_default_and_clear_empties():
    c = LRUCache(4)
    assert c.get("x") is None and c.get("x", 7) == 7
    c.put("x", 0)
    assert c.get("x", 7) == 0
    c.clear()
    assert len(c) == 0


def test_a_context_stack_is_per_thread():
    s = ContextStack()
    s.push("outer")
    seen = []
    t = threading.Thread(target=lambda: seen.append(s.top("none")))
    t.start()
    t.join()
    assert seen == ["none"] and s.top() == "outer" and len(s) == 1
    assert s.pop() == "outer" and s.top() is None
