"""File modes (issue 55, part 2): a file fitsub replaces keeps its mode (0600 stays 0600), a new
file gets the umask's mode, and writing never changes the process's umask (a probe with
`os.umask(0)` raced between threads)."""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import run
from review_helpers import export_edits, translate_with_review, use_toy_backend

from fitsub.io.atomic import atomic_write_bytes

SRT = "1\n00:00:01,000 --> 00:00:02,000\nHello there.\n"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask() -> Iterator[None]:
    """Restore the umask a test sets."""
    old = os.umask(0o022)
    os.umask(old)
    yield
    os.umask(old)


@pytest.fixture(params=["O_TMPFILE", "named temporary file"])
def write_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways an atomic write makes its temporary file."""
    if request.param != "O_TMPFILE":
        monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    return str(request.param)


@pytest.mark.usefixtures("umask", "write_path")
@pytest.mark.parametrize("kept", [0o600, 0o640, 0o644, 0o444])
def test_a_replaced_file_keeps_its_mode(tmp_path: Path, kept: int) -> None:
    os.umask(0o022)
    out = tmp_path / "out.srt"
    out.write_text("old")
    out.chmod(kept)
    atomic_write_bytes(out, b"new")
    assert out.read_bytes() == b"new"
    assert mode(out) == kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.srt"]


@pytest.mark.usefixtures("umask", "write_path")
@pytest.mark.parametrize(("mask", "want"), [(0o022, 0o644), (0o077, 0o600), (0o027, 0o640)])
def test_a_new_file_gets_the_umasks_mode(tmp_path: Path, mask: int, want: int) -> None:
    os.umask(mask)
    atomic_write_bytes(tmp_path / "new.srt", b"new")
    assert mode(tmp_path / "new.srt") == want


@pytest.mark.usefixtures("umask")
def test_writing_never_changes_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_path: str
) -> None:
    os.umask(0o077)
    calls: list[int] = []
    real = os.umask

    def spy(mask: int) -> int:
        calls.append(mask)
        return real(mask)

    monkeypatch.setattr(os, "umask", spy)
    seen: list[int] = []

    def write(i: int) -> None:
        atomic_write_bytes(tmp_path / f"f{i}.srt", b"x")
        seen.append(mode(tmp_path / f"f{i}.srt"))

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == []  # nobody set the umask to 0, not even for an instant
    assert seen == [0o600] * 8


@pytest.mark.usefixtures("umask")
def test_translate_and_apply_keep_a_private_files_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_toy_backend(monkeypatch)
    os.umask(0o022)
    out = translate_with_review(tmp_path)
    out.chmod(0o600)
    page = (tmp_path / "review.html").read_text(encoding="utf-8")
    edits = tmp_path / "edits.json"
    edits.write_text(json.dumps(export_edits(page, {1: "Sì, andiamo."})), encoding="utf-8")
    assert run(["apply", str(edits), str(out)]) == 0
    assert "Sì, andiamo." in out.read_text(encoding="utf-8")
    assert mode(out) == 0o600  # the apply target
    src = tmp_path / "in.srt"
    src.write_text(SRT, encoding="utf-8")
    assert run(["translate", "--lang", "it", str(src), "-o", str(out), "-q", "--threads", "1"]) == 0
    assert mode(out) == 0o600  # a translate output written over
