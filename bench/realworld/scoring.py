"""The yardstick's arithmetic: manifest entries, the spans they judge, matching, precision/recall.

Pure functions on plain data (no gradlint, no git, no network), so the scoring can be unit-tested
and the scripts around it stay thin.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

FOUNDING = ("GL101", "GL201", "GL202", "GL301", "GL401")
MODULE = "<module>"


@dataclass(frozen=True)
class Entry:
    """One judged training loop: where it is and which catalogue codes apply to it."""

    id: str
    repo: str
    commit: str
    path: str
    function: str
    line: int
    expected: tuple[str, ...]
    unsure: tuple[str, ...] = ()
    evidence: str = ""
    related: tuple[str, ...] = ()  # "path::function" where this loop's findings may also land
    shape: tuple[str, ...] = ()  # what seeing the loop takes: "method-spread", "cross-module", ...

    @property
    def checkout(self) -> str:
        """Folder name of the repository at this commit inside a materialized work folder."""
        return checkout_name(self.repo, self.commit)


def checkout_name(repo: str, commit: str) -> str:
    """`owner+name@commit12/name`: one folder per pinned commit, holding the checkout in a folder
    named as `git clone` names it (a repository whose modules import it by its own name,
    `import mae_st.util.misc`, resolves as in a clone)."""
    return f"{repo.replace('/', '+')}@{commit[:12]}/{repo.rsplit('/', 1)[-1]}"


def load_manifest(path: Path) -> list[Entry]:
    """Read the manifest's `[[loop]]` tables; raise ValueError naming the first bad entry."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    entries = []
    for index, raw in enumerate(data.get("loop", [])):
        try:
            entry = Entry(
                id=raw["id"],
                repo=raw["repo"],
                commit=raw["commit"],
                path=raw["path"],
                function=raw["function"],
                line=int(raw["line"]),
                expected=tuple(raw["expected"]),
                unsure=tuple(raw.get("unsure", ())),
                evidence=raw["evidence"],
                related=tuple(raw.get("related", ())),
                shape=tuple(raw.get("shape", ())),
            )
        except KeyError as missing:
            raise ValueError(f"manifest entry {index} ({raw.get('id', '?')}): missing {missing}") from None
        _validate(entry)
        entries.append(entry)
    ids = Counter(e.id for e in entries)
    if dupes := [i for i, n in ids.items() if n > 1]:
        raise ValueError(f"duplicate manifest ids: {', '.join(dupes)}")
    return entries


def _validate(entry: Entry) -> None:
    if len(entry.commit) != 40 or any(c not in "0123456789abcdef" for c in entry.commit):
        raise ValueError(f"{entry.id}: commit must be 40 lowercase hex digits")
    for code in entry.expected + entry.unsure:
        if not (code.startswith("GL") and code[2:].isdigit() and len(code) == 5):
            raise ValueError(f"{entry.id}: {code!r} is not a catalogue code")
    if overlap := set(entry.expected) & set(entry.unsure):
        raise ValueError(f"{entry.id}: {sorted(overlap)} both expected and unsure")
    if not entry.evidence.strip():
        raise ValueError(f"{entry.id}: evidence is empty")


# ------------------------------------------------------------------------------------------------
# Spans: the lines a judged function covers in its file.
# ------------------------------------------------------------------------------------------------


def function_span(source: str, function: str, line: int | None) -> tuple[int, int]:
    """First and last line of `function` (dotted qualified name) in `source`.

    `<module>` judges a loop written at module level: the top-level statement holding `line`.
    With `line` None the first definition of that name is taken. Raises LookupError when the
    name is not there or does not hold `line`.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        tree = ast.parse(_without_shell_lines(source))  # a Colab export keeps its `!pip install` lines
    if function == MODULE:
        if line is None:
            raise LookupError("<module> needs a line")
        for node in tree.body:
            if node.lineno <= line <= node.end_lineno:
                return node.lineno, node.end_lineno
        raise LookupError(f"no top-level statement holds line {line}")
    candidates = [n for n in _qualified_defs(tree.body, "") if n[0] == function]
    for _, node in candidates:
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        if line is None or start <= line <= node.end_lineno:
            return start, node.end_lineno
    if candidates:
        raise LookupError(f"{function} does not hold line {line}")
    raise LookupError(f"no function {function}")


def _without_shell_lines(source: str) -> str:
    """`source` with each IPython shell or magic line (`!nvidia-smi`, `%cd /content`) made a
    `pass` at its indentation, so the other lines keep their numbers (gradlint masks them too)."""
    lines = source.splitlines()
    for index, line in enumerate(lines):
        body = line.lstrip()
        if body.startswith(("!", "%")):
            lines[index] = line[: len(line) - len(body)] + "pass"
    return "\n".join(lines) + "\n"


def _qualified_defs(body: list[ast.stmt], prefix: str):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{node.name}"
            if not isinstance(node, ast.ClassDef):
                yield name, node
            yield from _qualified_defs(node.body, name + ".")
        elif isinstance(node, (ast.If, ast.Try, ast.With)):  # defs under `if TYPE_CHECKING:` etc.
            yield from _qualified_defs(node.body, prefix)
            yield from _qualified_defs(getattr(node, "orelse", []), prefix)


@dataclass(frozen=True)
class Span:
    entry: str
    path: str  # relative to the work folder: "<checkout>/<path in repository>"
    start: int
    end: int

    def holds(self, path: str, line: int) -> bool:
        return path == self.path and self.start <= line <= self.end


# ------------------------------------------------------------------------------------------------
# Matching findings to entries.
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    code: str
    path: str  # relative to the work folder, like Span.path
    line: int
    message: str = ""


@dataclass
class Outcome:
    """What scoring found: hits per (entry, code), false positives, misses, ignored findings."""

    true_positives: set[tuple[str, str]] = field(default_factory=set)
    false_positives: dict[tuple[str, str], Finding] = field(default_factory=dict)
    false_negatives: set[tuple[str, str]] = field(default_factory=set)
    ignored_unsure: list[Finding] = field(default_factory=list)
    unjudged: list[Finding] = field(default_factory=list)


def match(entries: list[Entry], spans: list[Span], findings: list[Finding]) -> Outcome:
    """Match each finding to the judged loops whose spans hold it.

    A finding counts for an entry that expects its code (one hit per entry and code however many
    findings land); it is ignored when an entry holding it lists the code as unsure; otherwise it
    is a false positive of the first entry holding it (one per entry and code). Findings outside
    every span are unjudged and do not count.
    """
    by_id = {e.id: e for e in entries}
    outcome = Outcome()
    for finding in findings:
        holders = [by_id[s.entry] for s in spans if s.holds(finding.path, finding.line)]
        holders = list(dict.fromkeys(holders))
        if not holders:
            outcome.unjudged.append(finding)
            continue
        expecting = [e for e in holders if finding.code in e.expected]
        if expecting:
            outcome.true_positives.update((e.id, finding.code) for e in expecting)
        elif any(finding.code in e.unsure for e in holders):
            outcome.ignored_unsure.append(finding)
        else:
            outcome.false_positives.setdefault((holders[0].id, finding.code), finding)
    scored = {s.entry for s in spans}
    for entry in entries:
        if entry.id not in scored:
            continue
        for code in entry.expected:
            if (entry.id, code) not in outcome.true_positives:
                outcome.false_negatives.add((entry.id, code))
    return outcome


# ------------------------------------------------------------------------------------------------
# Precision and recall.
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


def score(outcome: Outcome, codes: set[str] | None = None) -> Score:
    """Totals over `codes` (all codes when None)."""

    def keep(code: str) -> bool:
        return codes is None or code in codes

    return Score(
        tp=sum(1 for _, c in outcome.true_positives if keep(c)),
        fp=sum(1 for _, c in outcome.false_positives if keep(c)),
        fn=sum(1 for _, c in outcome.false_negatives if keep(c)),
    )


def codes_seen(entries: list[Entry], outcome: Outcome) -> list[str]:
    """The founding five, every code expected somewhere and every code reported in a judged span."""
    found = set(FOUNDING) | {c for e in entries for c in e.expected}
    found |= {c for _, c in outcome.false_positives} | {c for _, c in outcome.true_positives}
    return sorted(found)
