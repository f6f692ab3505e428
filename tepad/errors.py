"""Error types.

``TepadError`` is for user mistakes; ``InternalError`` means a tepad bug. Both derive from
``TVMError`` (a ``RuntimeError``, TVM's base error), so TVM code catching ``tvm.error.TVMError``
catches them; ``TepadError`` is also a ``ValueError``. Where Python code expects another
built-in type (a wrong argument type is a ``TypeError``), a subclass is both:
``TepadTypeError`` is a ``TepadError`` and a ``TypeError`` (``TepadAttributeError``,
``TepadIndexError`` likewise).
"""
import warnings

from . import config

DEBUG_ENV = config.DEBUG


def debug_tracebacks() -> bool:
    """Whether ``TEPAD_DEBUG`` asks for full tracebacks: a ``TepadError`` raised while lowering
    or building then keeps the frames inside tepad (and the exceptions it was raised from);
    otherwise it reaches the caller from the public entry point (``tepad.lower``,
    ``tepad.build``), with the message and nothing of tepad's internals."""
    return config.debug_tracebacks()


class TVMError(RuntimeError):
    """TVM's base error (``tvm.error.TVMError``): every error tepad raises on purpose is one."""


class TepadError(TVMError, ValueError):
    """A user mistake: the message names the stage/tensor/axis and says what would be valid."""


class TepadTypeError(TepadError, TypeError):
    """A user mistake of type: an argument of the wrong Python type, dtype or count."""


class TepadAttributeError(TepadError, AttributeError):
    """A name that does not exist (``mod.get_function('nope')``), as TVM's AttributeError."""


class TepadIndexError(TepadError, IndexError):
    """An index out of range (``op.axis[5]`` of a 2-d compute), as Python's IndexError."""


class TepadWarning(UserWarning):
    """Something tepad accepts but handles in a weaker way than asked (the message says how)."""


class InternalError(TVMError):
    """An invariant of tepad itself was broken. This is a bug in tepad, not in the user's code."""


# A kernel's failed check may report a runtime value: its message (an AssertStmt's message
# ``Call(ERROR_VALUE_OP, [StringImm(text), value])``) holds VALUE_MARK where the runtime puts
# the value the kernel recorded.
ERROR_VALUE_OP = "tepad.error_value"
VALUE_MARK = "{value}"


_WARNED: set = set()


def warn_deprecated(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn once per process that TVM's older name ``old`` is spelled ``new`` now (a
    ``DeprecationWarning``, as TVM gave for the names it kept as aliases); the old name then
    works as the new one."""
    if old in _WARNED:
        return
    _WARNED.add(old)
    warnings.warn(f"{old} is a deprecated TVM name; use {new}", DeprecationWarning,
                  stacklevel=stacklevel)


__all__ = ["ERROR_VALUE_OP", "VALUE_MARK", "warn_deprecated", "debug_tracebacks", "DEBUG_ENV", "TVMError",
           "TepadError", "TepadTypeError", "TepadAttributeError", "TepadIndexError", "TepadWarning",
           "InternalError"]
