#!/usr/bin/env python3
"""Run gradlint on the materialized repositories and score it against the manifest.

    python bench/realworld/materialize.py --mirrors /work/.mirror --out /tmp/rw-NAME
    python bench/realworld/score.py --root /tmp/rw-NAME

Prints precision and recall per code, for the five founding rules together, for every judged
code, and for the codes this gradlint reports; then the false positives and false negatives
with their locations, the misses grouped by the shape of the loop (the manifest's `shape`).
`--json FILE` also writes the numbers and lists for scripts, and the findings outside every
judged loop (to read by hand: precision the judged loops do not measure).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scoring import (
    FOUNDING,
    MODULE,
    Entry,
    Finding,
    Outcome,
    Span,
    codes_seen,
    function_span,
    load_manifest,
    match,
    score,
)

HERE = Path(__file__).resolve().parent


def related_place(related: str) -> tuple[str, str, int | None]:
    """(path, function, line) of a related span: `path::Class.method`, or `path::<module>:LINE`
    for module-level code (the top-level statement holding LINE: a script's `__main__` block
    that wraps the model or builds the scaler)."""
    path, function = related.split("::", 1)
    name, _, line = function.partition(":")
    return path, name, int(line) if line else None


def build_spans(root: Path, entries: list[Entry]) -> tuple[list[Span], list[str]]:
    """Spans of every entry that can be found in the work folder, and one line per one that cannot."""
    spans, problems = [], []
    for entry in entries:
        places = [(entry.path, entry.function, entry.line)]
        places += [related_place(r) for r in entry.related]
        for path, function, line in places:
            file = root / entry.checkout / path
            if path.endswith(".ipynb") and function == MODULE:
                # a notebook's findings name lines of its cells, not of the .ipynb file (a minified
                # one is a single line): its top-level loop is judged as the whole notebook
                spans.append(Span(entry.id, f"{entry.checkout}/{path}", 1, sys.maxsize))
                continue
            try:
                # utf-8-sig: a file may open with a byte-order mark, which ast rejects
                start, end = function_span(file.read_text(encoding="utf-8-sig"), function, line)
            except (OSError, SyntaxError, LookupError, UnicodeDecodeError) as err:
                problems.append(f"{entry.id}: {path}::{function}: {err}")
                if path == entry.path:
                    break  # without its own loop the entry is not scored
                continue
            spans.append(Span(entry.id, f"{entry.checkout}/{path}", start, end))
    return spans, problems


def run_gradlint(root: Path, entries: list[Entry], command: list[str]) -> tuple[list[Finding], list[str]]:
    """One `gradlint check` per checkout, run from its root on the files the manifest names."""
    files = defaultdict(set)
    for entry in entries:
        files[entry.checkout].add(entry.path)
        files[entry.checkout].update(r.split("::", 1)[0] for r in entry.related)
    options = _check_options(command, root)
    findings, errors = [], []
    for checkout, paths in sorted(files.items()):
        cwd = root / checkout
        present = sorted(p for p in paths if (cwd / p).is_file())
        if not present:
            continue
        proc = subprocess.run(
            [*command, "check", *options, "--exit-zero", *present],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
        )
        try:
            reported = json.loads(proc.stdout or "[]")
        except json.JSONDecodeError:
            errors.append(
                f"{checkout}: gradlint gave no JSON (exit {proc.returncode}): {proc.stderr.strip()[:300]}"
            )
            continue
        if proc.returncode not in (0, 1):
            errors.append(f"{checkout}: gradlint exit {proc.returncode}: {proc.stderr.strip()[:300]}")
        for item in reported:
            path = (cwd / item["path"]).resolve().relative_to(root.resolve()).as_posix()
            findings.append(Finding(item["code"], path, int(item["line"]), item.get("message", "")))
    return findings, errors


def _check_options(command: list[str], cwd: Path) -> list[str]:
    """JSON output and no cache, as the gradlint that will check spells them (asked from the
    work folder: `python -m` looks in the cwd first). Without `--no-cache` a score would
    measure the results an earlier gradlint cached in the checkouts, not this one."""
    help_text = subprocess.run(
        [*command, "check", "--help"], cwd=cwd, capture_output=True, text=True, check=False
    ).stdout
    options = ["--output-format" if "--output-format" in help_text else "--format", "json"]
    return options + (["--no-cache"] if "--no-cache" in help_text else [])


def reported_codes(command: list[str], cwd: Path) -> set[str]:
    """The codes this gradlint has (first word of each line of `gradlint rule`)."""
    out = subprocess.run([*command, "rule"], cwd=cwd, capture_output=True, text=True, check=False).stdout
    return {
        line.split()[0] for line in out.splitlines() if line[:2] == "GL" and line.split()[0][2:].isdigit()
    }


def _fmt(value: float | None) -> str:
    return "   -" if value is None else f"{value:.2f}"


def report(entries: list[Entry], spans: list[Span], outcome: Outcome, have: set[str]) -> dict:
    by_id = {e.id: e for e in entries}
    scored = {s.entry for s in spans}
    lines = [f"{len(scored)} loops scored from {len({by_id[i].repo for i in scored})} repositories", ""]
    lines.append(f"{'code':<8}{'expected':>9}{'TP':>5}{'FP':>5}{'FN':>5}{'prec':>7}{'recall':>8}")
    table = {}
    for code in codes_seen([by_id[i] for i in scored], outcome):
        s = score(outcome, {code})
        table[code] = s
        mark = "" if code in have else "   (gradlint has no such rule)"
        lines.append(
            f"{code:<8}{s.tp + s.fn:>9}{s.tp:>5}{s.fp:>5}{s.fn:>5}{_fmt(s.precision):>7}{_fmt(s.recall):>8}{mark}"
        )
    totals = {
        "founding five": score(outcome, set(FOUNDING)),
        "codes gradlint has": score(outcome, have),
        "all judged codes": score(outcome),
    }
    lines.append("")
    for name, s in totals.items():
        lines.append(
            f"{name:<20} TP {s.tp:>3}  FP {s.fp:>3}  FN {s.fn:>3}  precision {_fmt(s.precision)}  recall {_fmt(s.recall)}"
        )

    lines += ["", f"false positives ({len(outcome.false_positives)}):"]
    for (entry_id, code), f in sorted(outcome.false_positives.items()):
        lines.append(f"  {code} {f.path}:{f.line}  [{entry_id}] {f.message[:110]}")
    lines += [
        "",
        "misses per shape tag (a miss counts under each tag of its loop): founding five / all codes",
    ]
    for tag, (founding, every) in sorted(
        _misses_per_tag(outcome, by_id).items(), key=lambda kv: (-kv[1][1], kv[0])
    ):
        lines.append(f"  {tag:<28}{founding:>4}{every:>6}")
    lines += ["", f"false negatives ({len(outcome.false_negatives)}), by the shape of the loop:"]
    groups = defaultdict(list)
    for entry_id, code in sorted(outcome.false_negatives):
        e = by_id[entry_id]
        groups[", ".join(e.shape) or "plain"].append(
            f"  {code} {e.checkout}/{e.path}:{e.line} {e.function}  [{e.id}]"
        )
    for shape, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f" {shape} ({len(items)}):")
        lines += items
    lines += [
        "",
        f"findings ignored as unsure: {len(outcome.ignored_unsure)}; outside judged loops: {len(outcome.unjudged)}",
    ]
    print("\n".join(lines))
    return {
        "per_code": {c: vars(s) | {"precision": s.precision, "recall": s.recall} for c, s in table.items()},
        "totals": {n: vars(s) | {"precision": s.precision, "recall": s.recall} for n, s in totals.items()},
        "false_positives": [
            {"entry": i, "code": c, "path": f.path, "line": f.line, "message": f.message}
            for (i, c), f in sorted(outcome.false_positives.items())
        ],
        "false_negatives": [
            {
                "entry": i,
                "code": c,
                "path": f"{by_id[i].checkout}/{by_id[i].path}",
                "line": by_id[i].line,
                "shape": list(by_id[i].shape),
            }
            for i, c in sorted(outcome.false_negatives)
        ],
        # findings in the materialized files outside every judged loop: unjudged, to read by hand
        "unjudged": [
            {"code": f.code, "path": f.path, "line": f.line, "message": f.message}
            for f in sorted(outcome.unjudged, key=lambda f: (f.path, f.line, f.code))
        ],
    }


def _misses_per_tag(outcome: Outcome, by_id: dict[str, Entry]) -> dict[str, tuple[int, int]]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for entry_id, code in outcome.false_negatives:
        for tag in by_id[entry_id].shape or ("plain",):
            counts[tag][0] += code in FOUNDING
            counts[tag][1] += 1
    return {tag: (f, a) for tag, (f, a) in counts.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="work folder written by materialize.py")
    parser.add_argument("--manifest", type=Path, default=HERE / "manifest.toml")
    parser.add_argument(
        "--gradlint",
        default=f"{sys.executable} -m gradlint",
        help="command that runs gradlint (default: this interpreter's -m gradlint)",
    )
    parser.add_argument("--json", type=Path, help="also write the results here as JSON")
    args = parser.parse_args(argv)

    entries = load_manifest(args.manifest)
    spans, problems = build_spans(args.root, entries)
    for problem in problems:
        print(f"not scored: {problem}", file=sys.stderr)
    command = args.gradlint.split()
    findings, errors = run_gradlint(args.root, entries, command)
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    outcome = match(entries, spans, findings)
    results = report(entries, spans, outcome, reported_codes(command, args.root))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
