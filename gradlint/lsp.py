"""The language server (`gradlint lsp`): diagnostics, quick fixes, fix-all, ignore, and hover.

Built on pygls 2 and spoken over stdio. What it does:

* publishes diagnostics when a Python file (or a Jupyter notebook, through LSP 3.17 notebook
  sync) is opened or saved, and 200 ms after the last change while typing;
* code actions: each diagnostic's fix as a quick fix, "Ignore GLxxx on this line" (appends
  `# gradlint: ignore[GLxxx]`), and a `source.fixAll.gradlint` action that applies every fix
  (its edit is computed on `codeAction/resolve` when the client supports it, else at once);
* hover over a diagnostic shows the rule's documentation;
* the configuration is the `[tool.gradlint]` of the pyproject.toml nearest to the document.

A notebook is checked as the adapter of `gradlint.sources.notebook` sees it: its code cells
joined into one virtual module (so a loop can use an optimizer from an earlier cell); each
cell's diagnostics are published to that cell's URI, and fixes edit the cells they touch.

The analysis of each document version is kept (document adapter, findings, diagnostics), so code
actions and hovers reuse it instead of parsing again; only fixes run libcst.

Nothing in here is imported by `gradlint check`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from gradlint import __version__
from gradlint.config import Config, ConfigError, load_config
from gradlint.diagnostics import Diagnostic, Edit, Span
from gradlint.linter import InternalError, find, to_diagnostic
from gradlint.report.lsp_format import lsp_diagnostic
from gradlint.rules import BY_CODE, Finding, Rule
from gradlint.sources import Document, SourceError, load_document
from gradlint.sources.document import split_lines
from gradlint.sources.python import PythonDocument
from gradlint.suppression import ignore_list

log = logging.getLogger("gradlint.lsp")

DEBOUNCE_SECONDS = 0.2
FIX_ALL_KIND = "source.fixAll.gradlint"
PYTHON_SUFFIXES = (".py", ".pyi")

_converter = get_converter()


@dataclass
class Analysis:
    """One version of one document (a text document, or a notebook), checked."""

    uri: str  # the text document's or the notebook's URI
    version: int | None
    text: str  # the text it was made from (for notebooks, the cells' sources joined)
    path: str
    doc: Document | None = None
    rules: list[Rule] = field(default_factory=list)
    pairs: list[tuple[Rule, Finding]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: str | None = None
    # notebooks: cell number (1-based, among all cells) -> (cell URI, cell text, cell version)
    cells: dict[int, tuple[str, str, int | None]] = field(default_factory=dict)

    def target(self, cell: int | None) -> str | None:
        """The URI diagnostics and edits of `cell` go to."""
        if cell is None:
            return None if self.cells else self.uri
        entry = self.cells.get(cell)
        return entry[0] if entry else None

    def cell_of(self, uri: str) -> int | None:
        for number, (cell_uri, _, _) in self.cells.items():
            if cell_uri == uri:
                return number
        return None

    def lines(self, target: str) -> list[str]:
        """The lines (without endings) of the text behind a target URI."""
        if not self.cells:
            return _lines(self.text)
        for cell_uri, text, _ in self.cells.values():
            if cell_uri == target:
                return _lines(text)
        return []

    def version_of(self, target: str) -> int | None:
        if not self.cells:
            return self.version
        for cell_uri, _, version in self.cells.values():
            if cell_uri == target:
                return version
        return None


class GradlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "gradlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[
                    types.NotebookDocumentFilterWithCells(
                        notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")]
                    ),
                ],
                save=True,
            ),
        )
        self.analyses: dict[str, Analysis] = {}
        self.published: dict[str, set[str]] = {}  # owner URI -> URIs it published diagnostics to
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.config_errors: set[str] = set()
        self.debounce = float(os.environ.get("GRADLINT_LSP_DEBOUNCE_MS", DEBOUNCE_SECONDS * 1000)) / 1000

    # -- what a URI is -----------------------------------------------------------------------

    def path_for(self, uri: str, suffix: str = ".py") -> str:
        """The file system path of a document, or a made-up one in the workspace for unsaved
        documents (used for the configuration and in reports)."""
        try:
            path = to_fs_path(uri) if uri.startswith("file:") else None
        except Exception:
            path = None
        if path:
            return path
        root = self.workspace.root_path or os.getcwd()
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", uri.rsplit("/", 1)[-1].rsplit(":", 1)[-1]) or "untitled"
        return os.path.join(root, name if name.endswith(suffix) else name + suffix)

    def owner_of(self, uri: str) -> str:
        """The URI whose analysis covers `uri`: the notebook for a cell, else itself."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        return notebook.uri if notebook is not None else uri

    def is_python(self, uri: str) -> bool:
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return False
        path = self.path_for(uri)
        return (document.language_id or "") == "python" or path.endswith(PYTHON_SUFFIXES)

    def units(self) -> Callable[[str], int]:
        encoding = self.workspace.position_encoding
        if encoding == types.PositionEncodingKind.Utf8:
            return lambda text: len(text.encode("utf-8", "surrogatepass"))
        if encoding == types.PositionEncodingKind.Utf32:
            return len
        return lambda text: len(text.encode("utf-16-le", "surrogatepass")) // 2

    def config_for(self, path: str) -> Config:
        try:
            return load_config(Path(path).parent)
        except ConfigError as error:
            message = str(error)
            if message not in self.config_errors:
                self.config_errors.add(message)
                self.window_show_message(
                    types.ShowMessageParams(types.MessageType.Warning, f"gradlint: {message}; using the defaults")
                )
            return Config()

    # -- checking ----------------------------------------------------------------------------

    def analyse(self, owner: str) -> Analysis | None:
        """The analysis of the current version of `owner`, made now if needed."""
        notebook = self.workspace.get_notebook_document(notebook_uri=owner)
        if notebook is not None:
            return self._analyse_notebook(notebook)
        if owner not in self.workspace.text_documents or not self.is_python(owner):
            return None
        document = self.workspace.get_text_document(owner)
        text = document.source
        cached = self.analyses.get(owner)
        if cached is not None and cached.text == text:
            cached.version = document.version
            return cached
        path = self.path_for(owner)
        analysis = Analysis(owner, document.version, text, path)
        self._check(analysis, lambda: PythonDocument(path, text))
        self.analyses[owner] = analysis
        return analysis

    def _analyse_notebook(self, notebook: types.NotebookDocument) -> Analysis:
        cells: dict[int, tuple[str, str, int | None]] = {}
        entries = []
        for number, cell in enumerate(notebook.cells, start=1):
            document = self.workspace.text_documents.get(cell.document)
            text = document.source if document is not None else ""
            version = document.version if document is not None else None
            cells[number] = (cell.document, text, version)
            if cell.kind == types.NotebookCellKind.Code:
                metadata: dict[str, Any] = {}
                language = document.language_id if document is not None else None
                if language:
                    metadata["vscode"] = {"languageId": language}
                entries.append(
                    {"cell_type": "code", "execution_count": None, "metadata": metadata, "outputs": [], "source": text}
                )
            else:
                entries.append({"cell_type": "markdown", "metadata": {}, "source": text})
        metadata = notebook.metadata if isinstance(notebook.metadata, dict) else {}
        data = json.dumps(
            {"cells": entries, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}, indent=1, ensure_ascii=False
        )
        cached = self.analyses.get(notebook.uri)
        if cached is not None and cached.text == data and cached.cells == cells:
            cached.version = notebook.version
            return cached
        path = self.path_for(notebook.uri, ".ipynb")
        if not path.endswith(".ipynb"):
            path += ".ipynb"
        analysis = Analysis(notebook.uri, notebook.version, data, path, cells=cells)
        self._check(analysis, lambda: load_document(path, data.encode("utf-8")))
        self.analyses[notebook.uri] = analysis
        return analysis

    def _check(self, analysis: Analysis, make: Callable[[], Document]) -> None:
        config = self.config_for(analysis.path)
        if config.excluded(analysis.path):
            return
        try:
            analysis.rules = config.rules_for(analysis.path)
            analysis.doc = make()
            analysis.pairs = find(analysis.doc, analysis.rules)
            analysis.diagnostics = [to_diagnostic(analysis.doc, rule, finding) for rule, finding in analysis.pairs]
        except SourceError as error:  # typing half a statement: nothing to say until it parses
            analysis.error = str(error)
            analysis.pairs, analysis.diagnostics = [], []
        except InternalError as error:
            analysis.error = str(error)
            analysis.pairs, analysis.diagnostics = [], []
            self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"gradlint: {error}"))

    def lsp_diagnostics(self, analysis: Analysis, target: str) -> list[types.Diagnostic]:
        lines = analysis.lines(target)
        units = self.units()

        def line_text(n: int) -> str | None:
            return lines[n - 1] if 0 < n <= len(lines) else None

        return [
            _converter.structure(lsp_diagnostic(d, line_text, units=units), types.Diagnostic)
            for d in analysis.diagnostics
            if analysis.target(d.cell) == target
        ]

    def lsp_diagnostics_all(self, analysis: Analysis, target: str) -> list[types.Diagnostic | None]:
        """`lsp_diagnostics` aligned with `analysis.diagnostics` (None for other targets)."""
        mine = iter(self.lsp_diagnostics(analysis, target))
        return [next(mine) if analysis.target(d.cell) == target else None for d in analysis.diagnostics]

    def publish(self, owner: str) -> None:
        self.cancel(owner)
        try:
            analysis = self.analyse(owner)
        except Exception as error:  # never take the editor's session down
            log.exception("gradlint: analysing %s failed", owner)
            self.window_log_message(
                types.LogMessageParams(types.MessageType.Error, f"gradlint: {owner}: {type(error).__name__}: {error}")
            )
            return
        if analysis is None:
            return
        targets = [uri for number, (uri, _, _) in analysis.cells.items()] if analysis.cells else [owner]
        for target in set(self.published.get(owner, ())) - set(targets):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=target, diagnostics=[]))
        for target in targets:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=target,
                    version=analysis.version_of(target),
                    diagnostics=self.lsp_diagnostics(analysis, target),
                )
            )
        self.published[owner] = set(targets)

    def clear(self, owner: str) -> None:
        self.cancel(owner)
        self.analyses.pop(owner, None)
        for target in self.published.pop(owner, set()):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=target, diagnostics=[]))

    def schedule(self, owner: str) -> None:
        self.cancel(owner)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.publish(owner)
            return
        self.pending[owner] = loop.call_later(self.debounce, self.publish, owner)

    def cancel(self, owner: str) -> None:
        handle = self.pending.pop(owner, None)
        if handle is not None:
            handle.cancel()

    # -- edits -------------------------------------------------------------------------------

    def workspace_edit(self, analysis: Analysis, edits: Sequence[Edit]) -> types.WorkspaceEdit:
        units = self.units()
        grouped: dict[str, list[types.TextEdit]] = {}
        for edit in edits:
            target = analysis.target(edit.cell)
            if target is None:
                continue
            lines = analysis.lines(target)
            grouped.setdefault(target, []).append(
                types.TextEdit(range=_range(edit.span, lines, units), new_text=edit.text)
            )
        if _supports(self.client_capabilities, "workspace", "workspace_edit", "document_changes"):
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(
                            uri=target, version=analysis.version_of(target)
                        ),
                        edits=text_edits,
                    )
                    for target, text_edits in grouped.items()
                ]
            )
        return types.WorkspaceEdit(changes=grouped)

    def can_resolve_edits(self) -> bool:
        support = getattr(getattr(self.client_capabilities.text_document, "code_action", None), "resolve_support", None)
        return support is not None and "edit" in (support.properties or ())

    async def in_thread(self, function: Callable, *args):
        """Run slow work (libcst) off the event loop, so diagnostics and hovers keep flowing."""
        return await asyncio.get_running_loop().run_in_executor(self.thread_pool, function, *args)

    def resolve_edit(self, action: types.CodeAction, analysis: Analysis) -> bool:
        """Give a fix action (made by `code_action`) its edit; False when there is none."""
        data = action.data if isinstance(action.data, dict) else {}
        try:
            if action.kind == FIX_ALL_KIND:
                edits = self.fix_all_edits(analysis)
            else:
                wanted = (data.get("code"), data.get("cell"), tuple(data.get("span") or ()))
                match = next((d for d in analysis.diagnostics if (d.code, d.cell, span_tuple(d)) == wanted), None)
                edits = self.fix_edits(analysis, match) if match is not None else None
        except Exception:  # a fix that crashes is a fix not offered
            log.exception("gradlint: computing the edit of %r failed", action.title)
            edits = None
        if not edits:
            return False
        action.edit = self.workspace_edit(analysis, edits)
        return True

    def fix_edits(self, analysis: Analysis, diagnostic: Diagnostic) -> list[Edit] | None:
        """The edits of one diagnostic's fix, from the findings already at hand."""
        from gradlint.fixer import fixed_text
        from gradlint.transform import FixError

        if analysis.doc is None:
            return None
        for rule, finding in analysis.pairs:
            if finding.fix and to_diagnostic(analysis.doc, rule, finding) == diagnostic:
                try:
                    return analysis.doc.edits(fixed_text(analysis.doc, finding))
                except (FixError, SourceError):
                    return None
                except Exception:
                    log.exception("gradlint: fix of %s failed", diagnostic.code)
                    return None
        return None

    def fix_all_edits(self, analysis: Analysis) -> list[Edit]:
        from gradlint.fixer import fix_document

        if analysis.doc is None or not any(d.fixable for d in analysis.diagnostics):
            return []
        outcome = fix_document(analysis.doc, analysis.rules)
        return analysis.doc.edits(outcome.text) if outcome.changed else []

    def ignore_edit(self, analysis: Analysis, diagnostic: Diagnostic) -> list[Edit] | None:
        """`  # gradlint: ignore[GLxxx]` at the end of the diagnostic's first line (or the code
        added to the directive already there); None where a comment cannot go."""
        target = analysis.target(diagnostic.cell)
        if target is None:
            return None
        lines = analysis.lines(target)
        number = diagnostic.span.line
        if not 0 < number <= len(lines):
            return None
        line = lines[number - 1]
        existing = ignore_list(line)
        if existing:
            codes, start, end = existing
            text = ", ".join([*codes, diagnostic.code])
            span = Span(number, start, number, end)
            return [Edit(span, text, diagnostic.cell)]
        if line.rstrip().endswith("\\"):
            return None  # a backslash continuation: no comment can follow it
        column = len(line.rstrip())
        span = Span(number, column, number, len(line))
        return [Edit(span, f"  # gradlint: ignore[{diagnostic.code}]", diagnostic.cell)]

    # -- positions ---------------------------------------------------------------------------

    def diagnostics_at(self, analysis: Analysis, uri: str, start: types.Position, end: types.Position) -> list[Diagnostic]:
        """The diagnostics of `uri` whose range meets [start, end] (client positions)."""
        cell = analysis.cell_of(uri) if analysis.cells else None
        lines = analysis.lines(uri)
        codec = self.workspace.position_codec
        first = codec.position_from_client_units(lines, types.Position(start.line, start.character)) if lines else start
        last = codec.position_from_client_units(lines, types.Position(end.line, end.character)) if lines else end
        lo = (first.line + 1, first.character)
        hi = (last.line + 1, last.character)
        found = []
        for d in analysis.diagnostics:
            if d.cell != cell:
                continue
            d_lo = (d.span.line, d.span.column)
            d_hi = (d.span.end_line, d.span.end_column)
            if d_lo <= hi and lo <= d_hi:
                found.append(d)
        return found


def _lines(text: str) -> list[str]:
    """Lines as LSP and the ast count them: only \\n, \\r\\n and \\r end a line (not the form
    feeds and Unicode separators that str.splitlines also splits at)."""
    lines = split_lines(text)
    # Unlike split_lines, no empty piece after a final line break, as pygls counts a document's
    # lines (str.splitlines): position_from_client_units clamps a position past them to the end
    # of the last line, and ignore_edit writes no directive after the final line break.
    if lines[-1] == "":
        lines.pop()
    return lines


def span_tuple(d: Diagnostic) -> tuple[int, int, int, int]:
    return (d.span.line, d.span.column, d.span.end_line, d.span.end_column)


def _action_data(owner: str, analysis: Analysis, d: Diagnostic) -> dict:
    return {"owner": owner, "version": analysis.version, "code": d.code, "cell": d.cell, "span": list(span_tuple(d))}


def _supports(capabilities: Any, *path: str) -> bool:
    value = capabilities
    for name in path:
        value = getattr(value, name, None)
        if value is None:
            return False
    return bool(value)


def _range(span, lines: list[str], units: Callable[[str], int]) -> types.Range:
    def position(line: int, column: int) -> types.Position:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return types.Position(line=max(line - 1, 0), character=units(text[:column]))

    return types.Range(start=position(span.line, span.column), end=position(span.end_line, span.end_column))


def _wants(only: Sequence[str] | None, kind: str) -> bool:
    """Whether a code action of `kind` matches the client's `only` filter (kinds are
    hierarchical: `source` asks for `source.fixAll.gradlint` too)."""
    if not only:
        return True
    return any(kind == want or kind.startswith(f"{want}.") for want in map(str, only))


def make_server() -> GradlintServer:
    server = GradlintServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GradlintServer, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        if ls.workspace.get_notebook_document(cell_uri=uri) is None:
            ls.publish(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: GradlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(ls.owner_of(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: GradlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.publish(ls.owner_of(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: GradlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.clear(params.text_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: GradlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.publish(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls: GradlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls: GradlintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.publish(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls: GradlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.clear(params.notebook_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND],
            resolve_provider=True,
        ),
    )
    async def code_action(ls: GradlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        """Cheap by design: editors ask on every cursor move. Fix edits (libcst) are computed on
        `codeAction/resolve` when the client can resolve, else in a worker thread."""
        uri = params.text_document.uri
        owner = ls.owner_of(uri)
        ls.cancel(owner)  # the user is waiting: check the current text now, not in 200 ms
        analysis = ls.analyse(owner)
        if analysis is None or analysis.doc is None:
            return None
        only = params.context.only
        lazy = ls.can_resolve_edits()
        actions: list[types.CodeAction] = []
        if _wants(only, types.CodeActionKind.QuickFix):
            published = dict(zip(analysis.diagnostics, ls.lsp_diagnostics_all(analysis, uri)))
            for d in ls.diagnostics_at(analysis, uri, params.range.start, params.range.end):
                lsp = [published[d]] if published.get(d) is not None else None
                if d.fixable:
                    action = types.CodeAction(
                        title=f"{d.code}: {d.fix}",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=lsp,
                        is_preferred=True,
                        data=_action_data(owner, analysis, d),
                    )
                    if lazy or await ls.in_thread(ls.resolve_edit, action, analysis):
                        actions.append(action)
                ignore = ls.ignore_edit(analysis, d)
                if ignore:
                    actions.append(
                        types.CodeAction(
                            title=f"Ignore {d.code} on this line",
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=lsp,
                            edit=ls.workspace_edit(analysis, ignore),
                        )
                    )
        if _wants(only, FIX_ALL_KIND) and any(d.fixable for d in analysis.diagnostics):
            action = types.CodeAction(
                title="Fix all gradlint issues",
                kind=FIX_ALL_KIND,
                data={"owner": owner, "version": analysis.version},
            )
            if lazy or await ls.in_thread(ls.resolve_edit, action, analysis):
                actions.append(action)
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: GradlintServer, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        owner = data.get("owner")
        if owner and action.edit is None:
            analysis = ls.analyse(owner)
            if analysis is not None:
                await ls.in_thread(ls.resolve_edit, action, analysis)
        return action

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: GradlintServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        analysis = ls.analyses.get(ls.owner_of(uri)) or ls.analyse(ls.owner_of(uri))
        if analysis is None:
            return None
        found = ls.diagnostics_at(analysis, uri, params.position, params.position)
        if not found:
            return None
        parts = []
        for code in dict.fromkeys(d.code for d in found):
            parts.append(rule_markdown(code))
        first = found[0]
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)),
            range=_range(first.span, analysis.lines(uri), ls.units()),
        )

    return server


def rule_markdown(code: str) -> str:
    from gradlint.docs import rule_doc

    try:
        doc = rule_doc(code)
    except OSError:
        doc = None
    if doc:
        return doc
    rule = BY_CODE.get(code)
    if rule is None:
        return f"**{code}**"
    return f"**{rule.code}** `{rule.name}`\n\n{rule.summary}\n\n[Documentation]({rule.url})"


def serve() -> None:
    """Run the server on stdin/stdout until the client ends the session."""
    logging.basicConfig(level=os.environ.get("GRADLINT_LSP_LOG", "WARNING").upper(), format="%(name)s: %(message)s")
    make_server().start_io()
