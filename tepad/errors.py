"""Error types. ``TepadError`` is for user mistakes; ``InternalError`` means a tepad bug."""


class TepadError(ValueError):
    """A user mistake: the message names the stage/tensor/axis and says what would be valid."""


class InternalError(RuntimeError):
    """An invariant of tepad itself was broken. This is a bug in tepad, not in the user's code."""
