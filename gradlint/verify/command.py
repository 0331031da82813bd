"""`gradlint verify [CODES]...`: prove each rule's autofix on torch.

Importing this module imports neither torch nor rich: only running the command does.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from typing import Any, Sequence

import click

INSTALL_HINT = "gradlint verify needs torch: pip install 'torch-gradlint[verify]'"


def torch_version() -> str | None:
    """torch's version if torch can be found, without importing it (which takes seconds)."""
    if importlib.util.find_spec("torch") is None:
        return None
    try:
        from importlib.metadata import version

        return version("torch")
    except Exception:  # noqa: BLE001 - a vendored torch without metadata still runs
        return "unknown"


def _report_text(results: Sequence[Any], seconds: float, torch: str) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    table = Table(title="gradlint verify", show_lines=True, expand=True)
    names = console.width >= 120  # rule names are long identifiers: show them only when they fit
    table.add_column("rule", no_wrap=True)
    table.add_column("prediction", ratio=3)
    table.add_column("measured", ratio=5)
    table.add_column("verdict", no_wrap=True)
    for r in results:
        verdict = "[green]pass[/green]" if r.passed else "[bold red]FAIL[/bold red]"
        rule = Text(r.code, style="bold")
        if r.name and names:
            rule.append("\n" + r.name, style="dim")
        table.add_row(rule, r.prediction, Text(r.measured or ""), verdict)
    console.print(table)
    for r in results:
        if r.error:
            console.print(f"[bold red]{r.code}[/bold red]: ", end="")
            console.print(r.error, markup=False, highlight=False)
    passed = sum(r.passed for r in results)
    console.print(
        f"{passed}/{len(results)} predictions held in {seconds:.1f} s (torch {torch})",
        style="green" if passed == len(results) else "bold red",
    )


@click.command("verify")
@click.argument("codes", nargs=-1)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
    help="Output format.",
)
@click.option(
    "--timeout", type=float, default=60.0, show_default=True, help="Seconds allowed per script."
)
@click.option(
    "--device", type=click.Choice(["cpu", "cuda", "auto"]), default="auto", show_default=True,
    help="Where the fixtures run: cpu hides CUDA from them, cuda requires it (fp16 autocast and "
    "GradScaler('cuda')), auto takes CUDA when torch sees it.",
)
def verify(codes: tuple[str, ...], fmt: str, timeout: float, device: str) -> None:
    """Run each rule's fixtures on torch: autofix bad.py, check it equals fixed.py, run both
    under gradient instrumentation and check what the fix is predicted to change.

    CODES selects rules (GL201) or families (GL2); all rules with fixtures by default.
    Exit 0 when every prediction holds, 1 when any fails, 2 on usage errors or missing torch.
    """
    torch = torch_version()
    if torch is None:
        click.echo(INSTALL_HINT, err=True)
        sys.exit(2)

    from gradlint.verify.harness import UsageError, run_verify

    start = time.monotonic()
    try:
        results = run_verify(list(codes) or None, timeout=timeout, device=device)
    except UsageError as exc:
        click.echo(f"gradlint verify: {exc}", err=True)
        sys.exit(2)
    seconds = time.monotonic() - start
    if not results:
        click.echo("gradlint verify: no fixtures found", err=True)
        sys.exit(2)
    ok = all(r.passed for r in results)
    if fmt == "json":
        payload = {
            "passed": ok, "torch": torch, "device": device, "seconds": round(seconds, 2),
            "rules": [r.as_dict() for r in results],
        }
        click.echo(json.dumps(payload, indent=2))
    else:
        _report_text(results, seconds, torch)
    sys.exit(0 if ok else 1)
