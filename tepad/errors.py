"""Error types.

``TepadError`` is for user mistakes; ``InternalError`` means a tepad bug. Both derive from
``TVMError`` (a ``RuntimeError``, TVM's base error), so TVM code catching ``tvm.error.TVMError``
catches them; ``TepadError`` is also a ``ValueError``. Where Python code expects another
built-in type (a wrong argument type is a ``TypeError``), a subclass is both:
``TepadTypeError`` is a ``TepadError`` and a ``TypeError``.
"""


class TVMError(RuntimeError):
    """TVM's base error (``tvm.error.TVMError``): every error tepad raises on purpose is one."""


class TepadError(TVMError, ValueError):
    """A user mistake: the message names the stage/tensor/axis and says what would be valid."""


class TepadTypeError(TepadError, TypeError):
    """A user mistake of type: an argument of the wrong Python type, dtype or count."""


class TepadAttributeError(TepadError, AttributeError):
    """A name that does not exist (``mod.get_function('nope')``), as TVM's AttributeError."""


class InternalError(TVMError):
    """An invariant of tepad itself was broken. This is a bug in tepad, not in the user's code."""


# A kernel's failed check may report a runtime value: its message (an AssertStmt's message
# ``Call(ERROR_VALUE_OP, [StringImm(text), value])``) holds VALUE_MARK where the runtime puts
# the value the kernel recorded.
ERROR_VALUE_OP = "tepad.error_value"
VALUE_MARK = "{value}"


__all__ = ["ERROR_VALUE_OP", "VALUE_MARK", "TVMError", "TepadError", "TepadTypeError", "TepadAttributeError", "InternalError"]
