"""TVM 0.6's top-level ``topi`` package, for programs that ``import topi`` (TVM 0.7 moved it
to ``tvm.topi``): this package *is* ``tepad.topi``. ``import topi`` warns once
(DeprecationWarning) and binds ``tepad.topi``; ``import topi.nn`` / ``from topi.nn import
conv2d`` give the very modules of ``tepad.topi.nn`` (a finder maps every ``topi.X`` to
``tepad.topi.X``, so classes and registries are shared, never loaded twice).

tepad installs this shim as the distribution's second top-level package. A separate ``topi``
(TVM 0.6 installed from source) would be shadowed by, or shadow, this one depending on the
order on ``sys.path``: with TVM 0.6 installed, ``import tepad.topi as topi`` instead.
"""
import importlib
import importlib.abc
import importlib.util
import sys

from tepad.errors import warn_deprecated

warn_deprecated("import topi", "tvm.topi (import tepad.topi as topi)")


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``topi.X`` as the already importable ``tepad.topi.X``."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("topi."):
            return None
        if importlib.util.find_spec("tepad." + fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        return importlib.import_module("tepad." + spec.name)

    def exec_module(self, module):
        pass                      # tepad.topi.X ran when it was imported


if not any(isinstance(f, _Alias) for f in sys.meta_path):
    sys.meta_path.insert(0, _Alias())

sys.modules[__name__] = importlib.import_module("tepad.topi")
