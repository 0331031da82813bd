"""The language server with a client that pulls diagnostics (LSP 3.17, as VS Code and ruff's
server do), configured through `initializationOptions` and `workspace/didChangeConfiguration`,
driven over stdio by pytest-lsp: pull diagnostics, hover over a suppression code, the
`gradlint.applyAutofix` command, and notebook cells."""

from __future__ import annotations

import asyncio
import sys

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from integration_data import ACCUMULATION_LATE_CLIP as ACCUMULATION  # noqa: E402
from lsp_helpers import apply, change_cell, edits_for, open_notebook  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

SUPPRESSED = '''\
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in batches:
    optimizer.zero_grad()
    ((model(x) - y) ** 2).mean().backward()
    optimizer.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # noqa: E501, GL101
    print("# noqa: GL201")  # gradlint: ignore[accumulation-without-loss-scaling]
'''

APPLIED: list[types.ApplyWorkspaceEditParams] = []


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "gradlint", "lsp"]),
)
async def client(lsp_client: LanguageClient, tmp_path_factory):
    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        APPLIED.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    folder = tmp_path_factory.mktemp("pull")
    capabilities = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            diagnostic=types.DiagnosticClientCapabilities(related_document_support=False),
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
        ),
        workspace=types.WorkspaceClientCapabilities(
            configuration=True,
            apply_edit=True,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True),
        ),
        notebook_document=types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities()
        ),
    )
    result = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=folder.as_uri(),
            initialization_options={"gradlint": {"ignore": ["GL101"], "unsafeFixes": False}},
        )
    )
    lsp_client.server_capabilities = result.capabilities
    lsp_client.folder = folder
    yield
    await lsp_client.shutdown_session()


def open_file(client: LanguageClient, name: str, text: str) -> str:
    path = client.folder / name
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    )
    return uri


async def pull(client: LanguageClient, uri: str, previous: str | None = None):
    return await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous)
    )


async def hover(client: LanguageClient, uri: str, line: int, character: int) -> types.Hover | None:
    return await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line, character))
    )


async def test_capabilities(client: LanguageClient):
    caps = client.server_capabilities
    assert caps.diagnostic_provider.identifier == "gradlint"
    assert caps.diagnostic_provider.workspace_diagnostics
    assert "gradlint.applyAutofix" in caps.execute_command_provider.commands


async def test_pull_diagnostics_follow_initialization_options(client: LanguageClient):
    uri = open_file(client, "accum.py", ACCUMULATION)
    report = await pull(client, uri)
    assert report.kind == "full"
    assert [d.code for d in report.items] == ["GL201"]  # GL101 ignored by the client's settings
    (d,) = report.items
    assert d.range.start == types.Position(8, 4) and d.source == "gradlint"
    again = await pull(client, uri, previous=report.result_id)
    assert again.kind == "unchanged" and again.result_id == report.result_id
    await asyncio.sleep(0.4)  # past the debounce: a pulling client is never pushed to
    assert uri not in client.diagnostics


async def test_pull_after_an_edit(client: LanguageClient):
    uri = open_file(client, "edited.py", ACCUMULATION)
    first = await pull(client, uri)
    fixed = ACCUMULATION.replace("    loss.backward()", "    (loss / accum_steps).backward()")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    report = await pull(client, uri, previous=first.result_id)
    assert report.kind == "full" and list(report.items) == []


async def test_workspace_diagnostics_cover_open_documents(client: LanguageClient):
    uri = open_file(client, "workspace.py", ACCUMULATION)
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    by_uri = {item.uri: item for item in report.items}
    assert [d.code for d in by_uri[uri].items] == ["GL201"]
    assert by_uri[uri].version == 1
    again = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[types.PreviousResultId(uri=uri, value=by_uri[uri].result_id)])
    )
    assert {item.uri: item.kind for item in again.items}[uri] == "unchanged"


async def test_hover_over_suppression_codes(client: LanguageClient):
    uri = open_file(client, "suppressed.py", SUPPRESSED)
    assert list((await pull(client, uri)).items) == []
    line = SUPPRESSED.splitlines()[8]
    found = await hover(client, uri, 8, line.index("GL101") + 2)
    assert found is not None and found.contents.kind == types.MarkupKind.Markdown
    assert "GL101" in found.contents.value and "clip-after-step" in found.contents.value
    assert found.range.start == types.Position(8, line.index("GL101"))
    assert found.range.end == types.Position(8, line.index("GL101") + len("GL101"))
    assert await hover(client, uri, 8, line.index("E501") + 1) is None  # not one of ours
    assert await hover(client, uri, 8, line.index("clip_grad")) is None  # code, not the comment
    named = SUPPRESSED.splitlines()[9]
    found = await hover(client, uri, 9, named.index("accumulation-without"))
    assert found is not None and "GL201" in found.contents.value
    assert await hover(client, uri, 9, named.index('GL201"')) is None  # inside a string


async def test_apply_autofix_command_applies_safe_fixes(client: LanguageClient):
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"gradlint": {}}))
    uri = open_file(client, "autofix.py", ACCUMULATION)
    assert sorted(d.code for d in (await pull(client, uri)).items) == ["GL101", "GL201"]
    APPLIED.clear()
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="gradlint.applyAutofix", arguments=[{"uri": uri, "version": 1}])
    )
    (applied,) = APPLIED
    (change,) = applied.edit.document_changes
    assert change.text_document.uri == uri and change.text_document.version == 1
    fixed = apply(ACCUMULATION, change.edits)
    assert fixed.index("clip_grad_norm_") < fixed.index("optimizer.step()")
    assert "    loss.backward()\n" in fixed  # GL201's fix is unsafe: not without unsafeFixes


async def test_unsafe_fixes_setting(client: LanguageClient):
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"gradlint": {"select": ["GL2"], "unsafeFixes": True}})
    )
    uri = open_file(client, "unsafe.py", ACCUMULATION)
    assert [d.code for d in (await pull(client, uri)).items] == ["GL201"]
    APPLIED.clear()
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="gradlint.applyAutofix", arguments=[{"uri": uri, "version": 1}])
    )
    (applied,) = APPLIED
    fixed = apply(ACCUMULATION, edits_for(applied.edit, uri))
    assert "(loss / accum_steps).backward()" in fixed
    assert fixed.index("optimizer.step()") < fixed.index("clip_grad_norm_")  # GL101 not selected


async def test_notebook_cells_are_pulled(client: LanguageClient):
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"gradlint": {}}))
    sources = [
        "import torch\nimport torch.nn.functional as F\nmodel = torch.nn.Linear(4, 1)\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n%matplotlib inline\naccum_steps = 4",
        "## Train",
        "for i, (x, y) in enumerate(batches):\n    loss = F.mse_loss(model(x), y)\n    loss.backward()\n"
        "    if (i + 1) % accum_steps == 0 or i + 1 == len(batches):\n        optimizer.step()\n        optimizer.zero_grad()",
    ]
    notebook_uri, cells = open_notebook(client, client.folder / "train.ipynb", list(zip(["code", "markdown", "code"], sources)))
    assert list((await pull(client, cells[0])).items) == []
    (d,) = (await pull(client, cells[2])).items
    assert d.code == "GL201" and d.range.start == types.Position(2, 4) and d.data["cell"] == 3

    # a new cell inserted before the loop, as VS Code sends it: the notebook is re-read from its cells
    new_cell = f"vscode-notebook-cell:{client.folder / 'train.ipynb'}#cell9"
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(version=2, uri=notebook_uri),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    structure=types.NotebookDocumentCellChangeStructure(
                        array=types.NotebookCellArrayChange(
                            start=2, delete_count=0, cells=[types.NotebookCell(kind=types.NotebookCellKind.Code, document=new_cell)]
                        ),
                        did_open=[types.TextDocumentItem(uri=new_cell, language_id="python", version=1, text="accum_steps = 1\n")],
                    )
                )
            ),
        )
    )
    (d,) = (await pull(client, cells[2])).items
    assert d.data["cell"] == 4  # numbered among all cells, as in the .ipynb
    fixed = sources[2].replace("    loss.backward()", "    (loss / accum_steps).backward()")
    change_cell(client, notebook_uri, 3, cells[2], 2, fixed)
    assert list((await pull(client, cells[2])).items) == []


async def test_settings_asked_for_when_the_notification_carries_none(client: LanguageClient):
    client.set_configuration({"ignore": ["GL201"]}, section="gradlint")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    uri = open_file(client, "asked.py", ACCUMULATION)
    for _ in range(50):  # the server asks the client, then applies what it got
        codes = [d.code for d in (await pull(client, uri)).items]
        if codes == ["GL101"]:
            break
        await asyncio.sleep(0.05)
    assert codes == ["GL101"]


async def test_extend_select_turns_on_unused_suppression(client: LanguageClient):
    stale = ACCUMULATION.replace("    loss.backward()\n", "    (loss / accum_steps).backward()  # noqa: GL201\n")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"gradlint": {"extendSelect": ["GL001"], "ignore": ["GL101"]}})
    )
    uri = open_file(client, "stale.py", stale)
    (d,) = (await pull(client, uri)).items
    assert d.code == "GL001" and d.range.start.line == 8


async def test_file_level_suppression_and_its_hover(client: LanguageClient):
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"gradlint": {}}))
    text = "# gradlint: noqa[clip-after-step]\n" + ACCUMULATION
    uri = open_file(client, "filelevel.py", text)
    assert [d.code for d in (await pull(client, uri)).items] == ["GL201"]
    found = await hover(client, uri, 0, text.index("after"))
    assert found is not None and "GL101" in found.contents.value
