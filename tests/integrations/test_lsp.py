"""The language server, driven by a real LSP client over stdio (pytest-lsp spawns
`python -m gradlint lsp`): diagnostics, quick fixes, fix-all, ignore, hover, notebooks."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from integration_data import ACCUMULATION_LATE_CLIP as ACCUMULATION  # noqa: E402
from lsp_helpers import apply, change_cell, edits_for, open_notebook  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

BUGGY = '''\
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in batches:
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
'''


WORKSPACE: Path | None = None


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "gradlint", "lsp"],
        server_env=dict(os.environ, GRADLINT_LSP_DEBOUNCE_MS="50"),
    ),
)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    global WORKSPACE
    WORKSPACE = tmp_path_factory.mktemp("workspace")
    capabilities = client_capabilities("visual-studio-code")
    # VS Code syncs notebooks since 1.7x; the recorded 1.65 capabilities predate it
    capabilities.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities(execution_summary_support=True)
    )
    params = types.InitializeParams(
        capabilities=capabilities,
        root_uri=WORKSPACE.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=WORKSPACE.as_uri(), name="workspace")],
    )
    result = await lsp_client.initialize_session(params)
    lsp_client.server_capabilities = result.capabilities
    yield
    await lsp_client.shutdown_session()


# -- helpers ---------------------------------------------------------------------------------


async def published(client: LanguageClient, uri: str, timeout: float = 10) -> list[types.Diagnostic]:
    """Wait for the next publishDiagnostics for `uri`."""

    async def wait():
        while True:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            if uri in client.diagnostics:
                return client.diagnostics[uri]

    client.diagnostics.pop(uri, None)
    return await asyncio.wait_for(wait(), timeout)


async def resolved(client: LanguageClient, action: types.CodeAction) -> types.CodeAction:
    """The action with its edit: VS Code's capabilities let the server compute edits lazily."""
    if action.edit is None:
        action = await client.code_action_resolve_async(action)
    assert action.edit is not None, action
    return action


def open_file(client: LanguageClient, name: str, text: str) -> str:
    path = WORKSPACE / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    )
    return uri


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def actions(client: LanguageClient, uri: str, diagnostic: types.Diagnostic | None, only=None):
    where = diagnostic.range if diagnostic else types.Range(types.Position(0, 0), types.Position(0, 0))
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=where,
            context=types.CodeActionContext(diagnostics=[diagnostic] if diagnostic else [], only=only),
        )
    )


# -- tests -----------------------------------------------------------------------------------


async def test_capabilities(client: LanguageClient):
    caps = client.server_capabilities
    assert caps.hover_provider
    assert caps.code_action_provider.resolve_provider
    assert "source.fixAll.gradlint" in caps.code_action_provider.code_action_kinds
    assert caps.notebook_document_sync is not None


async def test_diagnostics_on_open(client: LanguageClient):
    uri = open_file(client, "open.py", BUGGY)
    diagnostics = await published(client, uri)
    assert [d.code for d in diagnostics] == ["GL101"]
    (d,) = diagnostics
    assert d.source == "gradlint"
    assert d.severity == types.DiagnosticSeverity.Error
    assert d.range.start == types.Position(9, 4)
    assert d.range.end.line == 9
    assert d.code_description.href.endswith("GL101.md")
    assert d.data["fix"]["title"]


async def test_quick_fix_then_clean(client: LanguageClient):
    uri = open_file(client, "quickfix.py", BUGGY)
    (diagnostic,) = await published(client, uri)
    found = await actions(client, uri, diagnostic)
    quick = [a for a in found if a.kind == types.CodeActionKind.QuickFix and a.title.startswith("GL101")]
    assert len(quick) == 1 and quick[0].is_preferred
    assert quick[0].diagnostics and quick[0].diagnostics[0].code == "GL101"
    fix = await resolved(client, quick[0])
    fixed = apply(BUGGY, edits_for(fix.edit, uri))
    assert fixed.index("clip_grad_norm_") < fixed.index("optimizer.step()")
    change(client, uri, 2, fixed)
    assert list(await published(client, uri)) == []


async def test_ignore_action(client: LanguageClient):
    uri = open_file(client, "ignore.py", BUGGY)
    (diagnostic,) = await published(client, uri)
    found = await actions(client, uri, diagnostic, only=[types.CodeActionKind.QuickFix])
    (ignore,) = [a for a in found if a.title == "Ignore GL101 on this line"]
    fixed = apply(BUGGY, edits_for(ignore.edit, uri))
    assert "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # gradlint: ignore[GL101]\n" in fixed
    change(client, uri, 2, fixed)
    assert list(await published(client, uri)) == []


async def test_fix_all_source_action_applies_safe_fixes_only(client: LanguageClient):
    uri = open_file(client, "fixall.py", ACCUMULATION)
    diagnostics = await published(client, uri)
    assert sorted(d.code for d in diagnostics) == ["GL101", "GL201"]
    found = await actions(client, uri, None, only=[types.CodeActionKind.Source])
    (fix_all,) = found
    assert fix_all.kind == "source.fixAll.gradlint" and fix_all.title == "Fix all gradlint issues"
    fix_all = await resolved(client, fix_all)
    fixed = apply(ACCUMULATION, edits_for(fix_all.edit, uri))
    assert fixed.index("clip_grad_norm_") < fixed.index("optimizer.step()")  # GL101: safe, fixed
    assert "    loss.backward()\n" in fixed  # GL201's fix changes the updates' size: unsafe, left
    change(client, uri, 2, fixed)
    assert [d.code for d in await published(client, uri)] == ["GL201"]


async def test_unsafe_quick_fix_says_so(client: LanguageClient):
    uri = open_file(client, "unsafe.py", ACCUMULATION)
    diagnostics = await published(client, uri)
    (gl201,) = [d for d in diagnostics if d.code == "GL201"]
    assert gl201.data["fix"]["applicability"] == "unsafe"
    found = await actions(client, uri, gl201, only=[types.CodeActionKind.QuickFix])
    (quick,) = [a for a in found if a.title.startswith("GL201")]
    assert quick.title.endswith("(unsafe fix)") and not quick.is_preferred
    quick = await resolved(client, quick)
    assert "(loss / accum_steps).backward()" in apply(ACCUMULATION, edits_for(quick.edit, uri))


async def test_hover_shows_rule_doc(client: LanguageClient):
    uri = open_file(client, "hover.py", BUGGY)
    assert len(await published(client, uri)) == 1
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(9, 10))
    )
    assert hover is not None
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert "GL101" in hover.contents.value and "clip" in hover.contents.value
    nothing = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(0, 2))
    )
    assert nothing is None


async def test_changes_are_debounced_and_syntax_errors_clear(client: LanguageClient):
    uri = open_file(client, "typing.py", BUGGY)
    assert len(await published(client, uri)) == 1
    clean = BUGGY.replace("    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n", "")
    for version, text in enumerate([BUGGY + "x = (", BUGGY + "x = (1", clean], start=2):
        change(client, uri, version, text)
    assert list(await published(client, uri)) == []
    change(client, uri, 5, BUGGY + "x = (")  # does not parse: nothing to report
    assert list(await published(client, uri)) == []
    change(client, uri, 6, BUGGY)
    assert [d.code for d in await published(client, uri)] == ["GL101"]


async def test_workspace_config(client: LanguageClient):
    project = WORKSPACE / "configured"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.gradlint]\nignore = ["GL101"]\n')
    uri = open_file(client, "configured/train.py", ACCUMULATION)
    diagnostics = await published(client, uri)
    assert [d.code for d in diagnostics] == ["GL201"]


async def test_close_clears(client: LanguageClient):
    uri = open_file(client, "closed.py", BUGGY)
    assert await published(client, uri)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    assert list(await published(client, uri)) == []


async def test_notebook_cells(client: LanguageClient):
    sources = [
        "# Training\n",
        "import torch\nimport torch.nn.functional as F\nmodel = torch.nn.Linear(4, 1)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "%matplotlib inline\naccum_steps = 4",
        "for i, (x, y) in enumerate(batches):\n    loss = F.mse_loss(model(x), y)\n    loss.backward()\n"
        "    if (i + 1) % accum_steps == 0 or i + 1 == len(batches):\n        optimizer.step()\n        optimizer.zero_grad()",
    ]
    notebook_uri, cell_uris = open_notebook(
        client, WORKSPACE / "train.ipynb", list(zip(["markdown", "code", "code"], sources))
    )

    async def settled():
        for _ in range(50):
            if cell_uris[2] in client.diagnostics and cell_uris[1] in client.diagnostics:
                return
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    await asyncio.wait_for(settled(), 10)
    assert list(client.diagnostics[cell_uris[1]]) == []
    (diagnostic,) = client.diagnostics[cell_uris[2]]
    assert diagnostic.code == "GL201" and diagnostic.range.start.line == 2 and diagnostic.data["cell"] == 3

    found = await actions(client, cell_uris[2], diagnostic)
    (quick,) = [a for a in found if a.title.startswith("GL201")]
    quick = await resolved(client, quick)
    fixed = apply(sources[2], edits_for(quick.edit, cell_uris[2]))
    assert "(loss / accum_steps).backward()" in fixed
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=cell_uris[2]), position=types.Position(2, 6))
    )
    assert hover is not None and "GL201" in hover.contents.value

    client.diagnostics.pop(cell_uris[2], None)
    change_cell(client, notebook_uri, 2, cell_uris[2], 2, fixed)
    assert list(await published(client, cell_uris[2])) == []


# -- a client that cannot resolve code actions gets the edits at once ------------------------


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "gradlint", "lsp"]),
)
async def plain_client(lsp_client: LanguageClient, tmp_path_factory):
    folder = tmp_path_factory.mktemp("plain")
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=folder.as_uri())
    )
    lsp_client.folder = folder
    yield
    await lsp_client.shutdown_session()


async def test_eager_edits_without_resolve_support(plain_client: LanguageClient):
    path = plain_client.folder / "train.py"
    path.write_text(ACCUMULATION)
    uri = path.as_uri()
    plain_client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=ACCUMULATION))
    )
    diagnostics = await published(plain_client, uri)
    assert sorted(d.code for d in diagnostics) == ["GL101", "GL201"]
    found = await actions(plain_client, uri, diagnostics[0])
    assert found and all(action.edit is not None for action in found)
    assert all(action.edit.changes and not action.edit.document_changes for action in found)  # no documentChanges
    (fix_all,) = [a for a in found if a.kind == "source.fixAll.gradlint"]
    fixed = apply(ACCUMULATION, edits_for(fix_all.edit, uri))
    change(plain_client, uri, 2, fixed)
    assert [d.code for d in await published(plain_client, uri)] == ["GL201"]  # unsafe: left


async def test_non_ascii_positions_are_utf16(client: LanguageClient):
    text = BUGGY.replace(
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
        "    note = '😀'; torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n",
    )
    uri = open_file(client, "emoji.py", text)
    (d,) = await published(client, uri)  # GL101 on the clip that shares its line
    assert d.range.start.character == len("    note = '😀'; ") + 1  # the emoji counts 2 in UTF-16


async def test_invalid_config_falls_back_to_defaults(client: LanguageClient):
    project = WORKSPACE / "badconfig"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.gradlint]\nselect = ["GL999"]\n')
    uri = open_file(client, "badconfig/train.py", BUGGY)
    assert [d.code for d in await published(client, uri)] == ["GL101"]
    assert any("GL999" in m.message for m in client.messages)
