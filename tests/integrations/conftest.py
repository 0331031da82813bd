"""Fixtures of the integration tests (formats, pre-commit, language server)."""

from __future__ import annotations

import pytest
from integration_data import ACCUMULATION, CLEAN, CLIP_AFTER_STEP, notebook_json


def pytest_configure(config):
    config.addinivalue_line("markers", "integration: runs real tools (pre-commit, a language client); slower")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A folder with two buggy scripts, a clean one and a buggy notebook; the current folder."""
    (tmp_path / "clip.py").write_text(CLIP_AFTER_STEP)
    (tmp_path / "accum.py").write_text(ACCUMULATION)
    (tmp_path / "clean.py").write_text(CLEAN)
    (tmp_path / "train.ipynb").write_text(notebook_json())
    monkeypatch.chdir(tmp_path)
    return tmp_path
