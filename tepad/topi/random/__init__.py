"""TVM's ``topi.random``: a splittable counter-based pseudorandom generator (Threefry-4x64
with 20 rounds) and distributions drawn from it (``uniform``, ``normal``, ``multinomial``).

The generator state is a ``uint64`` tensor of 10 words, laid out as TVM lays it out (so a
state TVM produced continues the same way here):

    words 0-3: key | 4-5: path | 6-7: counter (only word 7 counts) | 8-9: the path bit that
    the next split sets (a 128-bit one-hot mask; zero when the path is full)

``threefry_generate`` hashes (key, path, counter + i) for each block ``i`` of four outputs;
``threefry_split`` extends the path by a 0 (left) or 1 (right) bit, or, when the path is
full, hashes the state into a fresh key. The kernels are extern stages; each op returns
``(new_state, values)`` and leaves its input state unchanged (pass the new state on)."""
from .kernel import (multinomial, normal, threefry_generate, threefry_split,
                     threefry_test_wrapping, uniform)

__all__ = ["threefry_generate", "threefry_split", "threefry_test_wrapping", "uniform",
           "normal", "multinomial"]
