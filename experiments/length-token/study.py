"""The length-token study at CPU scale: a model trained with a source length token beside LDPE
(Lakew et al. 2019 + Takase & Okazaki 2019, each signal sometimes absent) against the same model
trained with LDPE alone, and its fitted rows decoded on CTranslate2 with the token
(`fitsub.nmt.token_path`: n-best filtered by the bounds, fitsub's LDPE search for the rest).

Systems, each on the first `--n` lines of ud-pud and TED dev (`dev/mustc-tst-common-a`), beam 5:
* `A`: `--ldpe` model, fitsub's default path (CTranslate2 unconstrained, LDPE search fitted);
* `B-ldpe`: `--tok` model with the token path off (token + LDPE in fitsub's search);
* `B-token`: `--tok` model with the token path on.
Per set and setting (unconstrained, iso@1, hard@1): BLEU and chrF (sacrebleu), LC (IWSLT 2022:
characters without spaces within ±10 % of the source's), fit (hard@1: within the source's
characters), the share of fitted rows the token path answered, the pass's wall seconds, and a
paired bootstrap of each system's BLEU against A (sacrebleu's `PairedTest`, 1,000 samples).
Data is read from ../shared at run time, never copied into the project.

    python experiments/length-token/study.py --ldpe runs/tok-a-model --tok runs/tok-b-model \
        --out build/s24/study --n 300 --threads 1 [--only A|B-ldpe|B-token]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest

from fitsub.eval.evaluate import translate_all
from fitsub.eval.settings import Setting
from fitsub.metrics.length import fit_rate, length_compliance
from fitsub.nmt.backend import NMTBackend
from fitsub.nmt.token_path import has_token_path

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "en-it" / "dev"
SYSTEMS = ("A", "B-ldpe", "B-token")
SETTINGS = (
    Setting("unconstrained", "unconstrained", 1.0),
    Setting("iso@1", "iso", 1.0),
    Setting("hard@1", "hard", 1.0),
)


def lines(path: Path, n: int) -> list[str]:
    """The first `n` lines of a UTF-8 text file."""
    return path.read_text(encoding="utf-8").splitlines()[:n]


Outputs = dict[tuple[str, str], tuple[list[str], float, int]]


def run_system(
    model: Path, token_path: bool, sets: dict[str, list[str]], threads: int, cache: Path
) -> Outputs:
    """(set, setting) -> (outputs, wall seconds, rows the token path answered); kept in `cache`
    (JSON), so systems can run in parallel processes (`--only`) and be scored together."""
    if cache.exists():
        saved = json.loads(cache.read_text(encoding="utf-8"))
        if saved["n"] == len(next(iter(sets.values()))):
            return {
                (k["set"], k["setting"]): (k["hyps"], k["seconds"], k["served"])
                for k in saved["rows"]
            }
    backend = NMTBackend(model, device="cpu", beam=5, threads=threads)
    backend.token_path = token_path and has_token_path(backend.cfg)
    out: dict[tuple[str, str], tuple[list[str], float, int]] = {}
    for name, srcs in sets.items():
        for s in SETTINGS:
            before = backend.token_served
            start = time.perf_counter()
            hyps = [h.replace("\n", " ") for h in translate_all(backend, s, srcs)]
            wall = time.perf_counter() - start
            out[(name, s.name)] = (hyps, wall, backend.token_served - before)
            print(f"{model} token={token_path} {name} {s.name}: {wall:.0f} s", flush=True)
    rows = [
        {"set": k[0], "setting": k[1], "hyps": v[0], "seconds": v[1], "served": v[2]}
        for k, v in out.items()
    ]
    cache.parent.mkdir(parents=True, exist_ok=True)
    n = len(next(iter(sets.values())))
    cache.write_text(json.dumps({"model": str(model), "n": n, "rows": rows}), encoding="utf-8")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ldpe", type=Path, required=True, help="the model with LDPE alone")
    ap.add_argument("--tok", type=Path, required=True, help="the model with token + LDPE")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--only", choices=SYSTEMS, help="translate this system alone (cached)")
    a = ap.parse_args()
    sources = {"ud-pud": "ud-pud", "ted-dev": "mustc-tst-common-a"}
    sets = {k: lines(DATA / f"{v}.en", a.n) for k, v in sources.items()}
    refs = {k: lines(DATA / f"{v}.it", a.n) for k, v in sources.items()}
    plan = {"A": (a.ldpe, False), "B-ldpe": (a.tok, False), "B-token": (a.tok, True)}
    if a.only is not None:
        model, on = plan[a.only]
        run_system(model, on, sets, a.threads, a.out / f"{a.only}.json")
        return
    systems = {
        k: run_system(model, on, sets, a.threads, a.out / f"{k}.json")
        for k, (model, on) in plan.items()
    }
    rows = []
    for name, srcs in sets.items():
        for s in SETTINGS:
            row: dict[str, object] = {"set": name, "setting": s.name, "n": len(srcs)}
            for sys_name, got in systems.items():
                hyps, wall, served = got[(name, s.name)]
                row[sys_name] = {
                    "bleu": round(BLEU().corpus_score(hyps, [refs[name]]).score, 2),
                    "chrf": round(CHRF().corpus_score(hyps, [refs[name]]).score, 2),
                    "lc": round(length_compliance(srcs, hyps).rate, 4),
                    "fit": round(fit_rate(srcs, hyps, 1.0).rate, 4),
                    "served": round(served / max(1, len(srcs)), 4),
                    "seconds": round(wall, 1),
                }
            named = [(k, v[(name, s.name)][0]) for k, v in systems.items()]
            test = PairedTest(named, {"BLEU": BLEU()}, [refs[name]], test_type="bs", n_samples=1000)
            _, sigs = test()
            for (sys_name, _), res in zip(named[1:], sigs["BLEU"][1:], strict=True):
                extra = {"p": round(float(res.p_value or 1.0), 4), "ci": round(float(res.ci), 2)}
                row[sys_name] = {**row[sys_name], **extra}  # type: ignore[dict-item]
            rows.append(row)
            print(json.dumps(row), flush=True)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "study.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
