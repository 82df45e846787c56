"""CTranslate2 as the engine of the unconstrained pass (fitsub.nmt.ct2): the same greedy outputs
as fitsub's own search, the same alone as in a batch, conversion cached in the user's cache by the
ctranslate2 version and the checkpoint's hash,
stale or damaged converted weights rebuilt, and fitsub's search where CTranslate2 cannot run."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import ctranslate2
import pytest
from cli_helpers import run
from factories import tiny_checkpoint, train_tiny
from nmt_helpers import digit_ids

from fitsub.backend import Request
from fitsub.io import cache
from fitsub.nmt import ct2
from fitsub.nmt.backend import NMTBackend
from fitsub.nmt.checkpoint import save_checkpoint


@pytest.fixture(scope="module")
def copier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trained tiny copy model (LDPE+PE, length dropout): it ends its outputs itself."""
    model, tok, cfg = train_tiny("ldpe+pe", "subword", steps=300, length_dropout=0.3)
    return save_checkpoint(tmp_path_factory.mktemp("ct2") / "copy", model, cfg, tok)


def digit_texts(folder: Path, n: int = 24, seed: int = 3) -> list[str]:
    """Source lines of 3-12 digits, as the copy model was trained on."""
    from fitsub.nmt.tokenizer import Tokenizer

    tok = Tokenizer.load(folder / "spm.model")
    pieces = [tok.sp.id_to_piece(i) for i in digit_ids(tok)]
    rng = random.Random(seed)
    return [
        "".join(rng.choice(pieces) for _ in range(rng.randint(3, 12))).replace("▁", " ").strip()
        for _ in range(n)
    ]


def outputs(backend: NMTBackend, texts: list[str], n_best: int = 1) -> list[list[str]]:
    return [
        [c.text for c in cands] for cands in backend.translate([Request(t) for t in texts], n_best)
    ]


def test_greedy_outputs_are_fitsubs_own(copier: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = digit_texts(copier)
    monkeypatch.setenv(ct2.ENGINE_ENV, "off")
    own = NMTBackend(copier, device="cpu", beam=1, batch_size=8)
    assert own.ct2 is None
    monkeypatch.delenv(ct2.ENGINE_ENV)
    fast = NMTBackend(copier, device="cpu", beam=1, batch_size=8)
    assert fast.ct2 is not None
    # CTranslate2 itself answers (no row handed back to fitsub's search at its length cap)
    sources = [fast.tokenizer.source_ids(t, None, None) for t in texts]
    assert all(h is not None for h in fast.ct2.translate_rows(sources, 1, 1, 8))
    assert outputs(fast, texts) == outputs(own, texts)
    assert sum(len(o[0].split()) > 0 for o in outputs(fast, texts)) == len(texts)


def test_a_segment_translates_the_same_alone_or_in_a_batch(copier: Path) -> None:
    texts = digit_texts(copier, n=12, seed=5)
    for beam in (1, 4):
        backend = NMTBackend(copier, device="cpu", beam=beam, batch_size=12)
        batched = outputs(backend, texts, n_best=2)
        alone = [outputs(backend, [t], n_best=2)[0] for t in texts]
        assert alone == batched


def test_beam_n_best_is_ranked_by_fitsubs_length_normalisation(copier: Path) -> None:
    from fitsub.nmt.search import normalised_score

    backend = NMTBackend(copier, device="cpu", beam=4)
    assert backend.ct2 is not None
    src = [backend.tokenizer.source_ids(t, None, None) for t in digit_texts(copier, n=6)]
    for hyps in backend.ct2.translate_rows(src, 4, 4, 6):
        assert hyps is not None and len(hyps) == 4
        keys = [normalised_score(score, len(ids)) for ids, score in hyps]
        assert keys == sorted(keys, reverse=True)
        assert all(score <= 0 for _, score in hyps)


def test_converted_once_into_the_user_cache_and_stamped(copier: Path) -> None:
    NMTBackend(copier, device="cpu", beam=1)
    cached = ct2.cache_dir(copier)
    # the session's own cache (tests/conftest.py), one folder per ctranslate2 version
    assert cached.parent.parent == Path(os.environ["XDG_CACHE_HOME"]) / "fitsub" / "ct2"
    assert cached.parent.name == ctranslate2.__version__
    assert not (copier / ct2.CT2_DIR).exists()  # never the model's folder
    stamp = json.loads((cached / ct2.STAMP).read_text("utf-8"))
    assert stamp["checkpoint_sha256"] == ct2.checkpoint_digest(copier)
    before = (cached / "model.bin").stat().st_mtime_ns
    again = NMTBackend(copier, device="cpu", beam=1)
    assert again.engine_note is None
    assert (cached / "model.bin").stat().st_mtime_ns == before


def test_a_conversion_prunes_the_other_versions_conversions(
    copier: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    old = tmp_path / "cache" / "fitsub" / "ct2" / "4.0.0" / ct2.checkpoint_digest(copier)
    old.mkdir(parents=True)
    (old / "model.bin").write_bytes(b"old")
    assert NMTBackend(copier, device="cpu", beam=1).engine_note is None
    assert sorted(p.name for p in (tmp_path / "cache" / "fitsub" / "ct2").iterdir()) == [
        ctranslate2.__version__
    ]


def test_weights_of_another_checkpoint_are_rebuilt_with_a_note(
    copier: Path, tmp_path: Path
) -> None:
    texts = digit_texts(copier, n=8)
    want = outputs(NMTBackend(copier, device="cpu", beam=1), texts)
    other = tiny_checkpoint(tmp_path, name="other", seed=1)  # another model's weights
    NMTBackend(other, device="cpu", beam=1)
    stale = copier.parent / "stale"
    import shutil

    shutil.copytree(copier, stale, ignore=shutil.ignore_patterns(ct2.CT2_DIR))
    shutil.copytree(ct2.cache_dir(other), stale / ct2.CT2_DIR)  # as if exported beside it
    backend = NMTBackend(stale, device="cpu", beam=1)
    assert backend.engine_note is not None and "another checkpoint" in backend.engine_note
    assert backend.ct2 is not None
    assert outputs(backend, texts) == want


def test_damaged_converted_weights_are_rebuilt(copier: Path) -> None:
    texts = digit_texts(copier, n=8)
    want = outputs(NMTBackend(copier, device="cpu", beam=1), texts)
    model_bin = ct2.cache_dir(copier) / "model.bin"
    data = bytearray(model_bin.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte inside a weight: it would still load
    model_bin.write_bytes(bytes(data))
    backend = NMTBackend(copier, device="cpu", beam=1)
    assert backend.engine_note is not None and "does not match" in backend.engine_note
    assert outputs(backend, texts) == want


def test_a_read_only_model_is_converted_into_the_user_cache(
    copier: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    model = tmp_path / "ro"
    shutil.copytree(copier, model, ignore=shutil.ignore_patterns(ct2.CT2_DIR))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    backend = NMTBackend(model, device="cpu", beam=1)
    assert backend.ct2 is not None
    assert not (model / ct2.CT2_DIR).exists()
    cached = tmp_path / "cache" / "fitsub" / "ct2" / ctranslate2.__version__
    assert (cached / ct2.checkpoint_digest(model) / "model.bin").is_file()


def test_without_ctranslate2_fitsubs_search_runs_and_says_so(
    copier: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ct2, "available", lambda: False)
    backend = NMTBackend(copier, device="cpu", beam=1)
    assert backend.ct2 is None and backend.engine_note == ct2.MISSING_NOTE
    assert outputs(backend, digit_texts(copier, n=3))[0][0]


def test_models_ctranslate2_cannot_express_keep_fitsubs_search(tmp_path: Path) -> None:
    ldpe = tiny_checkpoint(tmp_path, name="ldpe", method="ldpe")  # no position term: LDPE alone
    assert NMTBackend(ldpe, device="cpu", beam=1).ct2 is None
    fixed = tiny_checkpoint(tmp_path, name="fixed", length_dropout=0.0)  # always takes a length
    assert NMTBackend(fixed, device="cpu", beam=1).ct2 is None
    assert not (fixed / ct2.CT2_DIR).exists()


def test_export_ct2_writes_stamped_weights_that_load_without_a_note(
    copier: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    model = tmp_path / "m"
    shutil.copytree(copier, model, ignore=shutil.ignore_patterns(ct2.CT2_DIR))
    assert run(["export", str(model), "--ct2"]) == 0
    assert "CTranslate2" in capsys.readouterr().out
    stamp = json.loads((model / ct2.CT2_DIR / ct2.STAMP).read_text("utf-8"))
    assert stamp["checkpoint_sha256"] == ct2.checkpoint_digest(model)
    before = (model / ct2.CT2_DIR / "model.bin").stat().st_mtime_ns
    assert NMTBackend(model, device="cpu", beam=1).engine_note is None
    assert (model / ct2.CT2_DIR / "model.bin").stat().st_mtime_ns == before  # used as written


def test_export_ct2_of_a_model_it_cannot_express_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ldpe = tiny_checkpoint(tmp_path, name="ldpe", method="ldpe")
    assert run(["export", str(ldpe), "--ct2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no position term" in err and str(ldpe) in err
    assert not (ldpe / ct2.CT2_DIR).exists()


def test_requests_with_a_length_or_a_budget_keep_fitsubs_search(
    copier: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = digit_texts(copier, n=6, seed=9)
    asked = [Request(t, target_chars=len(t)) for t in texts] + [
        Request(t, max_chars=len(t) + 2) for t in texts
    ]
    backend = NMTBackend(copier, device="cpu", beam=2)
    assert backend.ct2 is not None
    calls: list[int] = []
    real = backend.ct2.translate_rows
    monkeypatch.setattr(
        backend.ct2, "translate_rows", lambda src, *a: calls.append(len(src)) or real(src, *a)
    )
    backend.translate(asked)
    assert calls == []
    backend.translate([Request(t) for t in texts] + asked[:2])
    assert calls == [len(texts)]


def test_a_length_asked_of_a_model_without_length_input_keeps_fitsubs_re_ranking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = tiny_checkpoint(tmp_path, name="base", method="baseline")  # no length input at all
    backend = NMTBackend(base, device="cpu", beam=2)
    assert backend.ct2 is not None
    calls: list[int] = []
    real = backend.ct2.translate_rows
    monkeypatch.setattr(
        backend.ct2, "translate_rows", lambda src, *a: calls.append(len(src)) or real(src, *a)
    )
    backend.translate([Request("abc def", target_chars=5)])  # re-ranked towards 5 characters
    assert calls == []


def test_nowhere_to_write_the_weights_keeps_fitsubs_search_with_a_note(
    copier: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    model = tmp_path / "ro"
    shutil.copytree(copier, model, ignore=shutil.ignore_patterns(ct2.CT2_DIR))
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("", "utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # its fitsub/ct2 cannot be made
    backend = NMTBackend(model, device="cpu", beam=1)
    assert backend.ct2 is None
    assert backend.engine_note is not None and "fitsub's search" in backend.engine_note
    assert outputs(backend, digit_texts(copier, n=3))[0][0]


def test_converted_weights_that_do_not_load_or_are_of_another_version_are_rebuilt(
    copier: Path,
) -> None:
    texts = digit_texts(copier, n=6)
    want = outputs(NMTBackend(copier, device="cpu", beam=1), texts)
    folder = ct2.cache_dir(copier)
    (folder / "config.json").write_text("{not json", "utf-8")  # not covered by the stamp
    backend = NMTBackend(copier, device="cpu", beam=1)
    assert backend.engine_note is not None and "did not load" in backend.engine_note
    assert outputs(backend, texts) == want
    stamp = json.loads((folder / ct2.STAMP).read_text("utf-8"))
    (folder / ct2.STAMP).write_text(json.dumps({**stamp, "ctranslate2": "3.0.0"}), "utf-8")
    backend = NMTBackend(copier, device="cpu", beam=1)
    assert backend.engine_note is not None and "ctranslate2 3.0.0" in backend.engine_note
    assert outputs(backend, texts) == want


def test_fitsubs_own_beam_without_a_bound_finds_ctranslate2s_n_best(
    copier: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = digit_texts(copier, n=16, seed=7)
    fast = NMTBackend(copier, device="cpu", beam=4, batch_size=8)
    assert fast.ct2 is not None
    sources = [fast.tokenizer.source_ids(t, None, None) for t in texts]
    theirs = fast.ct2.translate_rows(sources, 4, 4, 8)
    monkeypatch.setenv(ct2.ENGINE_ENV, "off")
    own = NMTBackend(copier, device="cpu", beam=4, batch_size=8)
    ours = own.translate([Request(t) for t in texts], n_best=4)
    for hyps, cands in zip(theirs, ours, strict=True):
        assert hyps is not None and len(hyps) == 4
        assert [c.text for c in cands] == [own.tokenizer.decode(ids) for ids, _ in hyps]
        assert [c.score for c in cands] == pytest.approx([s for _, s in hyps], abs=1e-2)


def test_file_digests_are_remembered_once_settled_and_recomputed_when_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    memo = tmp_path / "cache" / "fitsub" / cache.DIGESTS
    f = tmp_path / "weights.bin"
    f.write_bytes(b"one")
    assert cache.file_digest(f) == hashlib.sha256(b"one").hexdigest()
    assert not memo.exists()  # just written: not settled, never remembered
    past = f.stat().st_mtime_ns - 60 * 10**9
    os.utime(f, ns=(past, past))
    assert cache.file_digest(f) == hashlib.sha256(b"one").hexdigest()
    assert list(json.loads(memo.read_text()).values()) == [hashlib.sha256(b"one").hexdigest()]
    f.write_bytes(b"two")  # a new time (and here the same size): hashed again
    assert cache.file_digest(f) == hashlib.sha256(b"two").hexdigest()
    memo.write_text("not json")  # a damaged memo is ignored
    assert cache.file_digest(f) == hashlib.sha256(b"two").hexdigest()
