"""The server object: the document store, the analysis cache, the client's settings, and
diagnostics (pushed to clients that do not pull, 200 ms after the last change)."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any, Callable

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.lsp.server import LanguageServer

from gradlint import __version__
from gradlint.config import Config, ConfigError
from gradlint.diagnostics import Diagnostic
from gradlint.lsp.analysis import Analysis, AnalysisCache, analyse
from gradlint.lsp.documents import DocumentStore
from gradlint.lsp.edits import Units, units_for
from gradlint.lsp.settings import ClientSettings
from gradlint.report.lsp_format import lsp_diagnostic

log = logging.getLogger("gradlint.lsp")

DEBOUNCE_SECONDS = 0.2
_converter = get_converter()


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
        self.cache = AnalysisCache()
        self.settings = ClientSettings()
        self.published: dict[str, set[str]] = {}  # owner URI -> URIs it published diagnostics to
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.told: set[str] = set()  # warnings already shown to the user
        self.debounce = float(os.environ.get("GRADLINT_LSP_DEBOUNCE_MS", DEBOUNCE_SECONDS * 1000)) / 1000

    # -- the client ------------------------------------------------------------------------

    @property
    def store(self) -> DocumentStore:
        return DocumentStore(self.workspace)

    @property
    def pulls(self) -> bool:
        """Whether the client pulls diagnostics (LSP 3.17); then nothing is pushed."""
        return getattr(self.client_capabilities.text_document, "diagnostic", None) is not None

    def supports(self, *path: str) -> bool:
        value: Any = self.client_capabilities
        for name in path:
            value = getattr(value, name, None)
            if value is None:
                return False
        return bool(value)

    def units(self) -> Units:
        return units_for(self.workspace.position_encoding)

    def warn(self, message: str) -> None:
        """Show a warning once per session (a broken config must not nag on every keystroke)."""
        if message not in self.told:
            self.told.add(message)
            self.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"gradlint: {message}"))

    def apply_settings(self, options: Any) -> None:
        self.settings, problems = ClientSettings.parse(options)
        for problem in problems:
            self.warn(problem)

    def config_for(self, path: str) -> Config:
        try:
            return self.settings.config_for(path)
        except ConfigError as error:
            self.warn(f"{error}; using the defaults")
            return Config()

    # -- checking ----------------------------------------------------------------------------

    def analyse(self, owner: str) -> Analysis | None:
        """The analysis of the current version of `owner`, made now if needed."""
        snapshot = self.store.snapshot(owner)
        if snapshot is None:
            return None
        cached = self.cache.current(snapshot, self.settings)
        if cached is not None:
            return cached
        config = self.config_for(snapshot.path)
        return self.cache.store(analyse(snapshot, self.settings, config, self.settings.unsafe_fixes, self.log_error))

    def log_error(self, message: str) -> None:
        self.window_log_message(types.LogMessageParams(types.MessageType.Error, message))

    def safe_analyse(self, owner: str) -> Analysis | None:
        """`analyse`, but a crash is logged, never sent up to take the editor's session down."""
        try:
            return self.analyse(owner)
        except Exception as error:
            log.exception("gradlint: analysing %s failed", owner)
            self.log_error(f"gradlint: {owner}: {type(error).__name__}: {error}")
            return None

    def lsp_diagnostics(self, analysis: Analysis, target: str) -> list[types.Diagnostic]:
        return [d for d in self.lsp_diagnostics_aligned(analysis, target) if d is not None]

    def lsp_diagnostics_aligned(self, analysis: Analysis, target: str) -> list[types.Diagnostic | None]:
        """The LSP diagnostics of `target`, aligned with `analysis.diagnostics` (None for the
        diagnostics of other cells)."""
        lines = analysis.snapshot.lines(target)
        units = self.units()

        def line_text(n: int) -> str | None:
            return lines[n - 1] if 0 < n <= len(lines) else None

        def convert(d: Diagnostic) -> types.Diagnostic:
            return _converter.structure(lsp_diagnostic(d, line_text, units=units), types.Diagnostic)

        return [convert(d) if analysis.snapshot.target(d.cell) == target else None for d in analysis.diagnostics]

    def code_points(self, lines: list[str], position: types.Position) -> types.Position:
        """A client position (in the client's units) in code points."""
        if not lines:
            return position
        codec = self.workspace.position_codec
        return codec.position_from_client_units(lines, types.Position(position.line, position.character))

    def diagnostics_at(self, analysis: Analysis, uri: str, where: types.Range) -> list[Diagnostic]:
        """The diagnostics of `uri` whose range meets `where` (client positions)."""
        cell = analysis.snapshot.cell_of(uri) if analysis.snapshot.cells else None
        lines = analysis.snapshot.lines(uri)
        first, last = self.code_points(lines, where.start), self.code_points(lines, where.end)
        lo, hi = (first.line + 1, first.character), (last.line + 1, last.character)
        return [
            d
            for d in analysis.diagnostics
            if d.cell == cell and (d.span.line, d.span.column) <= hi and lo <= (d.span.end_line, d.span.end_column)
        ]

    # -- pushing -----------------------------------------------------------------------------

    def publish(self, owner: str) -> None:
        self.cancel(owner)
        analysis = self.safe_analyse(owner)
        if analysis is None or self.pulls:
            return
        targets = analysis.snapshot.targets()
        for target in self.published.get(owner, set()) - set(targets):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=target, diagnostics=[]))
        for target in targets:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=target,
                    version=analysis.snapshot.version_of(target),
                    diagnostics=self.lsp_diagnostics(analysis, target),
                )
            )
        self.published[owner] = set(targets)

    def clear(self, owner: str) -> None:
        self.cancel(owner)
        self.cache.drop(owner)
        for target in self.published.pop(owner, set()):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=target, diagnostics=[]))

    def schedule(self, owner: str) -> None:
        """Check `owner` once the user stops typing (pull clients ask when they want)."""
        self.cancel(owner)
        if self.pulls:
            return
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

    def refresh_all(self) -> None:
        """After a settings change: re-push everything, or ask a pulling client to pull again."""
        self.cache.clear()
        if not self.pulls:
            for owner in self.store.open_owners():
                self.publish(owner)
        elif self.supports("workspace", "diagnostics", "refresh_support"):
            self.workspace_diagnostic_refresh(None)

    async def in_thread(self, function: Callable, *args):
        """Run slow work (libcst) off the event loop, so diagnostics and hovers keep flowing."""
        return await asyncio.get_running_loop().run_in_executor(self.thread_pool, function, *args)
