"""How long the language server takes to publish diagnostics after an edit of a 2,000-line file.

Starts `python -m gradlint lsp` on stdio, opens a generated 2,000-line module full of training
loops (some buggy), then edits one line N times and measures, on the client side, the time from
sending `textDocument/didChange` to receiving the matching `publishDiagnostics`. The debounce is
set to 0 for the measurement (so the figure is the server's own work plus the JSON-RPC round
trip); add the debounce (200 ms by default) for what a user sees while typing. Also times a
quick-fix code action and the fix-all resolve.

Then the same with a client that pulls diagnostics (LSP 3.17, as VS Code does): a second server,
the same edits, each followed by `textDocument/diagnostic`, timed from sending the edit to the
report (no debounce: a pulling client asks when it wants), and a pull of an unchanged document
(answered "unchanged" from the cache).

    python bench/lsp_latency.py [--lines 2000] [--runs 20] [--dense]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

LOOP = '''\
def train_{n}(model, batches, lr=0.1, accum_steps=4, max_norm=1.0):
    """Training loop number {n}."""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
    history = []
    for epoch in range(3):
        for i, (x, y) in enumerate(batches):
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            loss.backward()
            if (i + 1) % accum_steps == 0:
                optimizer.step()
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                optimizer.zero_grad()
                scheduler.step()
            history.append(loss.item())
        print(f"epoch {{epoch}}: {{sum(history) / len(history):.4f}}")
    return history


def evaluate_{n}(model, batches):
    """Evaluation helper number {n}: no training here."""
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in batches:
            logits = model(x)
            predictions = logits.argmax(dim=1)
            correct += (predictions == y).sum().item()
            total += y.numel()
    model.train()
    return correct / max(total, 1)


'''


FILLER = '''\
class Block{n}(torch.nn.Module):
    """A residual block, number {n}."""

    def __init__(self, width=64, dropout=0.1):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)
        self.dropout = torch.nn.Dropout(dropout)

    def forward(self, x):
        h = self.norm(x)
        h = F.gelu(self.up(h))
        h = self.dropout(self.down(h))
        return x + h


def load_split_{n}(root, split="train", limit=None):
    """Read one split of a toy data set, number {n}."""
    rows = []
    with open(f"{{root}}/{{split}}.csv") as handle:
        for number, line in enumerate(handle):
            if limit is not None and number >= limit:
                break
            *features, label = line.strip().split(",")
            rows.append(([float(v) for v in features], int(label)))
    x = torch.tensor([r[0] for r in rows])
    y = torch.tensor([r[1] for r in rows])
    return list(zip(x.split(64), y.split(64)))


'''


def make_module(lines: int, dense: bool = False) -> str:
    """`lines` lines of code: every other unit a training loop when dense (a stress case: 60
    loops, over a hundred findings), else ordinary model and data code around 4 loops."""
    header = '"""A generated module for the LSP latency benchmark."""\nimport torch\nimport torch.nn.functional as F\n\n\n'
    parts = [header]
    n = 0
    loops = 0
    while sum(p.count("\n") for p in parts) < lines:
        if dense or (n % 8 == 3 and loops < 4):
            parts.append(LOOP.format(n=n))
            loops += 1
        else:
            parts.append(FILLER.format(n=n))
        n += 1
    return "".join(parts)


def replace_line(client: LanguageClient, uri: str, version: int, line: int, text: str) -> None:
    """Send the edit a keystroke makes: line `line` (0-based) replaced by `text`."""
    where = types.Range(types.Position(line, 0), types.Position(line + 1, 0))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=where, text=text)],
        )
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--dense", action="store_true", help="a training loop every 35 lines (stress case)")
    args = parser.parse_args()

    text = make_module(args.lines, args.dense)
    folder = Path(tempfile.mkdtemp(prefix="gradlint-lsp-bench-"))
    path = folder / "train.py"
    path.write_text(text)
    uri = path.as_uri()

    client = LanguageClient("bench", "0")
    published: asyncio.Queue = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait((time.perf_counter(), params))

    env = dict(os.environ, GRADLINT_LSP_DEBOUNCE_MS="0")
    await client.start_io(sys.executable, "-m", "gradlint", "lsp", env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(
                    code_action=types.CodeActionClientCapabilities(
                        resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"])
                    )
                )
            ),
            root_uri=folder.as_uri(),
        )
    )
    client.initialized(types.InitializedParams())

    start = time.perf_counter()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    )
    received, params = await published.get()
    print(f"{text.count(chr(10))} lines, {len(params.diagnostics)} diagnostics")
    print(f"didOpen -> diagnostics: {(received - start) * 1000:.1f} ms (first analysis, cold)")

    lines = text.splitlines(keepends=True)
    target = next(i for i, line in enumerate(lines) if "history = []" in line)
    timings = []
    for run in range(args.runs):
        lines[target] = f"    history = []  # edit {run}\n"
        start = time.perf_counter()
        replace_line(client, uri, run + 2, target, lines[target])
        received, params = await published.get()
        assert params.version == run + 2, params.version
        timings.append((received - start) * 1000)
    print(
        f"didChange -> diagnostics over {args.runs} edits: median {statistics.median(timings):.1f} ms, "
        f"max {max(timings):.1f} ms (+ {200} ms debounce while typing)"
    )

    first = params.diagnostics[0]
    start = time.perf_counter()
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=first.range,
            context=types.CodeActionContext(diagnostics=[first]),
        )
    )
    print(f"code actions at one diagnostic: {(time.perf_counter() - start) * 1000:.1f} ms ({len(actions)} actions)")
    fix_all = next(a for a in actions if a.kind == "source.fixAll.gradlint")
    start = time.perf_counter()
    resolved = await client.code_action_resolve_async(fix_all)
    edits = sum(len(change.edits) for change in resolved.edit.document_changes or []) or sum(
        len(v) for v in (resolved.edit.changes or {}).values()
    )
    print(f"fix all (resolve): {(time.perf_counter() - start) * 1000:.1f} ms ({edits} edits)")

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    await pull_latency(text, folder, args.runs)
    analysis_cpu(text, str(folder / "inproc.py"), args.runs)
    print(f"load average: {' '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} CPUs")


def analysis_cpu(text: str, path: str, runs: int) -> None:
    """The server's own work for one version, in this process: CPU time, which a loaded
    machine inflates much less than the round trips above."""
    from gradlint.config import Config
    from gradlint.lsp.analysis import analyse
    from gradlint.lsp.documents import Snapshot

    timings = []
    for run in range(runs):
        snapshot = Snapshot(f"file://{path}", run, path, text=text + f"# version {run}\n")
        start = time.process_time()
        analyse(snapshot, None, Config(), False, print)
        timings.append((time.process_time() - start) * 1000)
    print(f"analysis of one version, in process: CPU median {statistics.median(timings):.1f} ms")


async def pull_latency(text: str, folder: Path, runs: int) -> None:
    path = folder / "pulled.py"
    path.write_text(text)
    uri = path.as_uri()
    client = LanguageClient("bench-pull", "0")
    await client.start_io(sys.executable, "-m", "gradlint", "lsp")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(diagnostic=types.DiagnosticClientCapabilities())
            ),
            root_uri=folder.as_uri(),
        )
    )
    client.initialized(types.InitializedParams())
    document = types.TextDocumentIdentifier(uri=uri)

    async def pull(previous: str | None = None):
        return await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=document, previous_result_id=previous)
        )

    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    )
    start = time.perf_counter()
    report = await pull()
    print(f"pull: didOpen -> report: {(time.perf_counter() - start) * 1000:.1f} ms ({len(report.items)} diagnostics, cold)")
    lines = text.splitlines(keepends=True)
    target = next(i for i, line in enumerate(lines) if "history = []" in line)
    timings = []
    for run in range(runs):
        lines[target] = f"    history = []  # pulled edit {run}\n"
        start = time.perf_counter()
        replace_line(client, uri, run + 2, target, lines[target])
        report = await pull(report.result_id)
        assert report.kind == "full", report
        timings.append((time.perf_counter() - start) * 1000)
    print(
        f"pull: didChange + textDocument/diagnostic over {runs} edits: median {statistics.median(timings):.1f} ms, "
        f"max {max(timings):.1f} ms"
    )
    unchanged = []
    for _ in range(runs):
        start = time.perf_counter()
        again = await pull(report.result_id)
        assert again.kind == "unchanged", again
        unchanged.append((time.perf_counter() - start) * 1000)
    print(f"pull: unchanged document: median {statistics.median(unchanged):.1f} ms")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


if __name__ == "__main__":
    asyncio.run(main())
