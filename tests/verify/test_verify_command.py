"""The click command's contract: no torch at import, exit codes, json, missing torch."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from gradlint.verify import command

from conftest import REPO


def test_importing_the_command_imports_no_torch():
    code = (
        "import sys, gradlint.verify.command, gradlint.verify.harness; "
        "print(sorted(m for m in ('torch', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_torch_says_how_to_install_and_exits_2(monkeypatch):
    monkeypatch.setattr(command, "torch_version", lambda: None)
    result = CliRunner().invoke(command.verify, ["GL201"])
    assert result.exit_code == 2
    assert "pip install 'torch-gradlint[verify]'" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_unknown_code_is_a_usage_error(monkeypatch):
    monkeypatch.setattr(command, "torch_version", lambda: "test")
    result = CliRunner().invoke(command.verify, ["GL999"])
    assert result.exit_code == 2
    assert "GL999" in result.output


@pytest.mark.verify
def test_json_output_and_exit_0():
    pytest.importorskip("torch")
    result = CliRunner().invoke(command.verify, ["GL201", "--format", "json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["passed"] is True
    (rule,) = payload["rules"]
    assert rule["code"] == "GL201" and rule["verdict"] == "pass"
    assert rule["details"]["N"] == 4 and rule["details"]["max_rel_error"] <= 1e-5
