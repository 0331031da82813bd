"""What `%load_ext gradlint` adds to each cell of an IPython session.

Builds a notebook-like session from the units of `lsp_latency.make_module` (model blocks, data
loaders, training loops, some buggy), one unit per cell, and in a real `InteractiveShell`:

1. the extension's own work per cell (its `pre_run_cell` check against all earlier cells, and
   `post_run_cell`), timed around the hooks, as the session grows to `--cells` cells;
2. end to end: `shell.run_cell("x = 1")` after a long session, with and without the extension.

The cells are checked, not executed, in part 1 (what the hooks cost does not depend on what the
cell does); part 2 executes its cells.

    python bench/ipython_overhead.py [--cells 200] [--runs 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from types import SimpleNamespace

from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_latency import make_module  # noqa: E402


def session_cells(count: int) -> list[str]:
    """`count` cells: the generated module's top-level units, one per cell."""
    units = make_module(40 * count).split("\n\n\n")
    header, body = units[0], [u.strip("\n") + "\n" for u in units[1:] if u.strip()]
    cells = [header + "\n"] + body
    while len(cells) < count:
        cells += body
    return cells[:count]


def hook_costs(shell: InteractiveShell, cells: list[str]) -> list[tuple[int, int, float, float]]:
    """(cells so far, lines so far, wall ms, CPU ms) of the checker's hooks for each cell. CPU
    time is what the hooks cost this process: on a loaded machine wall time also counts the
    waiting."""
    checker = shell._gradlint_checker
    rows = []
    lines = 0
    for number, cell in enumerate(cells, start=1):
        info = SimpleNamespace(raw_cell=cell)
        result = SimpleNamespace(error_before_exec=None)
        start, cpu = time.perf_counter(), time.process_time()
        checker.pre_run_cell(info)
        checker.reject = None
        checker.post_run_cell(result)
        rows.append((number, lines, (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000))
        lines += cell.count("\n")
    return rows


def run_cell_ms(shell: InteractiveShell, runs: int) -> float:
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        shell.run_cell("x = 1", store_history=True)
        timings.append((time.perf_counter() - start) * 1000)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=200)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    os.environ["IPYTHONDIR"] = tempfile.mkdtemp(prefix="gradlint-ipython-bench-")
    os.chdir(tempfile.mkdtemp(prefix="gradlint-ipython-session-"))
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    shell.run_cell("%load_ext gradlint")

    cells = session_cells(args.cells)
    rows = hook_costs(shell, cells)
    print(f"per-cell cost of the extension's hooks ({len(cells)} cells, {sum(c.count(chr(10)) for c in cells)} lines):")
    for lo, hi in ((1, 20), (21, 50), (51, 100), (101, 200), (201, 400)):
        window = [row for row in rows if lo <= row[0] <= hi]
        if window:
            lines = max(row[1] for row in window)
            wall = [row[2] for row in window]
            cpu = [row[3] for row in window]
            print(
                f"  cells {lo:>3}-{hi:<3} (up to {lines:>5} earlier lines): wall median "
                f"{statistics.median(wall):6.1f} ms, max {max(wall):6.1f} ms; CPU median {statistics.median(cpu):6.1f} ms"
            )

    with_extension = run_cell_ms(shell, args.runs)
    shell.run_cell("%unload_ext gradlint")
    without = run_cell_ms(shell, args.runs)
    print(
        f"run_cell('x = 1') after {len(cells)} cells: {with_extension:.1f} ms with the extension, "
        f"{without:.1f} ms without (median of {args.runs})"
    )
    print(f"load average: {' '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
