"""The LSP methods the server answers, each a thin handler over the server's parts."""

from __future__ import annotations

import logging
import os
from typing import Sequence

from lsprotocol import types

from gradlint.diagnostics import Diagnostic
from gradlint.lsp.analysis import Analysis
from gradlint.lsp.edits import (
    fix_all_edits,
    fix_applies,
    fix_edits,
    fix_title,
    ignore_edit,
    lsp_range,
    workspace_edit,
)
from gradlint.lsp.hover import rule_markdown, rules_markdown, suppressed_rules_at
from gradlint.lsp.server import GradlintServer

log = logging.getLogger("gradlint.lsp")

FIX_ALL_KIND = "source.fixAll.gradlint"
APPLY_AUTOFIX = "gradlint.applyAutofix"


def make_server() -> GradlintServer:
    server = GradlintServer()

    # -- session and settings ----------------------------------------------------------------

    @server.feature(types.INITIALIZE)
    def initialize(ls: GradlintServer, params: types.InitializeParams) -> None:
        ls.apply_settings(params.initialization_options)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: GradlintServer, params: types.DidChangeConfigurationParams) -> None:
        if isinstance(params.settings, dict) and params.settings:
            ls.apply_settings(params.settings)
            ls.refresh_all()

    # -- document sync (push diagnostics for clients that do not pull) -----------------------

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GradlintServer, params: types.DidOpenTextDocumentParams) -> None:
        if not ls.store.is_cell(params.text_document.uri):
            ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: GradlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(ls.store.owner_of(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: GradlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.publish(ls.store.owner_of(params.text_document.uri))

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

    # -- pull diagnostics ----------------------------------------------------------------------

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(identifier="gradlint", inter_file_dependencies=False, workspace_diagnostics=True),
    )
    def document_diagnostic(ls: GradlintServer, params: types.DocumentDiagnosticParams):
        uri = params.text_document.uri
        ls.cancel(ls.store.owner_of(uri))
        analysis = ls.safe_analyse(ls.store.owner_of(uri))
        if analysis is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        result_id = f"{analysis.result_id}:{uri}"
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=ls.lsp_diagnostics(analysis, uri), result_id=result_id)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    def workspace_diagnostic(ls: GradlintServer, params: types.WorkspaceDiagnosticParams):
        """The open documents' diagnostics (gradlint checks what the editor shows; the command
        line checks the rest of the workspace)."""
        previous = {p.uri: p.value for p in params.previous_result_ids or []}
        items: list = []
        for owner in ls.store.open_owners():
            analysis = ls.safe_analyse(owner)
            if analysis is None:
                continue
            for target in analysis.snapshot.targets():
                result_id = f"{analysis.result_id}:{target}"
                version = analysis.snapshot.version_of(target)
                if previous.get(target) == result_id:
                    items.append(
                        types.WorkspaceUnchangedDocumentDiagnosticReport(uri=target, version=version, result_id=result_id)
                    )
                else:
                    diagnostics = ls.lsp_diagnostics(analysis, target)
                    items.append(
                        types.WorkspaceFullDocumentDiagnosticReport(
                            uri=target, version=version, items=diagnostics, result_id=result_id
                        )
                    )
        return types.WorkspaceDiagnosticReport(items=items)

    # -- code actions and commands ----------------------------------------------------------------

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=True),
    )
    async def code_action(ls: GradlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        """Cheap by design: editors ask on every cursor move. Fix edits (libcst) are computed on
        `codeAction/resolve` when the client can resolve, else in a worker thread."""
        uri = params.text_document.uri
        owner = ls.store.owner_of(uri)
        ls.cancel(owner)  # the user is waiting: check the current text now, not in 200 ms
        analysis = ls.safe_analyse(owner)
        if analysis is None or analysis.doc is None:
            return None
        only = params.context.only
        lazy = ls.supports("text_document", "code_action", "resolve_support") and "edit" in (
            ls.client_capabilities.text_document.code_action.resolve_support.properties or ()
        )
        actions: list[types.CodeAction] = []
        if _wants(only, types.CodeActionKind.QuickFix):
            published = dict(zip(analysis.diagnostics, ls.lsp_diagnostics_aligned(analysis, uri)))
            for d in _diagnostics_at(ls, analysis, uri, params.range):
                lsp = [published[d]] if published.get(d) is not None else None
                if d.fixable:
                    action = types.CodeAction(
                        title=fix_title(d),
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=lsp,
                        is_preferred=d.applicability == "safe",
                        data=_action_data(owner, analysis, d),
                    )
                    if lazy or await ls.in_thread(_resolve_edit, ls, action, analysis):
                        actions.append(action)
                ignore = ignore_edit(analysis, d)
                if ignore:
                    actions.append(
                        types.CodeAction(
                            title=f"Ignore {d.code} on this line",
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=lsp,
                            edit=_workspace_edit(ls, analysis, ignore),
                        )
                    )
        if _wants(only, FIX_ALL_KIND) and any(fix_applies(d, ls.settings.unsafe_fixes) for d in analysis.diagnostics):
            action = types.CodeAction(
                title="Fix all gradlint issues",
                kind=FIX_ALL_KIND,
                data={"owner": owner, "version": analysis.snapshot.version},
            )
            if lazy or await ls.in_thread(_resolve_edit, ls, action, analysis):
                actions.append(action)
        return actions

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: GradlintServer, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        owner = data.get("owner")
        if owner and action.edit is None:
            analysis = ls.safe_analyse(owner)
            if analysis is not None:
                await ls.in_thread(_resolve_edit, ls, action, analysis)
        return action

    @server.command(APPLY_AUTOFIX)
    async def apply_autofix(ls: GradlintServer, *arguments) -> None:
        """Fix all of one document (`[{"uri": ..., "version": ...}]`, as ruff's command takes),
        through `workspace/applyEdit`."""
        for argument in arguments:
            uri = argument.get("uri") if isinstance(argument, dict) else argument
            if not isinstance(uri, str):
                continue
            analysis = ls.safe_analyse(ls.store.owner_of(uri))
            if analysis is None or analysis.doc is None:
                continue
            edits = await ls.in_thread(_fix_all, ls, analysis)
            if edits:
                result = await ls.workspace_apply_edit_async(
                    types.ApplyWorkspaceEditParams(edit=_workspace_edit(ls, analysis, edits), label="gradlint: fix all")
                )
                if not result.applied:
                    ls.warn(f"the client did not apply the fixes: {result.failure_reason or 'no reason given'}")

    # -- hover -----------------------------------------------------------------------------------

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: GradlintServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        analysis = ls.safe_analyse(ls.store.owner_of(uri))
        if analysis is None:
            return None
        lines = analysis.snapshot.lines(uri)
        position = _position(ls, lines, params.position)
        line = lines[position.line] if position.line < len(lines) else ""
        named = suppressed_rules_at(line, position.character)
        if named is not None:
            rules, start, end = named
            span_range = lsp_range(_span(position.line + 1, start, end), lines, ls.units())
            return _markdown(rules_markdown(rules), span_range)
        found = _diagnostics_at(ls, analysis, uri, types.Range(params.position, params.position))
        if not found:
            return None
        text = "\n\n---\n\n".join(rule_markdown(code) for code in dict.fromkeys(d.code for d in found))
        return _markdown(text, lsp_range(found[0].span, lines, ls.units()))

    return server


# -- helpers ------------------------------------------------------------------------------------


def _markdown(text: str, where: types.Range) -> types.Hover:
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=where)


def _span(line: int, start: int, end: int):
    from gradlint.diagnostics import Span

    return Span(line, start, line, end)


def _workspace_edit(ls: GradlintServer, analysis: Analysis, edits) -> types.WorkspaceEdit:
    versioned = ls.supports("workspace", "workspace_edit", "document_changes")
    return workspace_edit(analysis, edits, ls.units(), versioned)


def _fix_all(ls: GradlintServer, analysis: Analysis):
    try:
        return fix_all_edits(analysis, ls.settings.unsafe_fixes)
    except Exception:  # a fix that crashes is a fix not made
        log.exception("gradlint: fix all failed")
        return []


def _resolve_edit(ls: GradlintServer, action: types.CodeAction, analysis: Analysis) -> bool:
    """Give a fix action (made by `code_action`) its edit; False when there is none."""
    data = action.data if isinstance(action.data, dict) else {}
    if action.kind == FIX_ALL_KIND:
        edits = _fix_all(ls, analysis)
    else:
        wanted = (data.get("code"), data.get("cell"), tuple(data.get("span") or ()))
        match = next((d for d in analysis.diagnostics if (d.code, d.cell, _span_tuple(d)) == wanted), None)
        try:
            edits = fix_edits(analysis, match) if match is not None else None
        except Exception:  # a fix that crashes is a fix not offered
            log.exception("gradlint: computing the edit of %r failed", action.title)
            edits = None
    if not edits:
        return False
    action.edit = _workspace_edit(ls, analysis, edits)
    return True


def _position(ls: GradlintServer, lines: list[str], position: types.Position) -> types.Position:
    """A client position in code points."""
    if not lines:
        return position
    return ls.workspace.position_codec.position_from_client_units(lines, types.Position(position.line, position.character))


def _diagnostics_at(ls: GradlintServer, analysis: Analysis, uri: str, where: types.Range) -> list[Diagnostic]:
    """The diagnostics of `uri` whose range meets `where` (client positions)."""
    cell = analysis.snapshot.cell_of(uri) if analysis.snapshot.cells else None
    lines = analysis.snapshot.lines(uri)
    first, last = _position(ls, lines, where.start), _position(ls, lines, where.end)
    lo, hi = (first.line + 1, first.character), (last.line + 1, last.character)
    return [
        d
        for d in analysis.diagnostics
        if d.cell == cell and (d.span.line, d.span.column) <= hi and lo <= (d.span.end_line, d.span.end_column)
    ]


def _span_tuple(d: Diagnostic) -> tuple[int, int, int, int]:
    return (d.span.line, d.span.column, d.span.end_line, d.span.end_column)


def _action_data(owner: str, analysis: Analysis, d: Diagnostic) -> dict:
    return {"owner": owner, "version": analysis.snapshot.version, "code": d.code, "cell": d.cell, "span": list(_span_tuple(d))}


def _wants(only: Sequence[str] | None, kind: str) -> bool:
    """Whether a code action of `kind` matches the client's `only` filter (kinds are
    hierarchical: `source` asks for `source.fixAll.gradlint` too)."""
    if not only:
        return True
    return any(kind == want or kind.startswith(f"{want}.") for want in map(str, only))


def serve() -> None:
    """Run the server on stdin/stdout until the client ends the session."""
    logging.basicConfig(level=os.environ.get("GRADLINT_LSP_LOG", "WARNING").upper(), format="%(name)s: %(message)s")
    make_server().start_io()
