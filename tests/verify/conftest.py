"""Shared helpers for the verify tests."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "verify: runs fixtures on torch in subprocesses (CI runs these; ~1-2 min on 2 cores)"
    )
