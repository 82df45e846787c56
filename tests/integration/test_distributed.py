"""Two gloo processes under torchrun train one tiny model: same weights on both, rank 0 writes."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from fitsub.train.distributed import DistInfo, all_sum, init_distributed, pick_device

SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path
    import torch
    from safetensors.torch import save_file
    import fitsub.train.loop as T

    here = Path(sys.argv[1])
    rank = int(os.environ["RANK"])
    saves = []
    real_save = T.save_checkpoint

    def recording_save(path, *args, **kw):
        saves.append(str(path))
        return real_save(path, *args, **kw)

    T.save_checkpoint = recording_save
    seen = []
    real_make = T.BatchMaker.make

    def recording_make(self, idx, gen, train=True):
        if train:
            seen.append(sorted(int(i) for i in idx))
        return real_make(self, idx, gen, train)

    T.BatchMaker.make = recording_make
    cfg = T.TrainConfig.from_options(
        out_dir=str(here / "run"), data_dir=str(here / "data"), dev_size=40, method="tok+ldpe",
        noise=2, d_model=32, n_heads=2, enc_layers=1, dec_layers=1, d_ff=64, vocab_size=60,
        max_tokens=256, max_pieces=60, max_steps=6, warmup=3, lr=3e-3, eval_every=3, log_every=3,
        bleu_sentences=8, threads=1, resume=len(sys.argv) > 2,
    )
    trainer = T.Trainer(cfg)
    trainer.run()
    weights = {k: v.contiguous() for k, v in trainer.model.state_dict().items()}
    save_file(weights, str(here / f"rank{rank}.safetensors"))
    (here / f"rank{rank}.json").write_text(json.dumps({"saves": saves, "seen": seen}))
    T.shutdown(trainer.info)
    """
)

WORDS = "cat dog house red blue big small runs eats sees the a man woman child tree".split()


def write_toy(d: Path, n: int = 400) -> None:
    rng = random.Random(0)
    src, tgt = [], []
    for _ in range(n):
        ws = [rng.choice(WORDS) for _ in range(rng.randint(2, 8))]
        src.append(" ".join(ws))
        tgt.append(" ".join(w[::-1] + "o" for w in ws))
    d.mkdir(parents=True)
    (d / "toy.en").write_text("\n".join(src) + "\n")
    (d / "toy.it").write_text("\n".join(tgt) + "\n")


def torchrun(here: Path, *extra: str) -> None:
    script = here / "job.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"]
    proc = subprocess.run(
        [*cmd, str(script), str(here), *extra], env=env, capture_output=True, text=True, timeout=240
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.slow
def test_two_gloo_ranks_hold_identical_weights(tmp_path: Path) -> None:
    write_toy(tmp_path / "data")
    torchrun(tmp_path)
    r0 = load_file(str(tmp_path / "rank0.safetensors"))
    r1 = load_file(str(tmp_path / "rank1.safetensors"))
    assert r0.keys() == r1.keys() and all(torch.equal(r0[k], r1[k]) for k in r0)
    saved = load_file(str(tmp_path / "run" / "last" / "model.safetensors"))
    assert all(torch.equal(saved[k], r0[k]) for k in saved)
    j0 = json.loads((tmp_path / "rank0.json").read_text())
    j1 = json.loads((tmp_path / "rank1.json").read_text())
    assert j1["saves"] == [] and j0["saves"] and all("run" in p for p in j0["saves"])
    # each rank read its own shard: 6 updates, disjoint batches
    assert len(j0["seen"]) == len(j1["seen"]) == 6
    rows0 = {i for b in j0["seen"] for i in b}
    rows1 = {i for b in j1["seen"] for i in b}
    assert not rows0 & rows1
    log = [json.loads(x) for x in (tmp_path / "run" / "train_log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log if r["event"] == "eval"] == [3, 6]  # one log, not two

    # resume on both ranks continues from step 6 (max_steps stays 6: nothing more to do)
    torchrun(tmp_path, "resume")
    again = load_file(str(tmp_path / "rank1.safetensors"))
    assert all(torch.equal(again[k], r0[k]) for k in r0)


def test_single_process_helpers_without_torchrun(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
        monkeypatch.delenv(name, raising=False)
    info = init_distributed("cpu")
    assert info == DistInfo(0, 1, 0, torch.device("cpu")) and info.is_main
    assert all_sum(info, [1.5, 2.0]) == [1.5, 2.0]
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="no CUDA device"):
            pick_device("cuda")
