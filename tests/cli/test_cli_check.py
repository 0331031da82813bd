"""`gradlint check`: exit codes, selection, the report formats, stdin, output files, discovery."""

from __future__ import annotations

import json
import re

import pytest
from cli_helpers import write
from training_scripts import (
    ACCUM_COL,
    ACCUM_IN_HELPER,
    ACCUM_LINE,
    ACCUM_NOT_DIVIDED,
    ACCUM_TEXT,
    CLEAN,
    CLIP_AFTER_STEP,
    CLIP_COL,
    CLIP_LINE,
    CLIP_TEXT,
    UTILS,
    ZERO_GRAD_EVERY_MICRO_BATCH,
    ZERO_GRAD_LINE,
)

ANSI = re.compile(r"\x1b\[")
LOCATION = re.compile(
    r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<code>GL\d{3})(?P<fix> \[\*\])? (?P<msg>.+)$"
)


def codes(stdout: str) -> list[tuple[str, str, int]]:
    """(path, code, line) of every diagnostic line of a text or concise report."""
    found = []
    for line in stdout.splitlines():
        m = LOCATION.match(line)
        if m:
            found.append((m["path"], m["code"], int(m["line"])))
    return found


@pytest.fixture
def two_bugs(workdir):
    """A project with one GL101 script, one GL201 script, one GL202 script and a clean module."""
    write(workdir, "train_clip.py", CLIP_AFTER_STEP)
    write(workdir, "train_accum.py", ACCUM_NOT_DIVIDED)
    write(workdir, "train_zero.py", ZERO_GRAD_EVERY_MICRO_BATCH)
    write(workdir, "utils.py", UTILS)
    return workdir


# --- exit codes -------------------------------------------------------------------------------


def test_clean_file_exits_0_with_summary(workdir, gradlint):
    write(workdir, "train.py", CLEAN)
    run = gradlint("check", "train.py")
    assert run.exit_code == 0, run
    assert run.stdout == "All checks passed (1 file).\n"
    assert run.stderr == ""


def test_findings_exit_1(workdir, gradlint):
    write(workdir, "train.py", CLIP_AFTER_STEP)
    run = gradlint("check", "train.py")
    assert run.exit_code == 1, run
    assert codes(run.stdout) == [("train.py", "GL101", CLIP_LINE)]


def test_exit_zero_reports_but_exits_0(workdir, gradlint):
    write(workdir, "train.py", CLIP_AFTER_STEP)
    run = gradlint("check", "--exit-zero", "train.py")
    assert run.exit_code == 0, run
    assert codes(run.stdout) == [("train.py", "GL101", CLIP_LINE)]
    assert "Found 1 error" in run.stdout


def test_exit_zero_does_not_hide_unreadable_input(workdir, gradlint):
    write(workdir, "train.py", CLIP_AFTER_STEP)
    run = gradlint("check", "--exit-zero", "train.py", "missing.py")
    assert run.exit_code == 2, run


@pytest.mark.parametrize(
    "args",
    [
        ("--select", "GL999"),
        ("--select", "GL101,GLX"),
        ("--ignore", "E501"),
        ("--select", "GL9"),  # no such family
        ("--extend-select", "clip-after-stpe"),  # a misspelt rule name
    ],
)
def test_unknown_selector_is_a_usage_error(workdir, gradlint, args):
    write(workdir, "train.py", CLIP_AFTER_STEP)
    run = gradlint("check", *args, "train.py")
    assert run.exit_code == 2, run
    assert run.stdout == ""  # nothing was checked
    bad = args[1].split(",")[-1]
    assert f"unknown rule selector(s): {bad}" in run.stderr
    assert "Traceback" not in run.stderr


def test_unknown_command_line_option_is_a_usage_error(workdir, gradlint):
    write(workdir, "train.py", CLEAN)
    run = gradlint("check", "--frobnicate", "train.py")
    assert run.exit_code == 2, run
    assert "No such option" in run.stderr and "--frobnicate" in run.stderr


def test_unknown_format_is_a_usage_error(workdir, gradlint):
    write(workdir, "train.py", CLEAN)
    run = gradlint("check", "--format", "xml", "train.py")
    assert run.exit_code == 2, run
    assert "'xml' is not one of" in run.stderr


def test_missing_path_exits_2_and_the_other_files_are_still_checked(workdir, gradlint):
    write(workdir, "train.py", ACCUM_NOT_DIVIDED)
    run = gradlint("check", "nope.py", "train.py")
    assert run.exit_code == 2, run
    assert codes(run.stdout) == [("train.py", "GL201", ACCUM_LINE)]
    assert run.stderr == "gradlint: error: nope.py: no such file or directory\n"


# --- selection ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), {"GL101", "GL201", "GL202"}),
        (("--select", "GL2"), {"GL201", "GL202"}),
        (("--select", "GL1"), {"GL101"}),
        (("--select", "GL201"), {"GL201"}),
        (("--select", "GL101,GL202"), {"GL101", "GL202"}),
        (("--select", "GL101, GL202"), {"GL101", "GL202"}),
        (("--select", "GL101", "--select", "GL201"), {"GL101", "GL201"}),
        (("--select", "ALL"), {"GL101", "GL201", "GL202"}),
        (("--ignore", "GL101"), {"GL201", "GL202"}),
        (("--ignore", "GL2"), {"GL101"}),
        (("--ignore", "GL201,GL202"), {"GL101"}),
        (("--select", "GL2", "--ignore", "GL202"), {"GL201"}),
        (("--select", "GL1", "--ignore", "GL101"), set()),
        (("--select", "GL3,GL4"), set()),
    ],
)
def test_select_and_ignore(two_bugs, gradlint, args, expected):
    run = gradlint("check", "--format", "concise", *args, ".")
    found = {code for _, code, _ in codes(run.stdout)}
    assert found == expected, run
    assert run.exit_code == (1 if expected else 0)


# --- formats ------------------------------------------------------------------------------------


def test_text_format_location_excerpt_and_summary(workdir, gradlint):
    write(workdir, "train.py", CLIP_AFTER_STEP)
    run = gradlint("check", "--format", "text", "train.py")
    lines = run.stdout.splitlines()
    header = LOCATION.match(lines[0])
    assert header, run
    assert (header["path"], int(header["line"]), int(header["col"])) == ("train.py", CLIP_LINE, CLIP_COL)
    assert header["code"] == "GL101" and header["fix"] == " [*]"
    assert "clip_grad_norm_" in header["msg"] and "optimizer.step()" in header["msg"]
    source_line = CLIP_AFTER_STEP.splitlines()[CLIP_LINE - 1]
    # the excerpt: gutter, the source line, carets under exactly the clip call
    assert lines[1].strip() == "|"
    gutter, _, shown = lines[2].partition(" | ")
    assert gutter.strip() == str(CLIP_LINE)
    assert shown == source_line
    caret_gutter, _, carets = lines[3].partition(" | ")
    assert len(caret_gutter) == len(gutter)
    assert carets == " " * (CLIP_COL - 1) + "^" * len(CLIP_TEXT)
    assert source_line[CLIP_COL - 1:CLIP_COL - 1 + len(carets.strip())] == CLIP_TEXT
    assert lines[-1] == "Found 1 error (1 fixable with `gradlint fix`)."
    assert not ANSI.search(run.stdout)


def test_text_format_marks_only_fixable_diagnostics(workdir, gradlint):
    write(workdir, "helper.py", ACCUM_IN_HELPER)
    write(workdir, "train.py", ACCUM_NOT_DIVIDED)
    run = gradlint("check", "helper.py", "train.py")
    headers = [LOCATION.match(line) for line in run.stdout.splitlines() if LOCATION.match(line)]
    assert [(h["path"], h["code"], h["fix"]) for h in headers] == [
        ("helper.py", "GL201", None),
        ("train.py", "GL201", None),  # unsafe: `gradlint fix` alone does not apply it
    ]
    assert run.stdout.splitlines()[-1] == "Found 2 errors (1 fixable with `gradlint fix --unsafe-fixes`)."


def test_concise_format_is_one_line_per_diagnostic(two_bugs, gradlint):
    files = ("train_accum.py", "train_clip.py", "train_zero.py", "utils.py")
    run = gradlint("check", "--format", "concise", *files)
    lines = run.stdout.splitlines()
    assert lines[-1] == "Found 3 errors (2 fixable with `gradlint fix`; 1 more fixable with `gradlint fix --unsafe-fixes`)."
    assert [LOCATION.match(line).group("path", "line", "col", "code") for line in lines[:-1]] == [
        ("train_accum.py", str(ACCUM_LINE), str(ACCUM_COL), "GL201"),
        ("train_clip.py", str(CLIP_LINE), str(CLIP_COL), "GL101"),
        ("train_zero.py", str(ZERO_GRAD_LINE), "5", "GL202"),
    ]
    assert not ANSI.search(run.stdout)


def test_json_format_fields(workdir, gradlint):
    write(workdir, "train.py", ACCUM_NOT_DIVIDED)
    write(workdir, "helper.py", ACCUM_IN_HELPER)
    run = gradlint("check", "--format", "json", "train.py", "helper.py")
    assert run.exit_code == 1
    data = json.loads(run.stdout)  # nothing but the JSON document on stdout
    assert isinstance(data, list) and len(data) == 2
    by_path = {item["path"]: item for item in data}
    item = by_path["train.py"]
    assert set(item) == {
        "code", "name", "message", "path", "cell", "line", "column", "end_line", "end_column",
        "severity", "fix", "url",
    }
    assert item["code"] == "GL201"
    assert item["name"] == "accumulation-without-loss-scaling"
    assert "accum" in item["message"]
    assert item["cell"] is None
    assert (item["line"], item["column"], item["end_line"]) == (ACCUM_LINE, ACCUM_COL, ACCUM_LINE)
    # 1-based columns, end exclusive: the slice is exactly the backward call
    source_line = ACCUM_NOT_DIVIDED.splitlines()[item["line"] - 1]
    assert source_line[item["column"] - 1:item["end_column"] - 1] == ACCUM_TEXT
    assert item["severity"] == "error"
    assert set(item["fix"]) == {"message", "applicability", "edits"}
    assert "accum" in item["fix"]["message"]
    assert item["fix"]["applicability"] == "unsafe"  # it divides every update by N
    (edit,) = item["fix"]["edits"]
    assert (edit["line"], edit["column"], edit["end_line"], edit["end_column"]) == (ACCUM_LINE, 1, ACCUM_LINE + 1, 1)
    assert edit["content"] == "        (loss / accum).backward()\n"
    assert item["url"].endswith("GL201.md") or "GL201" in item["url"]
    assert by_path["helper.py"]["fix"] is None


def test_json_format_of_a_clean_run_is_an_empty_list(workdir, gradlint):
    write(workdir, "train.py", CLEAN)
    run = gradlint("check", "--format", "json", "train.py")
    assert run.exit_code == 0
    assert json.loads(run.stdout) == []


def test_statistics_counts_per_rule(two_bugs, gradlint):
    write(two_bugs, "more/train_accum2.py", ACCUM_NOT_DIVIDED)
    run = gradlint("check", "--statistics", ".")
    assert run.exit_code == 1
    rows = [line.split() for line in run.stdout.splitlines()]
    assert rows[0] == ["2", "GL201", "accumulation-without-loss-scaling"]  # unsafe fix: no [*]
    assert sorted(rows[1:]) == [
        ["1", "GL101", "clip-after-step", "[*]"],
        ["1", "GL202", "zero-grad-inside-accumulation", "[*]"],
    ]
    assert not codes(run.stdout)  # counts instead of the list


def test_quiet_prints_diagnostics_without_summary(workdir, gradlint):
    write(workdir, "train.py", CLIP_AFTER_STEP)
    run = gradlint("check", "--quiet", "--format", "concise", "train.py")
    assert run.exit_code == 1
    assert len(run.stdout.splitlines()) == 1
    assert codes(run.stdout) == [("train.py", "GL101", CLIP_LINE)]
    assert "Found" not in run.stdout


def test_quiet_clean_run_prints_nothing(workdir, gradlint):
    write(workdir, "train.py", CLEAN)
    run = gradlint("check", "-q", "train.py")
    assert (run.exit_code, run.stdout, run.stderr) == (0, "", "")


# --- stdin and output files ---------------------------------------------------------------------


def test_stdin_filename_reads_stdin_and_reports_that_name(workdir, gradlint):
    # the file on disk is clean; what the editor sends on stdin is not
    write(workdir, "src/train.py", CLEAN)
    run = gradlint(
        "check", "--format", "concise", "--stdin-filename", "src/train.py", input=ACCUM_NOT_DIVIDED
    )
    assert run.exit_code == 1, run
    assert codes(run.stdout) == [("src/train.py", "GL201", ACCUM_LINE)]


def test_stdin_filename_of_a_file_that_does_not_exist(workdir, gradlint):
    run = gradlint("check", "--format", "json", "--stdin-filename", "untitled.py", input=CLIP_AFTER_STEP)
    assert run.exit_code == 1, run
    assert [(d["path"], d["line"]) for d in json.loads(run.stdout)] == [("untitled.py", CLIP_LINE)]


def test_stdin_clean(workdir, gradlint):
    run = gradlint("check", "--stdin-filename", "train.py", input=CLEAN)
    assert run.exit_code == 0, run
    assert run.stdout == "All checks passed (1 file).\n"


def test_output_file(workdir, gradlint):
    write(workdir, "train.py", CLIP_AFTER_STEP)
    run = gradlint("check", "--format", "json", "-o", "report.json", "train.py")
    assert run.exit_code == 1
    assert run.stdout == ""
    data = json.loads((workdir / "report.json").read_text(encoding="utf-8"))
    assert [(d["code"], d["line"]) for d in data] == [("GL101", CLIP_LINE)]


def test_output_file_text_has_no_colour(workdir, gradlint):
    write(workdir, "train.py", CLIP_AFTER_STEP)
    run = gradlint("check", "--output-file", "report.txt", "train.py")
    assert run.exit_code == 1 and run.stdout == ""
    report = (workdir / "report.txt").read_text(encoding="utf-8")
    assert codes(report) == [("train.py", "GL101", CLIP_LINE)]
    assert not ANSI.search(report)


def test_output_file_in_a_missing_folder_is_a_one_line_error(workdir, gradlint):
    write(workdir, "train.py", CLIP_AFTER_STEP)
    run = gradlint("check", "-o", "reports/ci/report.txt", "train.py")
    assert run.exit_code == 2, run
    assert "reports/ci/report.txt" in run.stderr
    assert len(run.stderr.strip().splitlines()) <= 3  # click's usage/error block at most


# --- discovery ----------------------------------------------------------------------------------


def test_directories_are_recursed_and_default_is_cwd(workdir, gradlint):
    write(workdir, "train.py", CLIP_AFTER_STEP)
    write(workdir, "pkg/trainer/loop.py", ACCUM_NOT_DIVIDED)
    write(workdir, "pkg/__init__.py", "")
    write(workdir, "pkg/utils.py", UTILS)
    write(workdir, "pkg/stubs.pyi", "def f() -> None: ...\n")
    write(workdir, "README.md", "loss.backward()\n")
    write(workdir, "notes.txt", ACCUM_NOT_DIVIDED)
    for skipped in (".venv/lib/site.py", "build/lib/train.py", "node_modules/x/train.py",
                    "__pycache__/train.py", ".git/hooks/train.py", "dist/train.py"):
        write(workdir, skipped, ACCUM_NOT_DIVIDED)
    run = gradlint("check", "--format", "concise")
    assert sorted(codes(run.stdout)) == [
        ("pkg/trainer/loop.py", "GL201", ACCUM_LINE),
        ("train.py", "GL101", CLIP_LINE),
    ], run
    assert run.exit_code == 1
    dot = gradlint("check", "--format", "concise", ".")
    assert sorted(codes(dot.stdout)) == sorted(codes(run.stdout))
    assert gradlint("check", ".").stdout.endswith(f"(1 fixable with `gradlint fix`; 1 more fixable with {'`gradlint fix --unsafe-fixes`'}).\n")


def test_summary_counts_the_checked_files(workdir, gradlint):
    for i in range(3):
        write(workdir, f"pkg/m{i}.py", UTILS)
    run = gradlint("check", "pkg")
    assert run.stdout == "All checks passed (3 files).\n"


def test_named_subfolder_paths(workdir, gradlint):
    write(workdir, "experiments/a/train.py", ACCUM_NOT_DIVIDED)
    write(workdir, "experiments/b/train.py", CLEAN)
    run = gradlint("check", "--format", "concise", "experiments")
    assert codes(run.stdout) == [("experiments/a/train.py", "GL201", ACCUM_LINE)]


def test_a_file_named_explicitly_inside_a_skipped_folder_is_checked(workdir, gradlint):
    path = write(workdir, "build/train.py", ACCUM_NOT_DIVIDED)
    run = gradlint("check", "--format", "concise", str(path.relative_to(workdir)))
    assert codes(run.stdout) == [("build/train.py", "GL201", ACCUM_LINE)]


def test_config_exclude_is_honoured(workdir, gradlint):
    write(workdir, "pyproject.toml", '[tool.gradlint]\nexclude = ["experiments", "*_old.py"]\n')
    write(workdir, "experiments/sweep/train.py", ACCUM_NOT_DIVIDED)
    write(workdir, "src/train_old.py", ACCUM_NOT_DIVIDED)
    write(workdir, "src/train.py", CLIP_AFTER_STEP)
    run = gradlint("check", "--format", "concise")
    assert codes(run.stdout) == [("src/train.py", "GL101", CLIP_LINE)], run


# --- rule ---------------------------------------------------------------------------------------


def test_rule_lists_the_rules(gradlint):
    run = gradlint("rule")
    assert run.exit_code == 0
    from gradlint.rules import ALL_RULES

    listed = [line.split()[:2] for line in run.stdout.splitlines()]
    assert listed == [[r.code, r.name] for r in ALL_RULES]
    assert {"GL101", "GL201", "GL202", "GL301", "GL401"} <= {code for code, _ in listed}


def test_rule_prints_the_doc(gradlint):
    from gradlint.docs import rule_doc

    doc = rule_doc("GL201")
    assert doc is not None, "rules/GL201.md must ship with gradlint"
    run = gradlint("rule", "GL201")
    assert run.exit_code == 0
    assert run.stdout == doc
    assert "GL201" in run.stdout
    assert gradlint("rule", "gl201").stdout == doc


def test_rule_unknown_code_exits_2(gradlint):
    run = gradlint("rule", "GL999")
    assert run.exit_code == 2
    assert "unknown rule 'GL999'" in run.stderr
    assert run.stdout == ""


# --- positions in unusual lines -----------------------------------------------------------------


def test_columns_count_characters_not_bytes(workdir, gradlint):
    source = CLIP_AFTER_STEP.replace(
        "        torch.nn.utils.clip_grad_norm_", '        print("λ → μ"); torch.nn.utils.clip_grad_norm_'
    )
    write(workdir, "train.py", source)
    [item] = json.loads(gradlint("check", "--format", "json", "train.py").stdout)
    line = source.splitlines()[item["line"] - 1]
    assert line[item["column"] - 1:item["end_column"] - 1] == CLIP_TEXT
    text = gradlint("check", "train.py").stdout.splitlines()
    assert text[0].startswith(f"train.py:{CLIP_LINE}:{line.index('torch') + 1}: GL101")
    assert text[3].partition(" | ")[2] == " " * line.index("torch") + "^" * len(CLIP_TEXT)


def test_carets_line_up_under_tab_indented_code(workdir, gradlint):
    source = CLIP_AFTER_STEP.replace("    ", "\t")
    write(workdir, "train.py", source)
    lines = gradlint("check", "train.py").stdout.splitlines()
    shown = lines[2].partition(" | ")[2]
    carets = lines[3].partition(" | ")[2]
    # what the user sees: both lines as a terminal expands them
    assert carets.expandtabs().index("^") == shown.expandtabs().index("torch")


def test_a_file_named_twice_is_reported_once(workdir, gradlint):
    write(workdir, "src/train.py", ACCUM_NOT_DIVIDED)
    run = gradlint("check", "--format", "concise", "src", "src/train.py", "./src/train.py")
    assert len(codes(run.stdout)) == 1, run
    assert run.stdout.splitlines()[-1] == "Found 1 error (1 fixable with `gradlint fix --unsafe-fixes`)."
