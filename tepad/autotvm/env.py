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
