"""TVM's ``topi.image``: ``resize1d``, ``resize2d``, ``resize3d`` and the older ``resize``;
``affine_grid``."""
from .grid import affine_grid
from .resize import resize, resize1d, resize2d, resize3d

__all__ = ["resize", "resize1d", "resize2d", "resize3d", "affine_grid"]
