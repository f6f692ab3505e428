"""TVM's ``topi.sparse``: CSR products (``csrmv``, ``csrmm``, ``dense``) over
``tvm.contrib.sparse`` placeholders, and ``topi.sparse.utils`` (random BSR matrices, the
auto-scheduler's sketch rules for sparse operators)."""
from . import utils
from .products import csrmm, csrmv, dense

__all__ = ["csrmv", "csrmm", "dense", "utils"]
