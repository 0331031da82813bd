"""`gradlint check --format github|sarif|gitlab|junit|lsp`, through click's CliRunner and once as
a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from integration_data import CLIP_AFTER_STEP, ROOT, SARIF_SCHEMA

from gradlint.cli import main
from gradlint.diagnostics import Diagnostic, FileResult, Span
from gradlint.report import render


def check(*args: str):
    result = CliRunner().invoke(main, ["check", *args], catch_exceptions=False)
    return result


def output(fmt: str, *paths: str) -> str:
    result = check("--format", fmt, *(paths or (".",)))
    assert result.exit_code == 1, result.output
    return result.stdout


def diagnostic(**changes) -> Diagnostic:
    values = dict(
        code="GL101",
        name="clip-after-step",
        message="`clip` runs after `step()`",
        path="train.py",
        span=Span(10, 4, 10, 60),
        source_line="    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)",
        fix="Move the clip before `optimizer.step()`",
        url="https://example.invalid/GL101.md",
    )
    values.update(changes)
    return Diagnostic(**values)


# -- github ----------------------------------------------------------------------------------


def test_github_annotations(project):
    lines = output("github").splitlines()
    assert len(lines) == 3
    clip = next(line for line in lines if "clip.py" in line)
    # endColumn is exclusive, as the json format's end_column (and ruff's github format)
    assert clip.startswith("::error file=clip.py,line=10,col=5,endLine=10,endColumn=60,title=GL101::")
    [clip_json] = [d for d in json.loads(output("json")) if d["path"] == "clip.py"]
    assert (clip_json["column"], clip_json["end_column"]) == (5, 60)
    assert "clip-after-step" in clip and "%0A" in clip  # the fix hint on a second line, escaped
    notebook = next(line for line in lines if "train.ipynb" in line)
    # a notebook: the line of the .ipynb file holding cell 4's third line
    file_line = int(notebook.split("line=")[1].split(",")[0])
    assert "loss.backward()" in (project / "train.ipynb").read_text().splitlines()[file_line - 1]
    assert "cell 4, line 3, column 5" in notebook


def test_github_escaping():
    text = render(
        "github",
        [FileResult("a,b:c%.py", [diagnostic(path="a,b:c%.py", message="50% of\nit: a, b\r", severity="warning")])],
    )
    assert text.startswith("::warning file=a%2Cb%3Ac%25.py,line=10,")
    message = text.split("::", 2)[2]
    assert message.startswith("clip-after-step: 50%25 of%0Ait: a, b%0D")
    assert text.count("\n") == 1


def test_github_reports_unreadable_files(project):
    result = check("--format", "github", "missing.py")
    assert result.exit_code == 2
    assert "::error file=missing.py,title=gradlint::gradlint: no such file or directory" in result.stdout


# -- sarif -----------------------------------------------------------------------------------


def test_sarif_log(project):
    log = json.loads(output("sarif"))
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "gradlint" and driver["version"] and driver["informationUri"]
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert {"GL101", "GL201", "GL202", "GL301", "GL401"} <= set(rules)
    assert rules["GL101"]["shortDescription"]["text"]
    assert rules["GL101"]["helpUri"].endswith("GL101.md")
    assert "# GL101" in rules["GL101"]["help"]["markdown"]  # the rule doc
    results = run["results"]
    assert sorted(r["ruleId"] for r in results) == ["GL101", "GL201", "GL201"]
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == "error"
    clip = next(r for r in results if r["ruleId"] == "GL101")
    location = clip["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "clip.py"
    assert location["region"] == {
        "startLine": 10, "startColumn": 5, "endLine": 10, "endColumn": 60,
        "snippet": {"text": "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"},
    }
    notebook = next(r for r in results if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "train.ipynb")
    assert notebook["properties"]["cell"] == 4 and notebook["properties"]["cellLine"] == 3


def test_sarif_fixes_apply(project):
    log = json.loads(output("sarif", "clip.py", "accum.py"))
    for result in log["runs"][0]["results"]:
        (fix,) = result["fixes"]
        (change,) = fix["artifactChanges"]
        path = project / change["artifactLocation"]["uri"]
        fixed = _apply_sarif(path.read_text(), change["replacements"])
        path.write_text(fixed)
    assert check("clip.py", "accum.py").exit_code == 0
    assert "(loss / accum_steps).backward()" in (project / "accum.py").read_text()


def _apply_sarif(text: str, replacements) -> str:
    lines = text.splitlines(keepends=True)

    def offset(line: int, column: int) -> int:
        return sum(len(x) for x in lines[: line - 1]) + column - 1

    for rep in sorted(replacements, key=lambda r: (r["deletedRegion"]["startLine"], r["deletedRegion"]["startColumn"]), reverse=True):
        region = rep["deletedRegion"]
        start = offset(region["startLine"], region["startColumn"])
        end = offset(region["endLine"], region["endColumn"])
        text = text[:start] + rep.get("insertedContent", {}).get("text", "") + text[end:]
    return text


def test_sarif_without_fix_when_file_changed(project):
    results = [FileResult("clip.py", [diagnostic(path="clip.py", span=Span(3, 0, 3, 5))])]
    log = json.loads(render("sarif", results))
    assert "fixes" not in log["runs"][0]["results"][0]


@pytest.mark.skipif(not SARIF_SCHEMA.is_file(), reason="the SARIF schema is not next to this checkout")
def test_sarif_validates_against_the_schema(project):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SARIF_SCHEMA.read_text())
    (project / "broken.py").write_text("def (:\n    loss.backward()\n")
    result = check("--format", "sarif", ".")
    assert result.exit_code == 2  # broken.py does not parse
    log = json.loads(result.stdout)
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is False
    jsonschema.validate(log, schema)
    clean = json.loads(check("--format", "sarif", "clean.py").stdout)
    jsonschema.validate(clean, schema)
    assert clean["runs"][0]["results"] == []


# -- gitlab ----------------------------------------------------------------------------------


def test_gitlab_code_quality(project):
    issues = json.loads(output("gitlab"))
    assert len(issues) == 3
    for issue in issues:
        assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] == "major"
        assert isinstance(issue["location"]["lines"]["begin"], int)
    assert len({issue["fingerprint"] for issue in issues}) == 3
    clip = next(i for i in issues if i["location"]["path"] == "clip.py")
    assert clip["check_name"] == "GL101" and clip["location"]["lines"]["begin"] == 10


def test_gitlab_fingerprints_survive_reruns_and_moved_lines(project):
    before = {i["location"]["path"]: i["fingerprint"] for i in json.loads(output("gitlab", "clip.py", "accum.py"))}
    assert before == {i["location"]["path"]: i["fingerprint"] for i in json.loads(output("gitlab", "clip.py", "accum.py"))}
    (project / "clip.py").write_text('"""Now with a docstring."""\n\n\n' + CLIP_AFTER_STEP)
    after = json.loads(output("gitlab", "clip.py", "accum.py"))
    assert {i["location"]["path"]: i["fingerprint"] for i in after} == before
    assert next(i for i in after if i["location"]["path"] == "clip.py")["location"]["lines"]["begin"] == 13


def test_gitlab_fingerprints_tell_identical_lines_apart():
    twice = [diagnostic(), diagnostic(span=Span(20, 4, 20, 60))]
    issues = json.loads(render("gitlab", [FileResult("train.py", twice)]))
    assert len({i["fingerprint"] for i in issues}) == 2


# -- junit -----------------------------------------------------------------------------------


def test_junit_xml(project):
    (project / "broken.py").write_text("def (:\n    loss.backward()\n")
    result = check("--format", "junit", ".")
    assert result.exit_code == 2
    suites = ET.fromstring(result.stdout)
    (suite,) = suites.findall("testsuite")
    cases = suite.findall("testcase")
    failures = [c for c in cases if c.find("failure") is not None]
    errors = [c for c in cases if c.find("error") is not None]
    assert len(failures) == 3 and suite.get("failures") == "3"
    assert len(errors) == 1 and errors[0].get("classname") == "broken.py"
    assert any(c.get("classname") == "clean.py" and len(c) == 0 for c in cases)
    assert int(suite.get("tests")) == len(cases)
    clip = next(c for c in failures if c.get("classname") == "clip.py")
    assert clip.find("failure").get("type") == "GL101"


def test_junit_escapes_everything():
    nasty = diagnostic(path='a<b>&"c\'.py', message="<x> & \"y\" \x1b[31m\n", source_line="x = '<&>'")
    text = render("junit", [FileResult(nasty.path, [nasty])])
    root = ET.fromstring(text)  # well-formed
    failure = root.find("testsuite/testcase/failure")
    assert failure.get("message").startswith('<x> & "y" \ufffd[31m')
    assert "x = '<&>'" in failure.text


# -- lsp -------------------------------------------------------------------------------------


def test_lsp_json(project):
    report = json.loads(output("lsp"))
    uris = {Path(uri.removeprefix("file://")).name: uri for uri in report}
    assert set(uris) == {"clip.py", "accum.py", "clean.py", "train.ipynb"}
    assert report[uris["clean.py"]] == []
    assert uris["clip.py"] == (project / "clip.py").resolve().as_uri()
    (clip,) = report[uris["clip.py"]]
    assert clip["range"] == {"start": {"line": 9, "character": 4}, "end": {"line": 9, "character": 59}}
    assert clip["severity"] == 1 and clip["code"] == "GL101" and clip["source"] == "gradlint"
    assert clip["codeDescription"]["href"].endswith("GL101.md")
    assert clip["data"]["cell"] is None
    assert clip["data"]["fix"]["title"] and clip["data"]["fix"]["edits"]
    (cell,) = report[uris["train.ipynb"]]
    assert cell["data"]["cell"] == 4 and cell["range"]["start"] == {"line": 2, "character": 4}
    assert cell["data"]["fix"]["edits"][0]["cell"] == 4


def test_lsp_json_counts_utf16():
    d = diagnostic(source_line="    x = '😀'; clip()", span=Span(1, 14, 1, 20))
    (item,) = json.loads(render("lsp", [FileResult("t.py", [d])])).popitem()[1]
    assert item["range"]["start"]["character"] == 15  # the emoji is two UTF-16 code units


# -- the rest --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["github", "sarif", "gitlab", "junit", "lsp"])
def test_output_file_and_clean_runs(project, fmt):
    result = check("--format", fmt, "-o", "report.out", "clean.py")
    assert result.exit_code == 0 and result.stdout == ""
    text = (project / "report.out").read_text()
    if fmt == "github":
        assert text == ""
    elif fmt == "junit":
        assert ET.fromstring(text).find("testsuite").get("failures") == "0"
    else:
        json.loads(text)


def test_formats_in_a_real_process(project):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    process = subprocess.run(
        [sys.executable, "-m", "gradlint", "check", "--format", "sarif", "--output-file", "out.sarif", "."],
        cwd=project, capture_output=True, text=True, timeout=120, env=env,
    )
    assert process.returncode == 1, process.stderr
    log = json.loads((project / "out.sarif").read_text())
    assert len(log["runs"][0]["results"]) == 3
    process = subprocess.run(
        [sys.executable, "-m", "gradlint", "check", "--format", "github", "clip.py"],
        cwd=project, capture_output=True, text=True, timeout=120, env=env,
    )
    assert process.returncode == 1
    assert process.stdout.startswith("::error file=clip.py,line=10,")


def test_check_does_not_import_pygls(project):
    code = (
        "import sys\n"
        "from gradlint.cli import main\n"
        "try:\n"
        "    main(['check', '--format', 'lsp', '.'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'gradlint.lsp')))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    process = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True, env=env)
    assert process.stdout.strip().splitlines()[-1] == "[]", process.stdout + process.stderr
