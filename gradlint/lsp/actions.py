"""Code actions and the fix-all command: what the user can do about a finding.

Cheap by design (editors ask on every cursor move): fix edits (libcst) are computed on
`codeAction/resolve` when the client can resolve, else in a worker thread.
"""

from __future__ import annotations

import logging
from typing import Sequence

from lsprotocol import types

from gradlint.diagnostics import Diagnostic, Edit
from gradlint.lsp.analysis import Analysis
from gradlint.lsp.edits import fix_all_edits, fix_applies, fix_edits, fix_title, ignore_edit, workspace_edit
from gradlint.lsp.server import GradlintServer

log = logging.getLogger("gradlint.lsp")

FIX_ALL_KIND = "source.fixAll.gradlint"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL_KIND]


async def code_actions(ls: GradlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
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
    if wants(only, types.CodeActionKind.QuickFix):
        published = dict(zip(analysis.diagnostics, ls.lsp_diagnostics_aligned(analysis, uri)))
        for d in ls.diagnostics_at(analysis, uri, params.range):
            lsp = [published[d]] if published.get(d) is not None else None
            if d.fixable and analysis.policy.allows(d.code):
                action = types.CodeAction(
                    title=fix_title(d),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=lsp,
                    is_preferred=d.applicability == "safe",
                    data=_action_data(owner, analysis, d),
                )
                if lazy or await ls.in_thread(resolve_edit, ls, action, analysis):
                    actions.append(action)
            ignore = ignore_edit(analysis, d)
            if ignore:
                title = f"Ignore {d.code} on this line"
                edit = edit_for(ls, analysis, ignore)
                actions.append(types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=lsp, edit=edit))
    if wants(only, FIX_ALL_KIND) and any(fix_applies(analysis, d) for d in analysis.diagnostics):
        data = {"owner": owner, "version": analysis.snapshot.version}
        action = types.CodeAction(title="Fix all gradlint issues", kind=FIX_ALL_KIND, data=data)
        if lazy or await ls.in_thread(resolve_edit, ls, action, analysis):
            actions.append(action)
    return actions


async def resolve(ls: GradlintServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    owner = data.get("owner")
    if owner and action.edit is None:
        analysis = ls.safe_analyse(owner)
        if analysis is not None:
            await ls.in_thread(resolve_edit, ls, action, analysis)
    return action


async def apply_autofix(ls: GradlintServer, arguments: Sequence) -> None:
    """Fix all of each document named (`[{"uri": ..., "version": ...}]`, as ruff's command
    takes them), through `workspace/applyEdit`."""
    for argument in arguments:
        uri = argument.get("uri") if isinstance(argument, dict) else argument
        if not isinstance(uri, str):
            continue
        analysis = ls.safe_analyse(ls.store.owner_of(uri))
        if analysis is None or analysis.doc is None:
            continue
        edits = await ls.in_thread(fix_all, analysis)
        if edits:
            params = types.ApplyWorkspaceEditParams(edit=edit_for(ls, analysis, edits), label="gradlint: fix all")
            result = await ls.workspace_apply_edit_async(params)
            if not result.applied:
                ls.warn(f"the client did not apply the fixes: {result.failure_reason or 'no reason given'}")


def edit_for(ls: GradlintServer, analysis: Analysis, edits: Sequence[Edit]) -> types.WorkspaceEdit:
    versioned = ls.supports("workspace", "workspace_edit", "document_changes")
    return workspace_edit(analysis, edits, ls.units(), versioned)


def fix_all(analysis: Analysis) -> list[Edit]:
    try:
        return fix_all_edits(analysis)
    except Exception:  # a fix that crashes is a fix not made
        log.exception("gradlint: fix all failed")
        return []


def resolve_edit(ls: GradlintServer, action: types.CodeAction, analysis: Analysis) -> bool:
    """Give a fix action (made by `code_actions`) its edit; False when there is none."""
    data = action.data if isinstance(action.data, dict) else {}
    if action.kind == FIX_ALL_KIND:
        edits = fix_all(analysis)
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
    action.edit = edit_for(ls, analysis, edits)
    return True


def wants(only: Sequence[str] | None, kind: str) -> bool:
    """Whether a code action of `kind` matches the client's `only` filter (kinds are
    hierarchical: `source` asks for `source.fixAll.gradlint` too)."""
    if not only:
        return True
    return any(kind == want or kind.startswith(f"{want}.") for want in map(str, only))


def _span_tuple(d: Diagnostic) -> tuple[int, int, int, int]:
    return (d.span.line, d.span.column, d.span.end_line, d.span.end_column)


def _action_data(owner: str, analysis: Analysis, d: Diagnostic) -> dict:
    span = list(_span_tuple(d))
    return {"owner": owner, "version": analysis.snapshot.version, "code": d.code, "cell": d.cell, "span": span}
