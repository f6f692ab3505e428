"""Neural-network operators (TVM's ``topi.nn``): pad, pool2d, relu, conv2d_nchw, dense,
softmax. Each is ordinary ``te.compute`` stages named as TVM names them (a padded input is a
``pad_temp`` stage, a pooling result a ``tensor`` stage), so TVM schedules written against
those stages apply unchanged."""
from .conv2d import conv2d_nchw
from .dense import dense
from .elemwise import relu
from .pad import pad
from .pooling import pool2d
from .softmax import softmax

__all__ = ["pad", "pool2d", "relu", "conv2d_nchw", "dense", "softmax"]
