"""A seeded mutation fuzzer over the fixtures, examples and rule cases: the fixer's promises must
hold for every parsable mutant (issue 8).

Each mutant is a training script changed by one to three mutations (delete, duplicate or swap
lines, re-indent, rename an identifier, wrap statements in `if` / `with` / `while`, insert a
gradient statement). For each that parses: fixing raises nothing and gives code that parses;
fixing the result again changes nothing and fixes nothing (nothing fixed is reported again);
no fixable finding is left unless its fix failed; no bound identifier is lost; `check` offers a fix
(`[*]`, answered from the ast) exactly when the fix can be computed. Every fifth mutant is
also fixed as a notebook (one cell per top-level statement).

`GRADLINT_FUZZ_MUTANTS` sets how many mutants are tried (a few hundred by default, so the
normal run takes seconds; thousands for a longer run), `GRADLINT_FUZZ_SEED` the seed.
"""

from __future__ import annotations

import ast
import json
import os
import random
import re
from collections import Counter
from pathlib import Path

from gradlint.fixer import diagnose, fix_document
from gradlint.fixplan import FixPolicy
from gradlint.rules import select_rules
from gradlint.sources.notebook import NotebookDocument
from gradlint.sources.python import PythonDocument

ROOT = Path(__file__).resolve().parents[1]
CORPUS = sorted(
    [*ROOT.glob("fixtures/GL*/*.py"), *ROOT.glob("examples/*.py"), *ROOT.glob("tests/rules/cases/*/*.py")]
)
MUTANTS = int(os.environ.get("GRADLINT_FUZZ_MUTANTS", "300"))
SEED = int(os.environ.get("GRADLINT_FUZZ_SEED", "8"))
RULES = select_rules(None)

INSERTS = [
    "loss.backward()",
    "optimizer.step()",
    "optimizer.zero_grad()",
    "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)",
    "scaler.unscale_(optimizer)",
    "scaler.step(optimizer)",
    "scaler.update()",
    "scheduler.step()",
    "loss = loss / accum_steps",
    "continue",
]
HEADERS = ["if step % 2 == 0:", "with torch.no_grad():", "with model.no_sync():", "while keep_going:", "if i > 0:"]
NAMES = ["loss", "optimizer", "model", "scaler", "accum_steps", "opt", "net", "x"]
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


# -- mutations ---------------------------------------------------------------------------------


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def delete(rng: random.Random, lines: list[str]) -> list[str]:
    del lines[rng.randrange(len(lines))]
    return lines


def duplicate(rng: random.Random, lines: list[str]) -> list[str]:
    at = rng.randrange(len(lines))
    lines.insert(at, lines[at])
    return lines


def swap(rng: random.Random, lines: list[str]) -> list[str]:
    at = rng.randrange(len(lines) - 1)
    lines[at], lines[at + 1] = lines[at + 1], lines[at]
    return lines


def reindent(rng: random.Random, lines: list[str]) -> list[str]:
    at = rng.randrange(len(lines))
    if rng.random() < 0.5 and lines[at].startswith("    "):
        lines[at] = lines[at][4:]
    else:
        lines[at] = "    " + lines[at]
    return lines


def rename(rng: random.Random, lines: list[str]) -> list[str]:
    words = sorted({w for line in lines for w in IDENTIFIER.findall(line) if not w.isupper()})
    if words:
        old, new = rng.choice(words), rng.choice(NAMES)
        pattern = re.compile(rf"\b{re.escape(old)}\b")
        if rng.random() < 0.5:  # everywhere, or on one line only
            lines = [pattern.sub(new, line) for line in lines]
        else:
            at = rng.randrange(len(lines))
            lines[at] = pattern.sub(new, lines[at])
    return lines


def wrap(rng: random.Random, lines: list[str]) -> list[str]:
    """Statements first..last of one indentation go under a new compound statement."""
    first = rng.randrange(len(lines))
    indent = _indent(lines[first])
    last = first
    while last + 1 < len(lines) and rng.random() < 0.6 and _indent(lines[last + 1]).startswith(indent) and lines[last + 1].strip():
        last += 1
    body = ["    " + line if line.strip() else line for line in lines[first : last + 1]]
    return [*lines[:first], indent + rng.choice(HEADERS), *body, *lines[last + 1 :]]


def insert(rng: random.Random, lines: list[str]) -> list[str]:
    at = rng.randrange(len(lines) + 1)
    indent = _indent(lines[at]) if at < len(lines) else ""
    lines.insert(at, indent + rng.choice(INSERTS))
    return lines


MUTATIONS = [delete, duplicate, swap, reindent, rename, wrap, insert]


def mutants(count: int, seed: int):
    """(number, source file, mutations, text) of `count` parsable mutants."""
    rng = random.Random(seed)
    texts = [(path, path.read_text(encoding="utf-8").splitlines()) for path in CORPUS]
    made = tries = 0
    while made < count:
        tries += 1
        assert tries < count * 50, "the mutations almost never parse"
        path, lines = rng.choice(texts)
        steps = [rng.choice(MUTATIONS) for _ in range(rng.randint(1, 3))]
        mutated = list(lines)
        for step in steps:
            if len(mutated) > 1:
                mutated = step(rng, mutated)
        text = "\n".join(mutated) + "\n"
        if _parses(text):
            made += 1
            yield made, path.relative_to(ROOT), [s.__name__ for s in steps], text


# -- properties --------------------------------------------------------------------------------


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return False
    return True


def names(text: str) -> Counter:
    """The names the code binds (assignments, definitions, parameters, imports): a fix may
    rewrite an expression (`torch.cuda.amp` -> `torch.amp`, `log(softmax(x))` ->
    `log_softmax(x)`) but never drop a statement that defines something."""
    bound = Counter()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound[node.id] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[node.name] += 1
        elif isinstance(node, ast.arg):
            bound[node.arg] += 1
        elif isinstance(node, ast.alias):
            bound[node.asname or node.name.split(".")[0]] += 1
    return bound


def problems(doc, policy: FixPolicy, reload) -> list[str]:
    """What breaks the fixer's promises on one document (empty: none)."""
    found = []
    marked = [(d.code, d.span, d.fix is not None) for d in diagnose(doc, RULES, policy)]
    computed = [(d.code, d.span, d.fix is not None) for d in diagnose(doc, RULES, policy, edits=True)]
    if marked != computed:
        found.append(f"fix offered from the ast {marked} but computed {computed}")
    once = fix_document(doc, RULES, policy)
    if not _parses(once.text):
        return ["the fixed code does not parse"]
    lost = names(doc.text) - names(once.text)
    if lost:
        found.append(f"identifiers lost: {dict(lost)}")
    for d in once.remaining:
        if d.fix is not None and policy.applies(d.code, d.applicability):
            found.append(f"{d.code} at line {d.span.line} left fixable after one run")
    if once.incomplete:
        found.append("the fixer stopped at its bound")
    twice = fix_document(reload(doc, once.text), RULES, policy)
    if twice.text != once.text:
        found.append("fixing twice differs from fixing once")
    if twice.fixed:
        found.append(f"fixed again: {[d.code for d in twice.fixed]}")
    return found


def _python(doc, text):
    return PythonDocument(doc.path, text)


def as_notebook(text: str) -> NotebookDocument:
    """The script as a notebook: one code cell per top-level statement (with what precedes it)."""
    lines = text.splitlines(keepends=True)
    starts = sorted({0, *(node.lineno - 1 for node in ast.parse(text).body)})
    cells = [lines[a:b] for a, b in zip(starts, [*starts[1:], len(lines)]) if lines[a:b]]
    notebook = {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [], "source": cell}
            for i, cell in enumerate(cells)
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return NotebookDocument.from_bytes("fuzz.ipynb", json.dumps(notebook, indent=1).encode())


def _notebook(doc, text):
    return NotebookDocument.from_bytes(doc.path, doc.render(text))


# -- the test ----------------------------------------------------------------------------------


def test_fixer_promises_hold_on_mutants():
    failures = []
    for number, source, steps, text in mutants(MUTANTS, SEED):
        policy = FixPolicy(unsafe=number % 2 == 0)
        cases = [(PythonDocument("fuzz.py", text), _python)]
        if number % 5 == 0:
            cases.append((as_notebook(text), _notebook))
        for doc, reload in cases:
            try:
                found = problems(doc, policy, reload)
            except Exception as error:  # noqa: BLE001 - any exception is a finding of the fuzzer
                found = [f"raised {type(error).__name__}: {error}"]
            if found:
                kind = "notebook" if isinstance(doc, NotebookDocument) else "script"
                failures.append(f"mutant {number} ({kind} from {source}, {'+'.join(steps)}): {'; '.join(found)}\n{text}")
    assert not failures, f"{len(failures)} of {MUTANTS} mutants (seed {SEED}) broke a promise:\n\n" + "\n\n".join(failures[:5])
