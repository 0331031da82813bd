"""The cache's pieces: summaries by content hash, shared by workers; anything broken ignored."""

from __future__ import annotations

import json
import os

from gradlint.cache import Cache, SummaryCache
from gradlint.diagnostics import FileResult
from gradlint.model.project import Project, content_hash
from gradlint.model.summaries import FunctionSummary, ModuleSummary

UTILS = "def backward_step(loss):\n    loss.backward()\n"


def test_summaries_round_trip_and_are_shared(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "utils.py").write_text(UTILS)
    store = SummaryCache(tmp_path / "cache")
    made = Project(tmp_path, store=store).summary(tmp_path / "utils.py")
    digest = content_hash(UTILS.encode())
    assert made[0] == digest and store.get_summary(digest) == made[1]
    # another process finds it by content: a planted summary proves the module is not parsed
    planted = ModuleSummary(functions={"planted": FunctionSummary("planted")})
    store.put_summary(digest, planted)
    assert Project(tmp_path, store=store).summary(tmp_path / "utils.py")[1] == planted


def test_broken_summaries_are_made_again(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "utils.py").write_text(UTILS)
    store = SummaryCache(tmp_path / "cache")
    digest = content_hash(UTILS.encode())
    Project(tmp_path, store=store).summary(tmp_path / "utils.py")
    [stored] = (tmp_path / "cache").rglob(f"{digest}.json")
    for damage in (b"{", b"[]", json.dumps({"format": -1}).encode(), json.dumps({"format": 2}).encode()):
        stored.write_bytes(damage)
        assert store.get_summary(digest) is None
        summary = Project(tmp_path, store=store).summary(tmp_path / "utils.py")[1]
        assert summary.functions["backward_step"].params == ("loss",)


def test_a_result_is_invalid_when_a_summary_it_used_changed(tmp_path):
    train, utils = tmp_path / "train.py", tmp_path / "utils.py"
    train.write_text("import utils\n")
    utils.write_text(UTILS)
    for path in (train, utils):
        os.utime(path, (1_000_000, 1_000_000))
    cache = Cache(tmp_path / "cache")
    info = utils.stat()
    result = FileResult(
        str(train), digest=content_hash(train.read_bytes()),
        dependencies={str(utils): [info.st_mtime_ns, info.st_size, content_hash(UTILS.encode())]},
    )
    cache.store(str(train), "GL201", (train.stat().st_mtime_ns, train.stat().st_size), result)
    cache.save()
    assert Cache(tmp_path / "cache").lookup(str(train), "GL201") is not None
    assert Cache(tmp_path / "cache").lookup(str(train), "GL202") is None
    os.utime(utils)  # touched only: still valid
    assert Cache(tmp_path / "cache").lookup(str(train), "GL201") is not None
    utils.write_text(UTILS.replace("loss.backward()", "(loss / 4).backward()"))
    assert Cache(tmp_path / "cache").lookup(str(train), "GL201") is None
    utils.unlink()
    assert Cache(tmp_path / "cache").lookup(str(train), "GL201") is None


def test_an_unwritable_cache_costs_nothing_but_speed(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    cache = Cache(blocker)
    cache.put_summary("ab" * 16, ModuleSummary())
    cache.store(str(blocker), "GL201", (1, 2), FileResult(str(blocker), digest="x"))
    cache.save()
    assert blocker.read_text().startswith("a file")
