"""int8 on CPU: `fitsub export --int8` stores int8 weights + scales as safetensors; loading rebuilds
dynamically quantised layers from them (no unpickling), and they translate like the float model."""

from __future__ import annotations

import json
from pathlib import Path

import torch
from factories import tiny_config, word_tokenizer
from safetensors.torch import load_file
from torch.ao.nn.quantized.dynamic import Linear as DynamicLinear

from fitsub.cli import main
from fitsub.nmt.checkpoint import build_model, load_checkpoint, quantize_weight, save_checkpoint
from fitsub.nmt.search import beam_search


def _export(tmp_path: Path) -> tuple[Path, Path]:
    torch.manual_seed(0)
    tok = word_tokenizer()
    cfg = tiny_config(tok)
    src = save_checkpoint(tmp_path / "last", build_model(cfg, tok), cfg, tok, {"step": 1})
    out = tmp_path / "int8"
    try:
        main(["export", str(src), str(out), "--int8"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    return src, out


def test_quantised_weights_are_int8_with_a_scale_per_output_channel() -> None:
    w = torch.randn(6, 10)
    q, scale = quantize_weight(w)
    assert q.dtype == torch.int8 and scale.shape == (6,)
    assert int(q.abs().max()) == 127
    torch.testing.assert_close(
        q.float() * scale[:, None], w, atol=float(scale.max()) / 2 + 1e-6, rtol=0
    )


def test_int8_export_stores_int8_tensors_and_loads_quantised_layers(tmp_path: Path) -> None:
    src, out = _export(tmp_path)
    weights = load_file(str(out / "model.safetensors"))
    assert weights["dec_layers.0.ff.up.weight"].dtype == torch.int8
    assert weights["dec_layers.0.ff.up.weight_scale"].dtype == torch.float32
    assert weights["embed.weight"].dtype == torch.float16
    assert json.loads((out / "config.json").read_text("utf-8"))["weights_dtype"] == "int8"
    model, _, _, _ = load_checkpoint(out, int8=True)
    assert isinstance(model.dec_layers[0].ff.up, DynamicLinear)
    assert isinstance(model.out_proj, DynamicLinear)
    plain, _, _, _ = load_checkpoint(out)  # without int8: dequantised float weights
    assert isinstance(plain.dec_layers[0].ff.up, torch.nn.Linear) and plain.out_proj is None
    # the export and quantising the float checkpoint at load give nearly the same layers
    again, _, _, _ = load_checkpoint(src, int8=True)
    src_ids = torch.tensor([[5, 6, 7, 3]])
    tgt = torch.tensor([[2, 8, 9]])
    with torch.inference_mode():
        a, b, f = model(src_ids, tgt, None), again(src_ids, tgt, None), plain(src_ids, tgt, None)
    torch.testing.assert_close(a, b, atol=0.05, rtol=0.05)  # the export keeps float16 biases
    torch.testing.assert_close(a, f, atol=0.1, rtol=0.05)


def test_an_int8_model_searches_with_the_budget_kept(tmp_path: Path) -> None:
    _, out = _export(tmp_path)
    model, _, _, _ = load_checkpoint(out, int8=True)
    src = torch.tensor([[5, 6, 7, 3], [8, 9, 3, 0]])
    hyps = beam_search(model, src, torch.tensor([12, 8]), [12, 8], beam=3, max_len=12, n_best=3)
    for row, budget in zip(hyps, [12, 8], strict=True):
        assert all(h.chars <= budget for h in row if h.fits)
