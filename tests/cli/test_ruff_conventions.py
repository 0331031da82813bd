"""Options named and layered as ruff's: extend-select, extend-per-file-ignores, --show-settings,
and the README's option table kept in step with the command."""

from __future__ import annotations

import re
from pathlib import Path

from cli_helpers import write
from training_scripts import ACCUM_NOT_DIVIDED, TWO_BUGS

README = Path(__file__).resolve().parents[2] / "README.md"
STALE = ACCUM_NOT_DIVIDED.replace("    model.train()\n", "    model.train()  # noqa: GL201\n")


def codes(result) -> list[str]:
    return [line.split()[1] for line in result.stdout.splitlines() if re.match(r"\S+:\d+:\d+: GL", line)]


def test_extend_select_in_config_and_on_the_command_line(workdir, gradlint):
    write(workdir, "train.py", STALE)
    assert codes(gradlint("check", "--output-format", "concise", "train.py")) == ["GL201"]
    write(workdir, "pyproject.toml", '[tool.gradlint]\nextend-select = ["unused-suppression"]\n')
    assert codes(gradlint("check", "--output-format", "concise", "train.py")) == ["GL001", "GL201"]
    # --select replaces the configured selection, extend-select included (as in ruff) ...
    assert codes(gradlint("check", "--output-format", "concise", "--select", "GL2", "train.py")) == ["GL201"]
    # ... and --extend-select adds to it
    both = gradlint("check", "--output-format", "concise", "--select", "GL2", "--extend-select", "GL001", "train.py")
    assert codes(both) == ["GL001", "GL201"]


def test_extend_per_file_ignores_adds_to_per_file_ignores(workdir, gradlint):
    write(workdir, "scripts/train.py", TWO_BUGS)
    write(workdir, "pyproject.toml", '[tool.gradlint.per-file-ignores]\n"scripts/*.py" = ["GL101"]\n'
                                     '[tool.gradlint.extend-per-file-ignores]\n"scripts/*.py" = ["GL201"]\n')
    assert gradlint("check", "scripts").exit_code == 0
    write(workdir, "pyproject.toml", '[tool.gradlint.extend-per-file-ignores]\n"scripts/*.py" = ["GL201"]\n')
    assert codes(gradlint("check", "--output-format", "concise", "scripts")) == ["GL101"]


def test_show_settings_names_the_config_and_the_rules(workdir, gradlint):
    write(workdir, "pkg/train.py", TWO_BUGS)
    write(workdir, "pyproject.toml", '[tool.gradlint]\nignore = ["GL4"]\nextend-exclude = ["old/"]\n'
                                     '[tool.gradlint.per-file-ignores]\n"pkg/*" = ["GL101"]\n')
    result = gradlint("check", "--show-settings", "--extend-select", "GL001", "pkg")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "Resolved settings for: pkg/train.py"
    assert lines[1] == f"Settings path: {workdir / 'pyproject.toml'}"
    assert 'extend-select = ["GL001"]' in lines and 'extend-exclude = ["old/"]' in lines
    enabled = lines[lines.index("enabled rules for this file:") + 1 :]
    from gradlint.rules import ALL_RULES

    expected = [r.code for r in ALL_RULES if not r.code.startswith("GL4") and r.code != "GL101"]
    assert [line.split()[0] for line in enabled] == expected and expected[0] == "GL001"


def test_readme_lists_exactly_the_options_of_check():
    from gradlint.cli import check
    from gradlint.report import FORMATS

    table = README.read_text().split("Options of `check`", 1)[1].split("\n\n", 2)[1]
    documented = set(re.findall(r"`(--[a-z-]+|-[a-z])\b", table))
    offered = {name for option in check.params for name in option.opts if name.startswith("-")}
    assert documented == offered
    formats_row = next(line for line in table.splitlines() if "--output-format" in line)
    assert set(re.findall(r"`([a-z-]+)`", formats_row.split("|")[2])) == set(FORMATS)
