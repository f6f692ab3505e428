"""TVM's ``topi.image``: ``resize1d``, ``resize2d`` and the older ``resize``;
``affine_grid``."""
from .grid import affine_grid
from .resize import resize, resize1d, resize2d

__all__ = ["resize", "resize1d", "resize2d", "affine_grid"]
