"""`[tool.gradlint]` in the nearest pyproject.toml: select, ignore, per-file-ignores, exclude, errors."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent / "cli"))
from training_scripts import (  # noqa: E402
    ACCUM_LINE,
    ACCUM_NOT_DIVIDED,
    CLIP_AFTER_STEP,
    TWO_BUGS,
)

LOCATION = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):\d+: (?P<code>GL\d{3})")


def gradlint(*args: str, input: str | None = None):
    from gradlint.cli import main

    result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=True)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.stderr
    return result


def found(result) -> set[tuple[str, str]]:
    return {(m["path"], m["code"]) for m in map(LOCATION.match, result.stdout.splitlines()) if m}


def write(folder: Path, relative: str, text: str) -> Path:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """proj/ with train scripts in several places; the test writes proj/pyproject.toml."""
    root = tmp_path / "proj"
    write(root, "train.py", TWO_BUGS)  # GL201 + GL101
    write(root, "scripts/finetune.py", ACCUM_NOT_DIVIDED)  # GL201
    write(root, "scripts/legacy/old_train.py", CLIP_AFTER_STEP)  # GL101
    write(root, "src/pkg/loop.py", CLIP_AFTER_STEP)  # GL101
    monkeypatch.chdir(tmp_path)
    return root


def pyproject(root: Path, body: str) -> None:
    write(root, "pyproject.toml", '[project]\nname = "proj"\nversion = "0.1"\n\n' + body)


ALL_FOUND = {
    ("proj/train.py", "GL201"), ("proj/train.py", "GL101"),
    ("proj/scripts/finetune.py", "GL201"),
    ("proj/scripts/legacy/old_train.py", "GL101"),
    ("proj/src/pkg/loop.py", "GL101"),
}


def test_no_config_reports_everything(project):
    pyproject(project, "[tool.ruff]\nline-length = 100\n")
    assert found(gradlint("check", "--format", "concise", "proj")) == ALL_FOUND


def test_select(project):
    pyproject(project, '[tool.gradlint]\nselect = ["GL2"]\n')
    result = gradlint("check", "--format", "concise", "proj")
    assert found(result) == {("proj/train.py", "GL201"), ("proj/scripts/finetune.py", "GL201")}


def test_ignore(project):
    pyproject(project, '[tool.gradlint]\nignore = ["GL101"]\n')
    result = gradlint("check", "--format", "concise", "proj")
    assert found(result) == {("proj/train.py", "GL201"), ("proj/scripts/finetune.py", "GL201")}


def test_command_line_select_overrides_config_select(project):
    pyproject(project, '[tool.gradlint]\nselect = ["GL2"]\n')
    result = gradlint("check", "--format", "concise", "--select", "GL101", "proj")
    assert {code for _, code in found(result)} == {"GL101"}


def test_command_line_ignore_adds_to_config_ignore(project):
    pyproject(project, '[tool.gradlint]\nignore = ["GL101"]\n')
    result = gradlint("check", "--format", "concise", "--ignore", "GL201", "proj")
    assert (result.exit_code, found(result)) == (0, set())


def test_per_file_ignores_globs(project):
    pyproject(
        project,
        '[tool.gradlint]\n'
        '[tool.gradlint.per-file-ignores]\n'
        '"scripts/*.py" = ["GL201"]\n'
        '"scripts/legacy/**" = ["GL1"]\n'
        '"loop.py" = ["GL101"]\n',
    )
    result = gradlint("check", "--format", "concise", "proj")
    assert found(result) == {("proj/train.py", "GL201"), ("proj/train.py", "GL101")}


def test_per_file_ignores_only_the_listed_codes(project):
    pyproject(project, '[tool.gradlint.per-file-ignores]\n"train.py" = ["GL101"]\n')
    result = gradlint("check", "--format", "concise", "proj/train.py")
    assert found(result) == {("proj/train.py", "GL201")}


def test_per_file_ignores_double_star_matches_zero_folders(project):
    write(project, "old_train.py", CLIP_AFTER_STEP)
    pyproject(project, '[tool.gradlint.per-file-ignores]\n"**/old_*.py" = ["GL101"]\n')
    result = gradlint("check", "--format", "concise", "proj")
    assert ("proj/scripts/legacy/old_train.py", "GL101") not in found(result)
    assert ("proj/old_train.py", "GL101") not in found(result)


def test_exclude(project):
    pyproject(project, '[tool.gradlint]\nexclude = ["scripts/legacy", "src"]\n')
    result = gradlint("check", "--format", "concise", "proj")
    assert found(result) == {
        ("proj/train.py", "GL201"), ("proj/train.py", "GL101"), ("proj/scripts/finetune.py", "GL201"),
    }


def test_exclude_file_glob(project):
    pyproject(project, '[tool.gradlint]\nexclude = ["*finetune*.py", "old_*.py"]\n')
    result = gradlint("check", "--format", "concise", "proj")
    assert found(result) == {
        ("proj/train.py", "GL201"), ("proj/train.py", "GL101"), ("proj/src/pkg/loop.py", "GL101"),
    }


def test_config_is_found_upward_from_the_checked_path_not_the_cwd(project, tmp_path, monkeypatch):
    pyproject(project, '[tool.gradlint]\nselect = ["GL2"]\n')
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere, "pyproject.toml", '[tool.gradlint]\nselect = ["GL1"]\n')
    monkeypatch.chdir(elsewhere)
    result = gradlint("check", "--format", "concise", str(project / "scripts" / "legacy"))
    assert result.exit_code == 0, result.stdout  # GL101 only there, and proj selects GL2
    result = gradlint("check", "--format", "concise", str(project / "scripts" / "finetune.py"))
    assert [m["code"] for m in map(LOCATION.match, result.stdout.splitlines()) if m] == ["GL201"]


def test_config_from_the_cwd_when_no_path_is_given(project, monkeypatch):
    pyproject(project, '[tool.gradlint]\nignore = ["GL2"]\nexclude = ["src"]\n')
    monkeypatch.chdir(project / "scripts")
    result = gradlint("check", "--format", "concise")
    assert found(result) == {("legacy/old_train.py", "GL101")}


def test_nearest_config_wins(project):
    pyproject(project, '[tool.gradlint]\nselect = ["GL2"]\n')
    write(project, "scripts/pyproject.toml", '[tool.gradlint]\nselect = ["GL1"]\n')
    result = gradlint("check", "--format", "concise", "proj/scripts")
    assert found(result) == {("proj/scripts/legacy/old_train.py", "GL101")}


def test_a_pyproject_without_the_table_does_not_stop_the_search(project):
    pyproject(project, '[tool.gradlint]\nignore = ["GL101"]\n')
    write(project, "src/pyproject.toml", '[project]\nname = "pkg"\n')
    result = gradlint("check", "--format", "concise", "proj/src")
    assert (result.exit_code, found(result)) == (0, set())


def test_exclude_and_per_file_ignores_are_relative_to_the_config_folder(project, monkeypatch):
    pyproject(project, '[tool.gradlint]\nexclude = ["scripts"]\n[tool.gradlint.per-file-ignores]\n'
                       '"src/pkg/*" = ["GL101"]\n')
    monkeypatch.chdir(project / "src")
    result = gradlint("check", "--format", "concise", "..")
    assert found(result) == {("../train.py", "GL201"), ("../train.py", "GL101")}


def test_each_file_uses_its_own_nearest_config(tmp_path, monkeypatch):
    write(tmp_path, "mono/a/pyproject.toml", '[tool.gradlint]\nignore = ["GL201"]\n')
    write(tmp_path, "mono/a/train.py", ACCUM_NOT_DIVIDED)
    write(tmp_path, "mono/b/pyproject.toml", '[tool.gradlint]\nselect = ["GL2"]\n')
    write(tmp_path, "mono/b/train.py", TWO_BUGS)
    monkeypatch.chdir(tmp_path / "mono")
    expected = {("b/train.py", "GL201")}
    assert found(gradlint("check", "--format", "concise", "a/train.py", "b/train.py")) == expected
    assert found(gradlint("check", "--format", "concise", ".")) == expected


def test_stdin_filename_uses_the_config_of_that_path(project):
    pyproject(project, '[tool.gradlint.per-file-ignores]\n"scripts/*" = ["GL201"]\n')
    result = gradlint(
        "check", "--format", "concise", "--stdin-filename", "proj/scripts/new.py", input=ACCUM_NOT_DIVIDED
    )
    assert (result.exit_code, result.stdout) == (0, "All checks passed (1 file).\n")
    result = gradlint(
        "check", "--format", "concise", "--stdin-filename", "proj/new.py", input=ACCUM_NOT_DIVIDED
    )
    assert result.stdout.startswith(f"proj/new.py:{ACCUM_LINE}:")


# --- errors: exit 2, one clear line, nothing checked ---------------------------------------------


def error_line(result, pyproject_path: Path) -> str:
    """The line of stderr that names the config file (click prints it as `Error: ...`)."""
    lines = [line for line in result.stderr.splitlines() if str(pyproject_path) in line]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ('[tool.gradlint]\nselct = ["GL1"]\n', ["unknown", "selct"]),
        ('[tool.gradlint]\nline-length = 100\nselect = ["GL1"]\n', ["unknown", "line-length"]),
        ('[tool.gradlint]\nselect = ["GL999"]\n', ["select", "GL999"]),
        ('[tool.gradlint]\nignore = ["GL101", "E501"]\n', ["ignore", "E501"]),
        ('[tool.gradlint.per-file-ignores]\n"tests/*" = ["GL9"]\n', ["per-file-ignores", "GL9"]),
        ('[tool.gradlint]\nselect = "GL101"\n', ["select", "list"]),
        ('[tool.gradlint]\nexclude = "build"\n', ["exclude", "list"]),
        ('[tool.gradlint]\nper-file-ignores = ["x"]\n', ["per-file-ignores"]),
    ],
    ids=["typo", "ruff-option", "unknown-select", "unknown-ignore", "unknown-per-file", "select-str",
         "exclude-str", "per-file-list"],
)
def test_invalid_config_exits_2(project, body, words):
    pyproject(project, body)
    result = gradlint("check", "proj")
    assert result.exit_code == 2, result.stderr
    assert result.stdout == "No issues found (0 files; 4 files could not be checked).\n"
    line = error_line(result, project / "pyproject.toml")
    for word in words:
        assert word in line


@pytest.mark.parametrize(
    "body",
    [
        '[tool.gradlint]\nselect = ["GL1"\n',
        "[tool.gradlint]\nselect = [GL1]\n",
        '[tool.gradlint]\nselect = ["GL1"]\nselect = ["GL2"]\n',
    ],
    ids=["unclosed", "bare-word", "duplicate-key"],
)
def test_invalid_toml_exits_2(project, body):
    pyproject(project, body)
    result = gradlint("check", "proj")
    assert result.exit_code == 2, result.stderr
    assert result.stdout == "No issues found (0 files; 4 files could not be checked).\n"
    line = error_line(result, project / "pyproject.toml")
    reason = line.split(str(project / "pyproject.toml"), 1)[1]
    assert len(reason.strip(": ")) > 10, line  # says what is wrong


def test_invalid_config_also_stops_fix(project):
    pyproject(project, '[tool.gradlint]\nselct = ["GL1"]\n')
    before = (project / "train.py").read_bytes()
    result = gradlint("fix", "--unsafe-fixes", "proj")
    assert result.exit_code == 2
    assert (project / "train.py").read_bytes() == before


def test_config_error_is_one_line(project):
    pyproject(project, '[tool.gradlint]\nselct = ["GL1"]\n')
    result = gradlint("check", "proj")
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_sub_project_exclude_and_per_file_ignores_apply_when_walking_from_the_root(tmp_path, monkeypatch):
    write(tmp_path, "mono/pyproject.toml", '[tool.gradlint]\nignore = ["GL101"]\n')
    write(tmp_path, "mono/train.py", TWO_BUGS)
    sub = '[tool.gradlint]\nexclude = ["experiments"]\n'
    sub += '[tool.gradlint.per-file-ignores]\n"legacy/*" = ["GL2"]\n'
    write(tmp_path, "mono/services/a/pyproject.toml", sub)
    write(tmp_path, "mono/services/a/experiments/sweep.py", ACCUM_NOT_DIVIDED)
    write(tmp_path, "mono/services/a/legacy/train.py", ACCUM_NOT_DIVIDED)
    write(tmp_path, "mono/services/a/train.py", TWO_BUGS)
    monkeypatch.chdir(tmp_path / "mono")
    result = gradlint("check", "--format", "concise", ".")
    # the root ignores GL101; services/a has its own table (nearest wins: GL101 is back there)
    assert found(result) == {
        ("train.py", "GL201"),
        ("services/a/train.py", "GL201"), ("services/a/train.py", "GL101"),
    }


def test_a_broken_sub_project_config_is_one_line_exit_2(tmp_path, monkeypatch):
    write(tmp_path, "mono/a/pyproject.toml", '[tool.gradlint]\nselect = ["GL1"\n')
    write(tmp_path, "mono/a/train.py", ACCUM_NOT_DIVIDED)
    write(tmp_path, "mono/b/train.py", ACCUM_NOT_DIVIDED)
    monkeypatch.chdir(tmp_path / "mono")
    result = gradlint("check", ".")
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "a/pyproject.toml" in result.stderr
