"""The optional drawing dependency: matplotlib, loaded only when a picture is drawn."""

INSTALL_HINT = ("matplotlib is needed to draw pictures: pip install matplotlib "
                "(or pip install -e '.[viz]' from a tepad checkout)")


class MissingDependency(RuntimeError):
    """An optional package needed for a picture is not installed."""


def require_matplotlib():
    """The ``matplotlib.pyplot`` module on the Agg backend, or ``MissingDependency``."""
    try:
        import matplotlib
    except ImportError:
        raise MissingDependency(INSTALL_HINT) from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    return plt
