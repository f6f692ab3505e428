"""TVM's ``topi.image``: ``resize1d`` and ``resize2d``."""
from .resize import resize1d, resize2d

__all__ = ["resize1d", "resize2d"]
