"""`fitsub export`: a training checkpoint becomes a small shippable model directory."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from factories import tiny_config, word_tokenizer
from safetensors.torch import load_file

from fitsub.cli import main
from fitsub.nmt.checkpoint import build_model, load_checkpoint, save_checkpoint


def test_export_writes_float16_weights_and_drops_optimizer_state(tmp_path: Path) -> None:
    torch.manual_seed(0)
    tok = word_tokenizer()
    cfg = tiny_config(tok)
    model = build_model(cfg, tok)
    src = save_checkpoint(
        tmp_path / "last", model, cfg, tok, {"step": 7},
        extra_tensors={"optimizer": {"m": torch.ones(3)}},
    )  # fmt: skip
    (src / "train_log.jsonl").write_text('{"event": "step", "step": 7}\n', encoding="utf-8")
    out = tmp_path / "models" / "en-it"
    (tmp_path / "models").mkdir()
    try:
        main(["export", str(src), str(out)])
    except SystemExit as exc:
        assert exc.code in (0, None)
    assert not (out / "optimizer.safetensors").exists()
    assert (out / "train_log.jsonl").read_text(encoding="utf-8").startswith('{"event"')
    weights = load_file(str(out / "model.safetensors"))
    assert all(v.dtype == torch.float16 for v in weights.values() if v.is_floating_point())
    meta = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert meta["weights_dtype"] == "float16" and meta["train"]["step"] == 7
    assert (out / "model.safetensors").stat().st_size < (
        src / "model.safetensors"
    ).stat().st_size * 0.6
    reloaded, _, _, _ = load_checkpoint(out)
    for name, p in model.state_dict().items():
        torch.testing.assert_close(reloaded.state_dict()[name], p, atol=2e-3, rtol=1e-3)
