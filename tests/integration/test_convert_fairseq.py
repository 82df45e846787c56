"""`fitsub convert fairseq`: a fairseq Transformer checkpoint built in the test (fairseq's key
layout, dictionaries, SentencePiece model) becomes a fitsub model whose logits are fairseq's
(the reference forward of tests/support/fairseq_reference.py) and that `fitsub translate` runs;
a checkpoint with a pickled payload, or anything else that is not a convertible fairseq
Transformer, is refused with one line and exit code 2, nothing written and nothing run."""

from __future__ import annotations

import os
import shutil
from collections import OrderedDict
from pathlib import Path

import pytest
import torch
from cli_helpers import run, translate_toy_srt
from fairseq_reference import TEXT, Variant, build, reference_logits

from fitsub.convert.vocab import fairseq_rows
from fitsub.nmt.checkpoint import load_checkpoint

VARIANTS = {
    "post-norm relu shared (fairseq default)": Variant(),
    "pre-norm gelu, separate encoder embedding": Variant(
        normalize_before=True, activation="gelu", share="target"
    ),
    "legacy names, three embeddings": Variant(legacy=True, share="none", enc_layers=1),
    "separate dictionaries": Variant(separate_dicts=True, share="target"),
}


def _to_fairseq(ids: list[int]) -> list[int]:
    """fitsub ids -> fairseq ids of a joined dictionary (pad 0->1, unk 1->3, BOS 2 and EOS 3 ->
    </s> 2, the others unchanged)."""
    return [[1, 3, 2, 2][i] if i < 4 else i for i in ids]


def _padded(rows: list[list[int]], pad: int) -> torch.Tensor:
    n = max(map(len, rows))
    return torch.tensor([r + [pad] * (n - len(r)) for r in rows])


@pytest.mark.parametrize("name", list(VARIANTS))
def test_converted_model_gives_fairseqs_logits(tmp_path: Path, name: str) -> None:
    v = VARIANTS[name]
    ckpt, weights, (src_symbols, tgt_symbols), sp = build(tmp_path, v)
    out = tmp_path / "converted"
    assert run(["convert", "fairseq", str(ckpt), str(out)]) == 0
    model, tok, cfg, meta = load_checkpoint(out)
    assert (cfg.norm_first, cfg.activation, cfg.tie_embeddings) == (
        v.normalize_before, v.activation, v.share
    )  # fmt: skip
    assert (cfg.method, cfg.uses_length, cfg.src_lang, cfg.tgt_lang) == (
        "baseline", False, "en", "it"
    )  # fmt: skip
    assert meta["train"]["converted_from"]["arch"] == "transformer"
    # the target dictionary keeps its ids; the source's own symbols follow, never produced
    n_out = 4 + len(tgt_symbols)
    assert cfg.vocab_size == 4 + len(dict.fromkeys(tgt_symbols + src_symbols))
    assert cfg.output_vocab == (n_out if cfg.vocab_size > n_out else 0)
    assert (cfg.output_vocab > 0) == v.separate_dicts
    assert [tok.sp.id_to_piece(i) for i in range(4, n_out)][:5] == tgt_symbols[:5]

    # fairseq's pipeline: SentencePiece pieces looked up in each side's dictionary (<unk> 3 when
    # absent), </s> 2 after the source and before the target
    src_index = {p: i for i, p in enumerate(src_symbols, 4)}
    tgt_index = {p: i for i, p in enumerate(tgt_symbols, 4)}

    def kept(line: str) -> bool:  # every piece in one of the dictionaries: the same segmentation
        return all(p in src_index or p in tgt_index for p in sp.encode(line, out_type=str))

    sources = [s for s in TEXT[0::2] if kept(s)][:2]
    targets = [t for t in ("il cane corre", "un gatto vede la palla") if kept(t)]
    assert len(sources) == 2 and len(targets) == 2
    for line in sources + targets:
        assert [tok.sp.id_to_piece(i) for i in tok.encode(line)] == sp.encode(line, out_type=str)
    fs_src = [[src_index.get(p, 3) for p in sp.encode(s, out_type=str)] + [2] for s in sources]
    fs_prev = [[2] + [tgt_index.get(p, 3) for p in sp.encode(t, out_type=str)] for t in targets]

    # teacher-forced logits of a right-padded batch, in fitsub's and in fairseq's id order
    src = _padded([tok.source_ids(s) for s in sources], 0)
    tgt = _padded([[tok.bos_id, *tok.encode(t)] for t in targets], 0)
    with torch.no_grad():
        ours = model(src, tgt, None)  # (B, T, V)
        ref = reference_logits(weights, v, _padded(fs_src, 1), _padded(fs_prev, 1))
    live = tgt.ne(0)  # fairseq's outputs at padded target positions are not compared
    assert ours.shape == (2, tgt.size(1), cfg.vocab_size)
    rows = torch.tensor(fairseq_rows(n_out))  # BOS <- </s>: fitsub's BOS is never produced
    torch.testing.assert_close(ours[live][:, :n_out], ref[live][:, rows], atol=1e-4, rtol=1e-4)
    assert bool(ours[live][:, n_out:].eq(float("-inf")).all())
    # and the cached incremental decoding the search uses gives the same last-step logits
    with torch.no_grad():
        memory, src_pad = model.encode(src[:1])
        cache = model.new_cache()
        n = int(live[0].sum())
        for t in range(n):
            step = model.decode(tgt[:1, t : t + 1], memory, src_pad, None, cache)
        torch.testing.assert_close(step[0, -1], ours[0, n - 1], atol=1e-4, rtol=1e-4)


def test_translate_runs_with_a_converted_model(tmp_path: Path) -> None:
    ckpt, *_ = build(tmp_path, Variant())
    out = tmp_path / "converted"
    assert run(["convert", "fairseq", str(ckpt), str(out), "--dtype", "float16"]) == 0
    code, report = translate_toy_srt(tmp_path, out)
    assert code == 0 and report is not None
    assert report["meta"]["model"].endswith(":baseline")  # no length input
    for seg in report["segments"]:  # the hard budget: fitted, or flagged over-budget
        over = any(f["name"] == "over-budget" for f in seg["flags"])
        assert seg["fitted_chars"] <= seg["budget"]["chars"] or (over and not seg["fits"])
    written = (tmp_path / "toy.it.srt").read_text("utf-8")
    assert "00:00:01,000 --> 00:00:02,000" in written and "00:00:03,000 --> 00:00:04,000" in written


def _one_line_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], out: Path, *words: str
) -> str:
    code = run(args)
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()
    for w in words:
        assert w in err, err
    return err


class _Payload:
    """Pickles as a call of os.system: what a malicious checkpoint holds."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def test_a_pickled_payload_is_refused_and_never_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ckpt, weights, *_ = build(tmp_path, Variant())
    marker = tmp_path / "PAYLOAD_RAN"
    bad = tmp_path / "evil.pt"
    torch.save({"args": None, "model": weights, "extra_state": {"x": _Payload(marker)}}, bad)
    out = tmp_path / "converted"
    _one_line_exit_2(capsys, ["convert", "fairseq", str(bad), str(out)], out, "refused", "system")
    assert not marker.exists()
    legacy = tmp_path / "evil-legacy.pt"  # the pre-zip torch format goes through the same check
    torch.save(
        {"model": weights, "x": _Payload(marker)}, legacy, _use_new_zipfile_serialization=False
    )
    _one_line_exit_2(
        capsys, ["convert", "fairseq", str(legacy), str(out)], out, "refused", "system"
    )
    assert not marker.exists()


def test_everything_else_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ckpt, weights, *_ = build(tmp_path, Variant())
    out = tmp_path / "converted"
    text = tmp_path / "notes.pt"
    text.write_text("not a checkpoint\n")
    _one_line_exit_2(
        capsys, ["convert", "fairseq", str(text), str(out)], out, "not a PyTorch checkpoint"
    )
    _one_line_exit_2(
        capsys, ["convert", "fairseq", str(tmp_path / "nope.pt"), str(out)], out, "no such"
    )
    _one_line_exit_2(capsys, ["convert", "marian", str(ckpt), str(out)], out, "marian")

    # an unknown architecture, variants fitsub's model does not have, BPE codes, a stray weight
    other = tmp_path / "other"
    shutil.copytree(tmp_path, other, ignore=shutil.ignore_patterns("other"))
    from fairseq_reference import save_checkpoint

    stray = OrderedDict({**weights, "encoder.layernorm_embedding.weight": torch.ones(16)})
    for extra, state, words in [
        ({"arch": "lstm"}, weights, ["lstm"]),
        ({"encoder_learned_pos": True}, weights, ["learned position"]),
        ({"represent_length_by_lrpe": True}, weights, ["LRPE"]),
        ({"bpe": "subword_nmt"}, weights, ["subword_nmt", "not SentencePiece"]),
        ({}, stray, ["encoder.layernorm_embedding.weight"]),
    ]:
        bad = other / "checkpoint_best.pt"
        save_checkpoint(bad, Variant(extra_args=extra), state, ("en", "it"))
        _one_line_exit_2(capsys, ["convert", "fairseq", str(bad), str(out)], out, *words)

    # a missing dictionary; a dictionary the checkpoint's embedding does not fit; no
    # SentencePiece model
    (tmp_path / "dict.it.txt").rename(tmp_path / "dict.it.bak")
    _one_line_exit_2(
        capsys, ["convert", "fairseq", str(ckpt), str(out)], out, "dict.it.txt", "not found"
    )
    (tmp_path / "dict.it.txt").write_text("▁il 10\n▁cane 5\n")  # 6 rows, the checkpoint has more
    _one_line_exit_2(capsys, ["convert", "fairseq", str(ckpt), str(out)], out, "do not match")
    (tmp_path / "dict.it.bak").rename(tmp_path / "dict.it.txt")
    (tmp_path / "sentencepiece.bpe.model").rename(tmp_path / "spm.bak")
    _one_line_exit_2(capsys, ["convert", "fairseq", str(ckpt), str(out)], out, "--spm")
    # the SentencePiece model named with --spm works from elsewhere; OUT not empty needs --force
    out.mkdir()
    (out / "old.txt").write_text("x")
    assert run(["convert", "fairseq", str(ckpt), str(out), "--spm", str(tmp_path / "spm.bak")]) == 2
    assert "--force" in capsys.readouterr().err
    assert (
        run(
            [
                "convert",
                "fairseq",
                str(ckpt),
                str(out),
                "--spm",
                str(tmp_path / "spm.bak"),
                "--force",
            ]
        )
        == 0
    )
    assert not (out / "old.txt").exists() and (out / "model.safetensors").is_file()


def test_a_converted_model_fine_tunes_with_a_length_method(tmp_path: Path) -> None:
    """`fitsub train --init-from` keeps the converted architecture (post-norm, three embedding
    matrices, fairseq positions), adds a length method and trains the output projection."""
    from safetensors.torch import load_file

    ckpt, *_ = build(tmp_path, Variant(share="none"))
    conv = tmp_path / "converted"
    assert run(["convert", "fairseq", str(ckpt), str(conv)]) == 0
    data = tmp_path / "data"
    data.mkdir()
    en, it = TEXT[0::2], TEXT[1::2]
    pairs = [
        (f"{en[i % 3]} {en[j % 3]}", f"{it[i % 3]} {it[j % 3]}") for i in range(8) for j in range(i)
    ]
    (data / "toy.en").write_text("".join(f"{e} {n}\n" for n, (e, _) in enumerate(pairs)), "utf-8")
    (data / "toy.it").write_text("".join(f"{t} {n}\n" for n, (_, t) in enumerate(pairs)), "utf-8")
    ft = tmp_path / "ft"
    args = ["train", "--out", str(ft), "--data", str(data), "--init-from", str(conv)]
    args += ["--method", "ldpe+pe", "--max-steps", "3", "--max-tokens", "256", "--warmup", "2"]
    args += ["--lr", "1e-3", "--threads", "1", "--dev-size", "8", "--bleu-sentences", "4", "-q"]
    assert run(args) == 0
    model, _, cfg, _ = load_checkpoint(ft / "last")
    assert (cfg.method, cfg.norm_first, cfg.tie_embeddings, cfg.positions) == (
        "ldpe+pe",
        False,
        "none",
        "fairseq",
    )
    start = load_file(str(conv / "model.safetensors"))
    tuned = load_file(str(ft / "last" / "model.safetensors"))
    assert not torch.equal(start["out_weight"], tuned["out_weight"])


def test_an_old_checkpoint_with_pickled_meters_loads_without_running_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Older fairseq versions pickled their meter objects (`extra_state["train_meters"]`) and numpy
    scalars: they load as inert stand-ins, the meter's own code never runs."""
    import sys
    import types

    import numpy as np

    ran: list[str] = []

    class AverageMeter:  # pickled under fairseq's name; its __setstate__ must never run
        def __setstate__(self, state: object) -> None:
            ran.append("setstate")

    fairseq, meters = types.ModuleType("fairseq"), types.ModuleType("fairseq.meters")
    AverageMeter.__module__, AverageMeter.__qualname__ = "fairseq.meters", "AverageMeter"
    meters.AverageMeter = AverageMeter  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fairseq", fairseq)
    monkeypatch.setitem(sys.modules, "fairseq.meters", meters)
    v = Variant(legacy=True)
    ckpt, weights, *_ = build(tmp_path, v)
    meter = AverageMeter()
    meter.__dict__.update(val=2.5, sum=10.0, count=4)
    old = torch.load(ckpt, weights_only=False)  # the file this test just wrote
    old["extra_state"]["train_meters"] = {"train_loss": meter}
    old["extra_state"]["val_loss"] = np.float64(3.25)
    torch.save(old, ckpt)
    monkeypatch.delitem(sys.modules, "fairseq.meters")
    monkeypatch.delitem(sys.modules, "fairseq")
    assert run(["convert", "fairseq", str(ckpt), str(tmp_path / "converted")]) == 0
    assert ran == []
