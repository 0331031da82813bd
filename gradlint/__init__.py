"""gradlint: find, fix and prove gradient-management bugs in PyTorch training loops."""

__version__ = "0.1.0"
