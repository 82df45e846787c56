"""BLEU per CPU minute: fitsub's small Transformer from scratch against BERT2RND (the frozen
all-MiniLM-L6-v2 encoder, a case embedding and fitsub's decoder; bert2rnd), en-it.

    python experiments/pretrained-encoder/run.py --arm scratch  --budget-min 12
    python experiments/pretrained-encoder/run.py --arm bert2rnd --budget-min 12

Both arms: the same fixed sample of `corpora_of it` (recipes/corpora.sh) read from
$DATA_ROOT/en-it/train, the same target SentencePiece model (models/en-it/spm.model; the scratch
arm uses it on the source too), the same decoder (d 256, 3 layers, LDPE + PE in characters,
noise 4, 20 % without a length), the same loop (batches by tokens, AdamW with inverse-sqrt
warm-up, label smoothing 0.1, clipping 1.0), one thread. The budget is process CPU time
(`time.process_time`), not wall time; evaluation is not counted, the BERT2RND arm's one-off
encoding of its training sources is (and reported apart). Dev: the first --dev-lines of
dev/mustc-tst-common-a and dev/ud-pud, greedy, unconstrained (and at the reference length at
the end): BLEU, chrF and capitalised non-initial source words that the reference copies, copied.
Writes runs/pretrained-encoder/ARM/log.jsonl (one line per evaluation).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np
import sacrebleu
import torch
from bert2rnd.case import N_CASES
from bert2rnd.encoder import corpus_states, load_encoder, package_path, packed_sources
from bert2rnd.model import Bert2Rnd
from safetensors.torch import save_file

from fitsub.nmt.config import ModelConfig
from fitsub.nmt.loss import projected_nll
from fitsub.nmt.model import Transformer
from fitsub.nmt.search import beam_search
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.train.batches import BatchMaker, make_batches
from fitsub.train.corpus import Corpus, Encoded, encode_corpus, filter_pairs, load_data_dir
from fitsub.train.optim import inverse_sqrt_lr, make_optimizer, stream_seed
from fitsub.units import char_length

ROOT = Path(__file__).resolve().parents[2]
DATA_ROOT = Path(os.environ.get("DATA_ROOT", ROOT.parent / "shared" / "data"))
DEV_SETS = ("mustc-tst-common-a", "ud-pud")
WORD = re.compile(r"[^\W\d_]+")


def corpora_of(lang: str) -> list[str]:
    """The corpus list of `corpora_of LANG` in recipes/corpora.sh (one source of truth)."""
    cmd = f"source recipes/corpora.sh && corpora_of {lang}"
    out = subprocess.run(["bash", "-c", cmd], cwd=ROOT, check=True, capture_output=True, text=True)
    return out.stdout.split()


def sample(n: int, seed: int) -> Corpus:
    """A fixed sample of n pairs of the en-it mixture (deduplicated, weighted, filtered)."""
    corpus, _ = load_data_dir(
        DATA_ROOT / "en-it" / "train", "en", "it", corpora_of("it"), seed, dropped={}
    )
    corpus, _ = filter_pairs(corpus)
    rng = np.random.default_rng(seed)
    return corpus.take(np.sort(rng.choice(len(corpus), size=n, replace=False)))


def read_dev(lines: int) -> dict[str, tuple[list[str], list[str]]]:
    out = {}
    for name in DEV_SETS:
        prefix = DATA_ROOT / "en-it" / "dev" / name
        src = prefix.with_suffix(".en").read_text(encoding="utf-8").splitlines()[:lines]
        ref = prefix.with_suffix(".it").read_text(encoding="utf-8").splitlines()[:lines]
        out[name] = (src, ref)
    return out


def packed_arrays(rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=off[1:])
    return np.fromiter((t for r in rows for t in r), np.int32, int(off[-1])), off


def gather_states(flat: np.ndarray, off: np.ndarray, idx: np.ndarray) -> torch.Tensor:
    """Rows `idx` of the flat (tokens, H) states as a zero-padded (B, S, H) float32 tensor."""
    lens = off[idx + 1] - off[idx]
    cols = np.arange(int(lens.max()))
    mask = cols[None, :] < lens[:, None]
    out = np.zeros((len(idx), len(cols), flat.shape[1]), dtype=np.float32)
    out[mask] = flat[(off[idx][:, None] + cols[None, :])[mask]]
    return torch.from_numpy(out)


def names_copied(srcs: list[str], refs: list[str], hyps: list[str]) -> tuple[int, int]:
    """(copied, expected): capitalised source words past the first that the reference has
    verbatim (names, mostly), and how many of them the output has verbatim."""
    copied = expected = 0
    for s, r, h in zip(srcs, refs, hyps, strict=True):
        for w in WORD.findall(s)[1:]:
            if w[0].isupper() and re.search(rf"\b{re.escape(w)}\b", r):
                expected += 1
                copied += bool(re.search(rf"\b{re.escape(w)}\b", h))
    return copied, expected


def translate(
    model: Transformer, rows: list[list[int]], tok: Tokenizer, lengths: list[int] | None
) -> list[str]:
    """Greedy translations of the packed / piece-id `rows` (unconstrained without `lengths`)."""
    model.eval()
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
    out = [""] * len(rows)
    for start in range(0, len(order), 32):
        idx = order[start : start + 32]
        width = max(len(rows[i]) for i in idx)
        src = torch.zeros(len(idx), width, dtype=torch.long)
        for b, i in enumerate(idx):
            src[b, : len(rows[i])] = torch.tensor(rows[i])
        want = [-1] * len(idx) if lengths is None else [lengths[i] for i in idx]
        hyps = beam_search(
            model,
            src,
            tgt_len=torch.tensor(want),
            beam=1,
            max_len=min(256, 3 * width + 10),
            target_chars=None if lengths is None else want,
        )
        for b, i in enumerate(idx):
            out[i] = tok.decode(hyps[b][0].ids) if hyps[b] else ""
    model.train()
    return out


@torch.no_grad()
def dev_nll(model: Transformer, rows: list[list[int]], refs: list[str], tok: Tokenizer) -> float:
    """Teacher-forced NLL per target piece (EOS included) of the references, no length signal:
    comparable across the arms, which share the target vocabulary."""
    model.eval()
    total, count = 0.0, 0
    for start in range(0, len(rows), 50):
        src = padded([list(r) for r in rows[start : start + 50]])
        tgt = [tok.encode(r) for r in refs[start : start + 50]]
        tgt_in = padded([[tok.bos_id, *t] for t in tgt])
        tgt_out = padded([[*t, tok.eos_id] for t in tgt])
        memory, pad = model.encode(src)
        h = model.decode_hidden(tgt_in, memory, pad, torch.full((len(tgt),), -1))
        total += float(
            projected_nll(hidden=h, weight=model.output_weight, target=tgt_out, pad=0, eps=0.0)
        )
        count += int(tgt_out.ne(0).sum())
    model.train()
    return total / count


def padded(rows: list[list[int]]) -> torch.Tensor:
    out = torch.zeros(len(rows), max(map(len, rows)), dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, : len(r)] = torch.tensor(r)
    return out


def evaluate(
    model: Transformer,
    dev: dict[str, Any],
    tok: Tokenizer,
    final: bool,
    bleu_lines: int,
    at_ref: bool,
) -> dict[str, Any]:
    """Dev NLL at every point; at the end BLEU, chrF and names (unconstrained and at the
    reference length) on the first `bleu_lines` of each set."""
    rec: dict[str, Any] = {}
    for name, (srcs, refs, rows) in dev.items():
        rec[f"nll:{name}"] = round(dev_nll(model, rows, refs, tok), 3)
        if not final:
            continue
        srcs, refs, rows = srcs[:bleu_lines], refs[:bleu_lines], rows[:bleu_lines]
        runs = {"": None, "@ref": [char_length(r) for r in refs]} if at_ref else {"": None}
        for tag, lengths in runs.items():
            hyps = translate(model, rows, tok, lengths)
            rec[f"bleu{tag}:{name}"] = round(sacrebleu.corpus_bleu(hyps, [refs]).score, 2)
            rec[f"chrf{tag}:{name}"] = round(sacrebleu.corpus_chrf(hyps, [refs]).score, 2)
            if not tag:
                rec[f"names:{name}"] = names_copied(srcs, refs, hyps)
    return rec


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arm", choices=("scratch", "bert2rnd"), required=True)
    ap.add_argument("--pairs", type=int, default=20000)
    ap.add_argument("--budget-min", type=float, default=12.0)
    ap.add_argument("--eval-every-min", type=float, default=3.0)
    ap.add_argument("--dev-lines", type=int, default=200)
    ap.add_argument("--bleu-lines", type=int, default=100)
    ap.add_argument("--at-ref", action="store_true", help="also decode at the reference length")
    ap.add_argument("--max-tokens", type=int, default=4096)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=ROOT / "runs" / "pretrained-encoder")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    out = args.out / args.arm
    out.mkdir(parents=True, exist_ok=True)

    tok = Tokenizer.load(ROOT / "models" / "en-it" / "spm.model")
    shipped = json.loads((ROOT / "models" / "en-it" / "config.json").read_text())["model"]
    mcfg = ModelConfig.from_dict({**shipped, "extra": {}})
    pc = np.asarray(tok.piece_chars(), dtype=np.int64)
    lead = np.asarray(tok.leading_space(), dtype=np.int64)
    corpus = sample(args.pairs, args.seed)
    enc = encode_corpus(
        encoder=tok, corpus=corpus, length_unit="char", piece_chars=pc, leading_space=lead
    )
    keep = np.flatnonzero((enc.src_lens <= 200) & (enc.tgt_lens <= 200) & (enc.tgt_lens > 0))
    enc = enc.subset(keep)
    dev_text = read_dev(args.dev_lines)
    torch.manual_seed(args.seed)
    encode_cpu, extra_src = 0.0, 1
    states = off = None
    if args.arm == "scratch":
        model: Transformer = Transformer(mcfg, tok.piece_chars(), tok.leading_space())
        dev = {n: (s, r, [tok.source_ids(t) for t in s]) for n, (s, r) in dev_text.items()}
    else:
        bert_tok, bert = load_encoder(package_path())
        hidden = int(bert.config.hidden_size)
        model = Bert2Rnd(mcfg, bert, hidden, tok.piece_chars(), tok.leading_space())
        rows = packed_sources(bert_tok, [corpus.src[i] for i in keep])
        ids, off = packed_arrays(rows)
        enc = Encoded(ids, off, enc.tgt_ids, enc.tgt_off, enc.tgt_units, enc.ratio)
        cache = args.out / f"states-{args.pairs}-{args.seed}.npy"
        if cache.exists():
            states = np.load(cache, mmap_mode="r")
            encode_cpu = json.loads(cache.with_suffix(".json").read_text())["encode_cpu_s"]
        else:
            t0 = time.process_time()
            states, _ = corpus_states(bert, rows, hidden)
            encode_cpu = time.process_time() - t0
            np.save(cache, states)
            info = {"encode_cpu_s": encode_cpu, "tokens": int(off[-1]), "sentences": len(rows)}
            cache.with_suffix(".json").write_text(json.dumps(info))
        extra_src = 0
        dev = {n: (s, r, packed_sources(bert_tok, s)) for n, (s, r) in dev_text.items()}
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    header = {
        "arm": args.arm,
        "pairs": len(enc),
        "trainable": trainable,
        "params": sum(p.numel() for p in model.parameters()),
        "encode_cpu_s": round(encode_cpu, 1),
        "src_tokens": int(enc.src_off[-1]),
        "tgt_tokens": int(enc.tgt_off[-1]),
    }
    print(json.dumps(header), flush=True)
    (out / "header.json").write_text(json.dumps(header))
    log = (out / "log.jsonl").open("w")

    opt = make_optimizer(model, args.lr, 0.0)
    maker = BatchMaker(enc, mcfg, tok, torch.device("cpu"))
    budget, every = args.budget_min * 60, args.eval_every_min * 60
    t_start, eval_cpu = time.process_time(), 0.0
    used = lambda: encode_cpu + time.process_time() - t_start - eval_cpu  # noqa: E731
    next_eval, step, epoch, tgt_seen, src_seen, loss_sum, loss_tok = every, 0, 0, 0, 0, 0.0, 0
    model.train()
    while used() < budget:
        rng = np.random.default_rng(args.seed + epoch)
        for idx in make_batches(
            enc.src_lens, enc.tgt_lens, args.max_tokens, rng, extra_src=extra_src
        ):
            step += 1
            seed = stream_seed(args.seed, 0, step)
            torch.manual_seed(seed)
            b = maker.make(idx, torch.Generator().manual_seed(seed))
            if isinstance(model, Bert2Rnd):
                assert states is not None and off is not None
                st = gather_states(states, off, idx)
                packed = torch.from_numpy(b.src.numpy()[:, : st.size(1)])
                pad = (
                    torch.arange(st.size(1))[None, :]
                    >= torch.from_numpy(off[idx + 1] - off[idx])[:, None]
                )
                memory, pad = model.memory(st, packed.remainder(N_CASES).masked_fill(pad, 0), pad)
                hidden_states = model.decode_hidden(b.tgt_in, memory, pad, b.tgt_len)
            else:
                hidden_states = model(b.src, b.tgt_in, b.tgt_len, hidden=True)
            loss = projected_nll(
                hidden=hidden_states, weight=model.output_weight, target=b.tgt_out, pad=0, eps=0.1
            )
            (loss / b.n_tgt).backward()
            for g in opt.param_groups:
                g["lr"] = inverse_sqrt_lr(step, args.lr, args.warmup)
            torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            tgt_seen, src_seen = tgt_seen + b.n_tgt, src_seen + int(enc.src_lens[idx].sum())
            loss_sum, loss_tok = loss_sum + float(loss.detach()), loss_tok + b.n_tgt
            done = used() >= budget
            if used() >= next_eval or done:
                cpu = used()
                e0 = time.process_time()
                rec = {
                    "cpu_min": round(cpu / 60, 2),
                    "step": step,
                    "epoch": epoch,
                    "tgt_tokens": tgt_seen,
                    "src_tokens": src_seen,
                    "train_tok_s": round(tgt_seen / max(cpu - encode_cpu, 1e-9), 1),
                    "loss": round(loss_sum / max(loss_tok, 1), 3),
                }
                rec.update(
                    evaluate(
                        model, dev, tok, final=done, bleu_lines=args.bleu_lines, at_ref=args.at_ref
                    )
                )
                eval_cpu += time.process_time() - e0
                rec["eval_cpu_s"] = round(time.process_time() - e0, 1)
                print(json.dumps(rec), flush=True)
                log.write(json.dumps(rec) + "\n")
                log.flush()
                loss_sum, loss_tok = 0.0, 0
                next_eval += every
            if done:
                break
        epoch += 1
    kept = {
        k: v.contiguous() for k, v in model.state_dict().items() if not k.startswith("encoder.")
    }
    save_file(kept, str(out / "model.safetensors"))  # the decoder side; the encoder: the package


if __name__ == "__main__":
    main()
