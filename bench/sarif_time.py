#!/usr/bin/env python3
"""Time `gradlint check --format sarif` against `--format json` on 300 buggy training scripts.

    python bench/sarif_time.py                      # this checkout
    python bench/sarif_time.py --tree /path/to/old  # another checkout, to compare before/after

The files are the fixtures' bad.py scripts, copied round-robin (each has a fixable finding).
Each format runs as a subprocess on the whole folder (best of --runs; wall and CPU time). Until issue 8
the SARIF and LSP reporters re-read, re-parsed and re-linted every file to compute fix edits;
now the run that checks a file computes them once, for every format.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def corpus(folder: Path, count: int) -> None:
    scripts = sorted((ROOT / "fixtures").glob("GL*/bad.py"))
    for number in range(count):
        source = scripts[number % len(scripts)]
        (folder / f"train_{number:03d}_{source.parent.name}.py").write_text(source.read_text())


def best(command: list[str], env: dict, runs: int, cwd: str) -> tuple[float, float]:
    """(wall, CPU) seconds of the best run: CPU time (user + system, the process and its
    workers) depends much less than wall time on what else the machine is doing."""
    timings = []
    for _ in range(runs):
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        timings.append((time.perf_counter() - start, cpu))
    return min(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the gradlint checkout to time")
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(args.tree.resolve()))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        corpus(folder, args.files)
        print(f"{args.files} files, gradlint from {args.tree}, load average {os.getloadavg()[0]:.1f}")
        for fmt in ("json", "sarif", "lsp"):
            command = [sys.executable, "-m", "gradlint", "check", "--exit-zero", "--format", fmt, "."]
            wall, cpu = best(command, env, args.runs, cwd=tmp)  # not in a checkout: `-m` would import it
            print(f"  --format {fmt:<7} wall {wall:6.2f} s   CPU {cpu:6.2f} s")


if __name__ == "__main__":
    main()
