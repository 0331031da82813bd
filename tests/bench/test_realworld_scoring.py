"""The real-world yardstick's scoring: spans, matching findings to judged loops, precision/recall."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "realworld"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"realworld_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


scoring = _load("scoring")

SOURCE = textwrap.dedent(
    """\
    import torch

    def helper():
        return 1

    class Trainer:
        @staticmethod
        def build():
            pass

        def run_step(self, batch):
            loss = self.model(batch)
            loss.backward()
            self.opt.step()

    for epoch in range(3):
        for batch in loader:
            step(batch)
    print("done")
    """
)


def entry(id, expected=(), unsure=(), path="train.py", function="Trainer.run_step", line=12, related=()):
    return scoring.Entry(
        id=id,
        repo="o/r",
        commit="a" * 40,
        path=path,
        function=function,
        line=line,
        expected=tuple(expected),
        unsure=tuple(unsure),
        evidence="why",
        related=tuple(related),
    )


# --- spans ----------------------------------------------------------------------------------


def test_method_span_covers_def_to_last_line():
    assert scoring.function_span(SOURCE, "Trainer.run_step", 13) == (11, 14)


def test_decorator_lines_belong_to_the_function():
    assert scoring.function_span(SOURCE, "Trainer.build", None) == (7, 9)


def test_a_colab_export_with_shell_lines_still_has_its_spans():
    source = "!pip install timm\nimport torch\n\n\ndef train(loader):\n    %time setup()\n    for x in loader:\n        step(x)\n"
    assert scoring.function_span(source, "train", 7) == (5, 8)


def test_module_level_loop_is_the_top_level_statement_holding_the_line():
    assert scoring.function_span(SOURCE, "<module>", 18) == (16, 18)


def test_a_line_outside_the_named_function_is_an_error():
    with pytest.raises(LookupError):
        scoring.function_span(SOURCE, "helper", 12)
    with pytest.raises(LookupError):
        scoring.function_span(SOURCE, "Trainer.missing", 12)


# --- matching -------------------------------------------------------------------------------


def span(entry_id, start, end, path="r/train.py"):
    return scoring.Span(entry_id, path, start, end)


def finding(code, line, path="r/train.py"):
    return scoring.Finding(code, path, line, "msg")


def test_expected_code_in_span_is_one_true_positive_however_many_findings():
    entries = [entry("a", expected=["GL201"])]
    outcome = scoring.match(entries, [span("a", 10, 20)], [finding("GL201", 12), finding("GL201", 15)])
    assert outcome.true_positives == {("a", "GL201")}
    assert not outcome.false_positives and not outcome.false_negatives


def test_unexpected_code_is_a_false_positive_and_missing_code_a_false_negative():
    entries = [entry("a", expected=["GL201"])]
    outcome = scoring.match(entries, [span("a", 10, 20)], [finding("GL101", 12)])
    assert set(outcome.false_positives) == {("a", "GL101")}
    assert outcome.false_negatives == {("a", "GL201")}
    assert not outcome.true_positives


def test_unsure_codes_are_ignored_and_findings_outside_spans_unjudged():
    entries = [entry("a", unsure=["GL205"])]
    outcome = scoring.match(
        entries,
        [span("a", 10, 20)],
        [finding("GL205", 12), finding("GL101", 30), finding("GL101", 12, "r/other.py")],
    )
    assert [f.code for f in outcome.ignored_unsure] == ["GL205"]
    assert len(outcome.unjudged) == 2
    assert not outcome.false_positives and not outcome.true_positives


def test_a_shared_helper_span_credits_the_loop_that_expects_the_code():
    entries = [entry("a"), entry("b", expected=["GL401"])]
    spans = [span("a", 1, 50, "r/helper.py"), span("b", 1, 50, "r/helper.py"), span("b", 10, 20)]
    outcome = scoring.match(entries, spans, [finding("GL401", 5, "r/helper.py")])
    assert outcome.true_positives == {("b", "GL401")}
    assert not outcome.false_positives


def test_entries_without_a_span_are_not_scored():
    entries = [entry("a", expected=["GL201"]), entry("gone", expected=["GL101"])]
    outcome = scoring.match(entries, [span("a", 10, 20)], [])
    assert outcome.false_negatives == {("a", "GL201")}


# --- precision and recall -------------------------------------------------------------------


def test_precision_and_recall_per_code_and_overall():
    entries = [entry("a", expected=["GL201"]), entry("b", expected=["GL201", "GL401"]), entry("c")]
    spans = [span("a", 1, 9), span("b", 10, 19), span("c", 20, 29)]
    findings = [finding("GL201", 5), finding("GL401", 12), finding("GL202", 25)]
    outcome = scoring.match(entries, spans, findings)

    gl201 = scoring.score(outcome, {"GL201"})
    assert (gl201.tp, gl201.fp, gl201.fn) == (1, 0, 1)
    assert gl201.precision == 1.0 and gl201.recall == 0.5

    overall = scoring.score(outcome)
    assert (overall.tp, overall.fp, overall.fn) == (2, 1, 1)
    assert overall.precision == pytest.approx(2 / 3) and overall.recall == pytest.approx(2 / 3)

    nothing = scoring.score(outcome, {"GL301"})
    assert nothing.precision is None and nothing.recall is None


def test_codes_seen_lists_the_founding_five_and_every_judged_code():
    outcome = scoring.match([entry("a", expected=["GL205"])], [span("a", 1, 9)], [finding("GL503", 3)])
    assert scoring.codes_seen([entry("a", expected=["GL205"])], outcome) == sorted(
        set(scoring.FOUNDING) | {"GL205", "GL503"}
    )


# --- the manifest ---------------------------------------------------------------------------


def test_manifest_rejects_bad_entries(tmp_path):
    bad = tmp_path / "m.toml"
    bad.write_text(
        '[[loop]]\nid = "x"\nrepo = "o/r"\ncommit = "abc"\npath = "t.py"\nfunction = "f"\nline = 1\n'
        'expected = []\nevidence = "e"\n'
    )
    with pytest.raises(ValueError, match="40 lowercase hex"):
        scoring.load_manifest(bad)
    bad.write_text(
        bad.read_text().replace('"abc"', '"' + "a" * 40 + '"').replace("expected = []", 'expected = ["GL2"]')
    )
    with pytest.raises(ValueError, match="not a catalogue code"):
        scoring.load_manifest(bad)


def test_committed_manifest_meets_the_yardstick_shape():
    entries = scoring.load_manifest(BENCH / "manifest.toml")
    assert len(entries) >= 60
    assert len({e.repo for e in entries}) >= 25
    assert sum(1 for e in entries if not e.expected) * 3 >= len(entries)
    assert all(e.evidence.strip() for e in entries)


def test_spans_are_found_in_a_file_that_opens_with_a_byte_order_mark(tmp_path):
    score = _load("score")
    loop = entry("bom", path="train.py", function="Trainer.run_step", line=12)
    file = tmp_path / loop.checkout / "train.py"
    file.parent.mkdir(parents=True)
    file.write_bytes(b"\xef\xbb\xbf" + SOURCE.encode("utf-8"))
    spans, problems = score.build_spans(tmp_path, [loop])
    assert problems == []
    assert [(s.start, s.end) for s in spans] == [(11, 14)]


def test_a_minified_notebook_loop_holds_the_lines_of_its_cells(tmp_path):
    """A notebook saved as one line of JSON: gradlint reports cell lines, which must still land
    in the notebook's top-level loop."""
    score = _load("score")
    loop = entry("nb", path="train.ipynb", function="<module>", line=1)
    file = tmp_path / loop.checkout / "train.ipynb"
    file.parent.mkdir(parents=True)
    file.write_text('{"cells": [{"cell_type": "code", "source": ["import torch\\n"]}], "nbformat": 4}')
    spans, problems = score.build_spans(tmp_path, [loop])
    assert problems == []
    assert spans[0].holds(f"{loop.checkout}/train.ipynb", 60)


def test_a_related_span_may_name_a_scripts_top_level_statement_by_a_line(tmp_path):
    """`related = ["train.py::<module>:LINE"]`: the script's top-level statement holding LINE
    (its `__main__` block) is a span of the loop, as `<module>` with a line is for the loop."""
    score = _load("score")
    text = SOURCE + "\nif __name__ == '__main__':\n    Trainer().run_step(None)\n"
    main = next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith("if __name__"))
    loop = entry("main", related=(f"train.py::<module>:{main + 1}",))
    file = tmp_path / loop.checkout / "train.py"
    file.parent.mkdir(parents=True)
    file.write_text(text)
    spans, problems = score.build_spans(tmp_path, [loop])
    assert problems == []
    assert [(s.start, s.end) for s in spans] == [(11, 14), (main, main + 1)]


def test_the_report_lists_the_findings_outside_every_judged_loop():
    score_script = _load("score")
    entries = [entry("a", expected=["GL201"])]
    spans = [span("a", 10, 20)]
    outcome = scoring.match(entries, spans, [finding("GL201", 12), finding("GL101", 30), finding("GL104", 5)])
    results = score_script.report(entries, spans, outcome, {"GL101", "GL104", "GL201"})
    assert [(u["code"], u["line"]) for u in results["unjudged"]] == [("GL104", 5), ("GL101", 30)]


def test_materialize_leaves_an_empty_checkout_where_no_file_qualifies(tmp_path):
    """A repository whose only source is a notebook over the size limit still gets its (empty)
    checkout with its `.git` marker, and the next repositories are not skipped."""
    import subprocess

    materialize = _load("materialize")
    repo = tmp_path / "mirror"
    repo.mkdir()
    (repo / "train.ipynb").write_bytes(b"{" + b" " * (materialize.MAX_BYTES + 1) + b"}")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(tmp_path)}
    for command in (["init", "-q"], ["add", "train.ipynb"], ["commit", "-qm", "notebook"]):
        subprocess.run(["git", "-C", str(repo), *command], check=True, env=env)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True, text=True, env=env).stdout.strip()
    target = tmp_path / "out" / "owner+name@x" / "name"
    assert materialize.materialize(repo, commit, target) == 0
    assert (target / ".git").is_dir() and not (target / "train.ipynb").exists()
