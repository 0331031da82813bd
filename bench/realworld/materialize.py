#!/usr/bin/env python3
"""Recreate the manifest's repositories, at their pinned commits, from local git mirrors.

    python bench/realworld/materialize.py --mirrors /work/.mirror --out /tmp/rw-NAME

Fetches nothing: each repository must already be mirrored (a git directory with the pinned
commit) under MIRRORS as `owner+name/repo`, `owner+name`, `owner/name` or `owner/name.git`.
For every (repository, commit) of the manifest it writes the Python sources and the project
markers (pyproject.toml, setup.py, setup.cfg) and notebooks of that commit to OUT/owner+name@commit12/name/ (named as a clone is), keeping
the layout, so a linter resolves imports between the project's modules as it would in a
checkout; an empty `.git` folder marks the project root. Third-party code lands only in OUT,
never in this repository. Missing mirrors or commits are reported and skipped (exit 1).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scoring import checkout_name, load_manifest

HERE = Path(__file__).resolve().parent
MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
MAX_BYTES = 2_000_000


def find_mirror(mirrors: Path, repo: str) -> Path | None:
    owner, name = repo.split("/", 1)
    for candidate in (
        mirrors / f"{owner}+{name}" / "repo",
        mirrors / f"{owner}+{name}",
        mirrors / owner / name,
        mirrors / owner / f"{name}.git",
    ):
        if (candidate / "HEAD").is_file() or (candidate / ".git").exists():
            return candidate
    return None


def git(git_dir: Path, *args: str, input: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={_git_dir(git_dir)}", *args], input=input, capture_output=True, check=True
    ).stdout


def _git_dir(path: Path) -> Path:
    return path / ".git" if (path / ".git").is_dir() else path


def wanted(path: str) -> bool:
    return path.endswith((".py", ".ipynb")) or path in MARKERS


def materialize(git_dir: Path, commit: str, target: Path) -> int:
    """Write the commit's Python files and root markers under `target`; return how many."""
    listing = git(git_dir, "ls-tree", "-r", "-z", "--long", commit).split(b"\0")
    blobs = []
    for row in filter(None, listing):
        meta, path = row.split(b"\t", 1)
        mode, kind, sha, size = meta.split()
        name = path.decode("utf-8", "surrogateescape")
        # a mirror may list large blobs it does not hold (size "BAD"): skip them
        if (
            kind == b"blob"
            and mode != b"120000"
            and wanted(name)
            and size.isdigit()
            and int(size) <= MAX_BYTES
        ):
            blobs.append((name, sha.decode()))
    contents = _cat_blobs(git_dir, [sha for _, sha in blobs])
    for (name, _), data in zip(blobs, contents):
        if data is None:
            continue
        out = target / name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    (target / ".git").mkdir(parents=True, exist_ok=True)  # also where no file qualifies: an empty checkout
    return len(blobs)


def _cat_blobs(git_dir: Path, shas: list[str]) -> list[bytes | None]:
    """Read many blobs with one `git cat-file --batch` (None for a blob the mirror lacks)."""
    raw = git(git_dir, "cat-file", "--batch", input="".join(s + "\n" for s in shas).encode())
    out, pos = [], 0
    for _ in shas:
        header_end = raw.index(b"\n", pos)
        header = raw[pos:header_end].split()
        if header[-1] == b"missing":
            out.append(None)
            pos = header_end + 1
            continue
        size = int(header[2])
        start = header_end + 1
        out.append(raw[start : start + size])
        pos = start + size + 1
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"), help="folder of git mirrors")
    parser.add_argument("--out", type=Path, required=True, help="work folder to write into")
    parser.add_argument("--manifest", type=Path, default=HERE / "manifest.toml")
    args = parser.parse_args(argv)

    entries = load_manifest(args.manifest)
    pinned = sorted({(e.repo, e.commit) for e in entries})
    args.out.mkdir(parents=True, exist_ok=True)
    problems = 0
    for repo, commit in pinned:
        target = args.out / checkout_name(repo, commit)
        mirror = find_mirror(args.mirrors, repo)
        if mirror is None:
            print(f"skip {repo}: no mirror under {args.mirrors}", file=sys.stderr)
            problems += 1
            continue
        try:
            count = materialize(mirror, commit, target)
        except subprocess.CalledProcessError as err:
            reason = err.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["git failed"]
            print(f"skip {repo}@{commit[:12]}: {reason[0]}", file=sys.stderr)
            problems += 1
            continue
        missing = [
            e.path
            for e in entries
            if e.repo == repo and e.commit == commit and not (target / e.path).is_file()
        ]
        for path in missing:
            print(f"missing {repo}@{commit[:12]}:{path}", file=sys.stderr)
        problems += len(missing)
        print(f"{target.relative_to(args.out)}: {count} files")
    print(f"{len(pinned)} checkouts in {args.out}" + (f"; {problems} problem(s) above" if problems else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
