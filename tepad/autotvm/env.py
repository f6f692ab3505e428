"""TVM's ``autotvm.env``: global tuning switches (kept for scripts that set them)."""


class AutotvmGlobalScope:
    current = None

    def __init__(self):
        self._old = AutotvmGlobalScope.current
        AutotvmGlobalScope.current = self
        self.cuda_target_arch = None
        self.in_tuning = False
        self.silent = False


GLOBAL_SCOPE = AutotvmGlobalScope()


def reset_global_scope(global_scope):
    """Make ``global_scope`` (an ``AutotvmGlobalScope``) the current one; returns it."""
    global GLOBAL_SCOPE
    AutotvmGlobalScope.current = global_scope
    GLOBAL_SCOPE = global_scope
    return global_scope
