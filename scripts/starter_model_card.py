"""Write MODEL_CARD.md for a starter model (models/en-de, en-fr, en-es) from its run and eval.

    python scripts/starter_model_card.py LANG RUN_DIR EVAL_JSON [PRIOR_LOG] > models/en-LANG/MODEL_CARD.md

PRIOR_LOG: the training log of the model a `CONTINUE=1` run started from (its updates, tokens,
minutes and dev curve are counted first).

RUN_DIR is the training run (its train_log.jsonl gives the updates, the wall time, the tokens
seen and the dev curve); EVAL_JSON is `fitsub eval --json` on the test sets. The data section
names the corpora of scripts/train_starter_de_fr_es.sh with their licenses (from
../shared/data/README.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

NAMES = {"de": "German", "fr": "French", "es": "Spanish"}
LICENSES = {
    "tatoeba": "Tatoeba, CC-BY 2.0 FR (via the manythings.org Anki export)",
    "gettext-ui": "translations shipped in Debian packages (GPL / LGPL / MPL, per package)",
    "multi30k": "Multi30k image captions (research use)",
    "wmt-news": "WMT news test sets 2008-2020 minus every held-out sentence (research use)",
    "bcontrast-chat": "BConTrasT (WMT20 chat task), CC-BY-SA 4.0",
    "mtgeneval": "amazon-science/machine-translation-gender-eval, CC-BY-SA 3.0",
    "xsid": "xSID 0.4 (mainlp/xsid), CC-BY-SA 4.0",
    "cocoa-spoken": "CoCoA-MT, CDLA-Sharing-1.0",
    "tico19": "TICO-19, CC0",
    "wikipedia-seed": "OLDI Seed, CC-BY-SA 4.0",
}


def _stages(run: Path, before: Path | None) -> list[list[dict]]:
    """The training logs, oldest first: `before` (the shipped model's log, when this run
    continued it with `--init-from`) and the run's own."""
    paths = ([before] if before is not None else []) + [run / "train_log.jsonl"]
    return [[json.loads(x) for x in p.read_text().splitlines()] for p in paths]


def main(lang: str, run: Path, eval_json: Path, before: Path | None = None) -> str:
    stages = _stages(run, before)
    start = next(e for e in stages[0] if e["event"] == "start")
    tokens, minutes, offset, points = 0, 0.0, 0, []
    for log in stages:  # updates continue counting across a continuation
        steps = [e for e in log if e["event"] == "step"]
        tokens += sum(e["tokens"] for e in steps)
        minutes += steps[-1]["elapsed"] / 60 if steps else 0.0
        points += [(offset + e["step"], e) for e in log if e["event"] == "eval"]
        offset += max(e["step"] for e in log if "step" in e)
    last = offset
    curve = "; ".join(f"{k}: {e['dev_loss']:.2f}, {e['dev_bleu']:.1f}" for k, e in points)
    if before is not None:
        curve += (
            f" (from update {offset - max(e['step'] for e in stages[-1] if 'step' in e)}: a"
            " continuation from the shipped model with a fresh optimizer and warm-up, on the"
            " same 1,000 held-out dev pairs)"
        )
    then = ""
    if before is not None:
        cont = next(e for e in stages[-1] if e["event"] == "start")["config"]
        then = (
            f", then `CONTINUE=1 MINUTES={round(cont['max_time'] / 60)} LANGS={lang}"
            " scripts/train_starter_de_fr_es.sh` (the same command with `--init-from"
            f" models/en-{lang}`, into runs/en-{lang}-cont)"
        )
    corpora = start["config"]["corpora"]
    rows = []
    for c in corpora:
        name, _, weight = c.partition(":")
        rows.append(f"| {name} | {weight or '1'} | {LICENSES.get(name, '?')} |")
    table = [
        "| test set (first n) | setting | n | BLEU | chrF | LC % | fit % |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in json.loads(eval_json.read_text())["rows"]:
        m = r["metrics"]
        table.append(
            f"| {r['testset']} | {r['setting']} | {m['n']} | {m['bleu']['score']:.2f} | "
            f"{m['chrf']['score']:.2f} | {100 * m['lc']['rate']:.1f} | {100 * m['fit']['rate']:.1f} |"
        )
    nl = "\n"
    return f"""# en-{lang}: fitsub's starter English → {NAMES[lang]} length-controlled model

**Status: a starter, weak.** It makes `fitsub translate --lang {lang}` work on a fresh clone with
no network, and its length control works (see `hard@1` below: a segment outside its budget is
one where no whole-word translation fit, returned flagged `over-budget`), but its translations
are poor: {last:,} updates ({tokens / 1e6:.1f} M tokens, {minutes:.0f} min) on one
shared CPU thread. For output worth post-editing use a pretrained model through the Hugging Face
backend (README, "Pretrained models"), e.g. `Helsinki-NLP/opus-mt-en-{lang}`, under the same
length control. A longer run (issue 12) replaces this model.

The architecture and length method are the shipped en→it model's (models/en-it/MODEL_CARD.md):
7.6 M parameters, d_model 256, 3 + 3 pre-norm layers, joint 8,000-piece SentencePiece vocabulary,
LDPE + sinusoidal encoding in characters, length noise [−4, 4], 20 % of rows without a length (the
unconstrained mode). Weights in float16 (15.6 MB).

## Data (read from `../shared/data/en-{lang}/train`, never copied into this repository)
| corpus | weight | license / attribution |
|---|---|---|
{nl.join(rows)}

Left out: `web-machine-translated` (machine-translated target side) where it exists. Filters as
for en→it (empty pairs, > 1,000 characters, character ratio outside [1/3, 3], > 200 pieces);
1,000 dev pairs held out by English source.

## Training
`MINUTES=38 LANGS={lang} scripts/train_starter_de_fr_es.sh` (= `fitsub train` with the en→it
recipe, `--max-time 38m --threads 1`, then `fitsub export … --dtype float16`){then}. Hardware: 2 CPU
cores shared with other work (other training and test runs), bf16 autocast.
Dev curve (update: loss, BLEU greedy with the oracle length on 200 held-out pairs): {curve}.

## Results (`fitsub eval`, beam 5, first n sentences of each test set)
{nl.join(table)}

hard@1: the budget is the source's length in characters; iso@1: IWSLT 2022 band (±10 % of the
source's characters without spaces). Command:
`fitsub eval --model models/en-{lang} --testset tatoeba=../shared/data/en-{lang}/test/tatoeba-test-unseen --testset flores=../shared/data/en-{lang}/test/flores200-devtest --lang {lang} --settings unconstrained --settings hard --settings iso --max-segments 100 --threads 1`
"""


if __name__ == "__main__":
    prior = Path(sys.argv[4]) if len(sys.argv) > 4 else None
    sys.stdout.write(main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), prior))
