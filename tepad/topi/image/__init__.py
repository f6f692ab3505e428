"""TVM's ``topi.image``: ``resize1d``, ``resize2d`` and the older ``resize``."""
from .resize import resize, resize1d, resize2d

__all__ = ["resize", "resize1d", "resize2d"]
