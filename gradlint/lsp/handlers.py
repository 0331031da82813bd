"""The LSP methods the server answers, each a thin handler over the server's parts."""

from __future__ import annotations

import logging
import os

from lsprotocol import types

from gradlint.diagnostics import Span
from gradlint.lsp.actions import KINDS, apply_autofix, code_actions, resolve
from gradlint.lsp.edits import lsp_range
from gradlint.lsp.hover import rule_markdown, rules_markdown, suppressed_rules_at
from gradlint.lsp.server import GradlintServer

log = logging.getLogger("gradlint.lsp")

APPLY_AUTOFIX = "gradlint.applyAutofix"


def make_server() -> GradlintServer:
    server = GradlintServer()

    # -- session and settings ----------------------------------------------------------------

    @server.feature(types.INITIALIZE)
    def initialize(ls: GradlintServer, params: types.InitializeParams) -> None:
        ls.apply_settings(params.initialization_options)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: GradlintServer, params: types.DidChangeConfigurationParams) -> None:
        """The new settings come with the notification, or (as VS Code does it, `settings:
        null`) are asked for: `workspace/configuration`, section `gradlint`."""
        settings = params.settings
        if not settings and ls.supports("workspace", "configuration"):
            items = [types.ConfigurationItem(section="gradlint")]
            answer = await ls.workspace_configuration_async(types.ConfigurationParams(items=items))
            settings = answer[0] if answer else None
        if isinstance(settings, dict):
            ls.apply_settings(settings)
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

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=True))
    async def code_action(ls: GradlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        return await code_actions(ls, params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: GradlintServer, action: types.CodeAction) -> types.CodeAction:
        return await resolve(ls, action)

    @server.command(APPLY_AUTOFIX)
    async def autofix(ls: GradlintServer, *arguments) -> None:
        await apply_autofix(ls, arguments)

    # -- hover -----------------------------------------------------------------------------------

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: GradlintServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        analysis = ls.safe_analyse(ls.store.owner_of(uri))
        if analysis is None:
            return None
        lines = analysis.snapshot.lines(uri)
        position = ls.code_points(lines, params.position)
        line = lines[position.line] if position.line < len(lines) else ""
        named = suppressed_rules_at(line, position.character)
        if named is not None:
            rules, start, end = named
            word = Span(position.line + 1, start, position.line + 1, end)
            return _markdown(rules_markdown(rules), lsp_range(word, lines, ls.units()))
        found = ls.diagnostics_at(analysis, uri, types.Range(params.position, params.position))
        if not found:
            return None
        text = "\n\n---\n\n".join(rule_markdown(code) for code in dict.fromkeys(d.code for d in found))
        return _markdown(text, lsp_range(found[0].span, lines, ls.units()))

    return server


# -- helpers ------------------------------------------------------------------------------------


def _markdown(text: str, where: types.Range) -> types.Hover:
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=where)


def serve() -> None:
    """Run the server on stdin/stdout until the client ends the session."""
    logging.basicConfig(level=os.environ.get("GRADLINT_LSP_LOG", "WARNING").upper(), format="%(name)s: %(message)s")
    make_server().start_io()
