"""Process-wide utilities every layer may use (it sits just above ``tepad.errors``):

* ``context_stack.ContextStack``: the per-thread stack behind ``with Target(...)`` and
  ``with PassContext(...)``;
* ``deep_stack``: run an entry point on a worker thread with a deep stack, handing it the
  caller's thread-local settings (``carry_thread_local``; every ContextStack is carried);
* ``lru.LRUCache``: a thread-safe cache of at most ``size`` entries, least recently used
  dropped first.
"""
