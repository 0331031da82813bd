"""The output formats and flags named as ruff names them: `--output-format` (alias `--format`,
env GRADLINT_OUTPUT_FORMAT), json-lines, rdjson (reviewdog), azure, and `-` for stdin."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from integration_data import ACCUMULATION, CLIP_AFTER_STEP

from gradlint.cli import main
from gradlint.diagnostics import Diagnostic, FileResult, Span
from gradlint.report import render


def check(*args: str, input: str | None = None, env: dict | None = None):
    return CliRunner().invoke(main, ["check", *args], input=input, env=env, catch_exceptions=False)


def test_json_lines_holds_the_json_objects_one_per_line(project):
    lines = check("--output-format", "json-lines", ".").stdout.splitlines()
    assert [json.loads(line) for line in lines] == json.loads(check("--output-format", "json", ".").stdout)
    assert len(lines) == 3


def test_format_alias_and_environment_variable(project):
    by_flag = check("--output-format", "json-lines", "clip.py").stdout
    assert check("--format", "json-lines", "clip.py").stdout == by_flag
    assert check("clip.py", env={"GRADLINT_OUTPUT_FORMAT": "json-lines"}).stdout == by_flag
    overridden = check("--output-format", "concise", "clip.py", env={"GRADLINT_OUTPUT_FORMAT": "json-lines"})
    assert overridden.stdout.startswith("clip.py:10:5: GL101")
    bad = check("clip.py", env={"GRADLINT_OUTPUT_FORMAT": "xml"})
    assert bad.exit_code == 2 and "GRADLINT_OUTPUT_FORMAT" in bad.stderr


def test_rdjson_for_reviewdog(project):
    report = json.loads(check("--output-format", "rdjson", ".").stdout)
    assert report["source"]["name"] == "gradlint" and report["severity"] == "ERROR"
    by_path = {d["location"]["path"]: d for d in report["diagnostics"]}
    assert set(by_path) == {"clip.py", "accum.py", "train.ipynb"}

    clip = by_path["clip.py"]
    assert clip["code"]["value"] == "GL101" and clip["code"]["url"].endswith("GL101.md")
    assert clip["severity"] == "ERROR"
    start, end = clip["location"]["range"]["start"], clip["location"]["range"]["end"]
    line = CLIP_AFTER_STEP.splitlines()[start["line"] - 1].encode()
    assert line[start["column"] - 1 : end["column"] - 1] == b"torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"
    # the fix as a suggested change: applying it gives the clip before the step
    lines = CLIP_AFTER_STEP.splitlines(keepends=True)
    for suggestion in sorted(clip["suggestions"], key=lambda s: s["range"]["start"]["line"], reverse=True):
        first, last = suggestion["range"]["start"]["line"], suggestion["range"]["end"]["line"]
        lines[first - 1 : last - 1] = [suggestion["text"]]
    fixed = "".join(lines)
    assert fixed.index("clip_grad_norm_") < fixed.index("optimizer.step()")

    notebook = by_path["train.ipynb"]
    assert notebook["message"].startswith("cell 4, line 3, column 5: ")
    assert "loss.backward()" in (project / "train.ipynb").read_text().splitlines()[notebook["location"]["range"]["start"]["line"] - 1]
    assert "suggestions" not in notebook


def test_rdjson_columns_are_utf8_bytes():
    d = Diagnostic(
        code="GL101", name="clip-after-step", message="m", path="t.py", span=Span(3, 14, 3, 20),
        source_line="    x = 'é😀'; clip()",
    )
    (item,) = json.loads(render("rdjson", [FileResult("t.py", [d])]))["diagnostics"]
    assert item["location"]["range"]["start"] == {"line": 3, "column": 19}  # é is 2 bytes, 😀 4: 14 + 4 + 1
    assert item["location"]["range"]["end"] == {"line": 3, "column": 25}


def test_azure_logging_commands(project):
    lines = check("--output-format", "azure", ".").stdout.splitlines()
    assert len(lines) == 3 and all(line.startswith("##vso[task.logissue type=error;") for line in lines)
    clip = next(line for line in lines if "sourcepath=clip.py;" in line)
    assert "linenumber=10;columnnumber=5;code=GL101;]clip-after-step: " in clip
    notebook = next(line for line in lines if "train.ipynb" in line)
    assert "]cell 4, line 3, column 5: accumulation-without-loss-scaling: " in notebook


def test_azure_escapes_values_and_messages():
    d = Diagnostic(code="GL101", name="n", message="a;b]c\nd 100%", path="we;ird].py", span=Span(1, 0, 1, 1))
    (line,) = render("azure", [FileResult("we;ird].py", [d])]).splitlines()
    assert line == (
        "##vso[task.logissue type=error;sourcepath=we%3Bird%5D.py;linenumber=1;columnnumber=1;code=GL101;]"
        "n: a%3Bb%5Dc%0Ad 100%AZP25"
    )


@pytest.mark.parametrize("command", ["check", "fix"])
def test_dash_reads_stdin(project, command):
    result = CliRunner().invoke(main, [command, "--output-format", "concise", "-"] if command == "check"
                                else [command, "--unsafe-fixes", "-"], input=ACCUMULATION, catch_exceptions=False)
    if command == "check":
        assert result.exit_code == 1
        assert result.stdout.startswith("-:") and "GL201" in result.stdout
    else:
        assert "(loss / accum_steps).backward()" in result.stdout
        assert (project / "-").exists() is False


def test_dash_with_other_paths_is_a_usage_error(project):
    result = check("-", "clip.py")
    assert result.exit_code == 2 and "stdin" in result.stderr


def test_force_exclude_applies_to_the_stdin_filename(project):
    (project / "pyproject.toml").write_text('[tool.gradlint]\nextend-exclude = ["vendored/"]\n')
    named = check("--stdin-filename", "vendored/train.py", input=CLIP_AFTER_STEP)
    assert named.exit_code == 1
    forced = check("--force-exclude", "--stdin-filename", "vendored/train.py", input=CLIP_AFTER_STEP)
    assert forced.exit_code == 0
