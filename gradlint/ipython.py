"""`%load_ext gradlint`: check each IPython cell before it runs (Jupyter, Colab, VS Code).

The cells a session has run, in order, are read as one virtual module, exactly as a notebook's
cells are (`NotebookDocument.from_cells`, IPython syntax masked by `gradlint.sources.ipython`),
so a loop in the cell about to run sees the optimizer made three cells earlier. Only findings
in that cell are shown, each once per session, as a short warning on stderr (code, message,
cell line, the fix); a clean cell prints nothing. The cell always runs, unless
`%gradlint strict` is on and it has a finding: then IPython rejects it before it executes.

    %gradlint            what the extension is doing
    %gradlint off | on   stop / resume checking
    %gradlint strict     refuse to run a cell with findings (`%gradlint on` to go back)
    %gradlint fix        print the last flagged cell with its safe fixes applied, to copy
    %gradlint fix --unsafe-fixes    ... with its unsafe fixes too

The rules are those of the `[tool.gradlint]` nearest to the working folder. Nothing here
imports torch or libcst until a fix is asked for.
"""

from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from IPython.core.error import InputRejected

from gradlint.config import Config, ConfigError, load_config
from gradlint.diagnostics import Diagnostic
from gradlint.linter import InternalError, find, parse, to_diagnostic
from gradlint.sources import SourceError
from gradlint.sources.notebook import NotebookDocument

SESSION_NAME = "ipython-session.ipynb"  # the path the session's virtual notebook is given
# Earlier lines a check reads at most, so a long session does not slow every cell down
CONTEXT_LINES = 1000


def load_ipython_extension(ipython) -> None:
    """Called by `%load_ext gradlint`; loading twice keeps one checker."""
    if getattr(ipython, "_gradlint_checker", None) is not None:
        return
    checker = CellChecker()
    checker.seed(getattr(getattr(ipython, "history_manager", None), "input_hist_raw", [])[1:])
    ipython._gradlint_checker = checker
    ipython.events.register("pre_run_cell", checker.pre_run_cell)
    ipython.events.register("post_run_cell", checker.post_run_cell)
    ipython.ast_transformers.append(checker.gate)
    ipython.register_magic_function(checker.magic, magic_kind="line", magic_name="gradlint")


def unload_ipython_extension(ipython) -> None:
    checker = getattr(ipython, "_gradlint_checker", None)
    if checker is None:
        return
    ipython.events.unregister("pre_run_cell", checker.pre_run_cell)
    ipython.events.unregister("post_run_cell", checker.post_run_cell)
    if checker.gate in ipython.ast_transformers:
        ipython.ast_transformers.remove(checker.gate)
    ipython.magics_manager.magics["line"].pop("gradlint", None)
    ipython._gradlint_checker = None


def context(history: list[str], budget: int = CONTEXT_LINES) -> list[str]:
    """The earlier cells a check reads: all of them while they fit in `budget` lines; else the
    first cells (imports, model, optimizer) up to a quarter of it and the latest for the rest."""
    sizes = [source.count("\n") + 1 for source in history]
    if sum(sizes) <= budget:
        return list(history)
    head, used = 0, 0
    while head < len(history) and used + sizes[head] <= budget // 4:
        used += sizes[head]
        head += 1
    tail = len(history)
    while tail > head and used + sizes[tail - 1] <= budget:
        used += sizes[tail - 1]
        tail -= 1
    return history[:head] + history[tail:]


def session_document(sources: list[str]) -> NotebookDocument:
    """The session's cells as one notebook (the last source is the cell about to run)."""
    cells = [{"cell_type": "code", "metadata": {}, "source": source} for source in sources]
    return NotebookDocument.from_cells(os.path.join(os.getcwd(), SESSION_NAME), cells)


@dataclass
class Checked:
    """The verdict on one cell: its findings, and whether it reads as Python (only such cells
    join the session's module, so one bad cell cannot blind the checks that follow)."""

    source: str
    context: list[str]  # the earlier cells it was read after
    diagnostics: list[Diagnostic] = field(default_factory=list)
    parses: bool = True


class Gate(ast.NodeTransformer):
    """IPython's hook between parsing a cell and running it: rejects the cell in strict mode."""

    def __init__(self, checker: "CellChecker"):
        self.checker = checker

    def visit(self, node):
        reason, self.checker.reject = self.checker.reject, None
        if reason:
            raise CellRejected(reason)
        return node


class CellRejected(InputRejected):
    """How strict mode stops a cell: IPython shows the message alone, no traceback."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


class CellChecker:
    def __init__(self) -> None:
        self.history: list[str] = []  # the sources of the cells that ran and read as Python
        self.enabled = True
        self.strict = False
        self.reported: set[tuple[str, str, str]] = set()
        self.pending: Checked | None = None  # the cell between pre_run_cell and post_run_cell
        self.flagged: tuple[list[str], str] | None = None  # (history before, source) of the last flagged cell
        self.reject: str | None = None  # strict mode: why the cell about to run is refused
        self.gate = Gate(self)
        self.config = self._config()
        self.rules = self.config.rules_for(os.path.join(os.getcwd(), SESSION_NAME))

    def _config(self) -> Config:
        try:
            return load_config(Path.cwd())
        except ConfigError as error:
            self._say(f"{error}; using the defaults")
            return Config()

    # -- checking --------------------------------------------------------------------------

    def seed(self, sources: list[str]) -> None:
        """Take in the cells the session ran before the extension was loaded."""
        self.history = [source for source in sources if source.strip() and self._parses(source)]

    def check(self, source: str) -> Checked:
        """The findings of the cell `source`, run after the session's cells so far."""
        checked = Checked(source, context(self.history))
        sources = [*checked.context, source]
        try:
            doc = session_document(sources)
            checked.diagnostics = [
                d for d in (to_diagnostic(doc, rule, finding) for rule, finding in find(doc, self.rules))
                if d.cell == len(sources)
            ]
        except SourceError:
            checked.parses = self._parses(source)  # Python itself will report a syntax error
        except InternalError as error:
            self._say(str(error))
        except Exception as error:  # a bug in gradlint must never get in the way of a cell
            self._say(f"internal error, cell not checked: {type(error).__name__}: {error}")
        return checked

    @staticmethod
    def _parses(source: str) -> bool:
        try:
            parse(session_document([source]))
        except SourceError:
            return False
        return True

    def pre_run_cell(self, info) -> None:
        self.pending = None
        if not self.enabled or not (info.raw_cell or "").strip():
            return
        checked = self.check(info.raw_cell)
        self.pending = checked
        fresh = [d for d in checked.diagnostics if self._first_time(d)]
        if checked.diagnostics:
            self.flagged = (checked.context, checked.source)
        if self.strict and checked.diagnostics:
            codes = ", ".join(dict.fromkeys(d.code for d in checked.diagnostics))
            self.reject = f"gradlint (strict): cell not run: {codes} (`%gradlint fix` shows the fixed cell)"
        if fresh:
            self._say("\n".join(warning(d) for d in fresh) + "\n  (`%gradlint fix` prints the fixed cell)")

    def post_run_cell(self, result) -> None:
        checked, self.pending = self.pending, None
        if checked is None or result.error_before_exec is not None or not checked.parses:
            return
        if checked.source in self.history:  # a cell run again replaces its earlier run
            self.history.remove(checked.source)
        self.history.append(checked.source)

    def _first_time(self, d: Diagnostic) -> bool:
        key = (d.code, d.message, d.source_line.strip())
        if key in self.reported:
            return False
        self.reported.add(key)
        return True

    # -- %gradlint ---------------------------------------------------------------------------

    def magic(self, line: str = "") -> None:
        """%gradlint [on | off | strict | fix [--unsafe-fixes]]: see `gradlint.ipython`."""
        words = line.split()
        command = words[0] if words else ""
        if command in ("on", "off", "strict"):
            self.enabled = command != "off"
            self.strict = command == "strict"
            print(f"gradlint: {self.status()}")
        elif command == "fix":
            try:
                print(self.fixed_cell(unsafe="--unsafe-fixes" in words[1:]))
            except (SourceError, InternalError) as error:
                self._say(f"cannot fix the last flagged cell: {error}")
        elif command == "":
            print(f"gradlint: {self.status()}")
        else:
            print("usage: %gradlint [on | off | strict | fix [--unsafe-fixes]]", file=sys.stderr)

    def status(self) -> str:
        if not self.enabled:
            return "off (`%gradlint on` to check cells again)"
        mode = "strict: cells with findings are not run" if self.strict else "on: cells are checked before they run"
        codes = ", ".join(rule.code for rule in self.rules)
        return f"{mode} ({len(self.history)} cells in the session; rules {codes})"

    def fixed_cell(self, unsafe: bool) -> str:
        """The source of the last flagged cell with its fixes applied (or why there is none)."""
        if self.flagged is None:
            return "gradlint: no cell has had a finding yet"
        from gradlint.fixer import fix_document

        history, source = self.flagged
        doc = session_document([*history, source])
        policy = self.config.fix_policy(unsafe)
        outcome = fix_document(doc, self.rules, policy)
        number = len(history) + 1
        new_source = doc.new_sources(outcome.text).get(number) if outcome.changed else None
        left = [
            d for d in (to_diagnostic(doc, rule, finding) for rule, finding in find(doc, self.rules))
            if d.cell == number and d.fixable and policy.allows(d.code) and not policy.applies(d.code, d.applicability)
        ]
        note = ""
        if left:
            codes = ", ".join(dict.fromkeys(d.code for d in left))
            note = f"\n# gradlint: unsafe fixes of {codes} left out (`%gradlint fix --unsafe-fixes` applies them)"
        if new_source is None:
            return f"gradlint: no fix applies to the last flagged cell{note}"
        return f"{new_source.rstrip()}{note}"

    @staticmethod
    def _say(text: str) -> None:
        print(text if text.startswith("gradlint") else f"gradlint: {text}", file=sys.stderr)


def warning(d: Diagnostic) -> str:
    """One finding, short: where in the cell, the code, the message, and what the fix does."""
    fix = ""
    if d.fix:
        fix = f"\n  fix{' (unsafe)' if d.applicability == 'unsafe' else ''}: {d.fix}"
    return f"gradlint: cell line {d.span.line}: {d.code} {d.name}: {d.message}{fix}"
