"""gradlint: find, fix and prove gradient-management bugs in PyTorch training loops."""

__version__ = "0.1.0"


def load_ipython_extension(ipython) -> None:
    """`%load_ext gradlint`: check each cell before it runs (see gradlint.ipython)."""
    from gradlint.ipython import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython) -> None:
    from gradlint.ipython import unload_ipython_extension as unload

    unload(ipython)
