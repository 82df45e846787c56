"""Issue 54's table: a baseline and a candidate model on the dialogue, TED and news dev sets.

Per language, model, test set and setting (unconstrained; iso@1 = IWSLT 2022's ±10 % band) the
outputs are cached under OUT/hyps/, scored with sacrebleu (BLEU 13a, chrF) and LC, and each
candidate is compared with the baseline by paired bootstrap resampling (Koehn 2004; sacrebleu's
`PairedTest`, 1,000 samples). dev/opensubtitles is split in two by line: model selection used
only its first half (build/dialogue/dev), the table reports its second half ("report half").

    python experiments/dialogue/compare.py --lang it --baseline models/en-it \
        --candidate runs/dialogue-model --out build/dialogue/compare --threads 1
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest

from fitsub.cli import registry
from fitsub.eval.evaluate import translate_all
from fitsub.eval.settings import Setting
from fitsub.metrics.length import length_compliance

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def read_lines(path: Path) -> list[str]:
    """The lines of a UTF-8 text file."""
    return path.read_text(encoding="utf-8").splitlines()


def testsets(lang: str, n: int) -> dict[str, tuple[list[str], list[str]]]:
    """Name -> (sources, references): the report half of dev/opensubtitles, TED dev, ud-pud."""
    dev = DATA / f"en-{lang}" / "dev"
    out: dict[str, tuple[list[str], list[str]]] = {}
    src, ref = read_lines(dev / "opensubtitles.en"), read_lines(dev / f"opensubtitles.{lang}")
    half = (len(src) + 1) // 2
    out["opensubs-report"] = (src[half : half + n], ref[half : half + n])
    for name, stem in (("ted-dev", "mustc-tst-common-a"), ("ud-pud", "ud-pud")):
        if (dev / f"{stem}.en").exists():
            out[name] = (read_lines(dev / f"{stem}.en")[:n], read_lines(dev / f"{stem}.{lang}")[:n])
    return out


def size(name: str, setting: str, n: int, n_iso: int) -> int:
    """Segments scored: iso@1 (fitsub's own search, ~10x slower on the CPU) takes the first
    `n_iso` of TED dev and ud-pud, and all `n` of the dialogue set's report half."""
    return n if setting == "unconstrained" or name == "opensubs-report" else n_iso


def outputs(
    model: Path,
    lang: str,
    sets: dict[str, tuple[list[str], list[str]]],
    cache: Path,
    threads: int,
    n_iso: int,
) -> dict[tuple[str, str], list[str]]:
    """(set, setting) -> outputs, translated once and cached as one line per segment."""
    settings = (Setting("unconstrained", "unconstrained", 1.0), Setting("iso@1", "iso", 1.0))
    got: dict[tuple[str, str], list[str]] = {}
    backend = None
    for name, (all_srcs, _) in sets.items():
        for s in settings:
            srcs = all_srcs[: size(name, s.name, len(all_srcs), n_iso)]
            path = cache / f"{name}.{s.name}.{lang}"
            if path.exists() and len(read_lines(path)) >= len(srcs):
                got[(name, s.name)] = read_lines(path)[: len(srcs)]
                continue
            if backend is None:
                backend = registry.open_model(
                    model, src_lang="en", lang=lang, device="cpu", beam=5, threads=threads
                )
            start = time.perf_counter()
            hyps = [h.replace("\n", " ") for h in translate_all(backend, s, srcs)]
            print(f"{model} {lang} {name} {s.name}: {time.perf_counter() - start:.0f} s")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(hyps) + "\n", encoding="utf-8")
            got[(name, s.name)] = hyps
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", required=True)
    ap.add_argument("--baseline", type=Path, required=True)
    ap.add_argument("--candidate", type=Path, action="append", default=[])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--n", type=int, default=500, help="segments per test set")
    ap.add_argument("--n-iso", type=int, default=200, help="iso@1 segments of TED and ud-pud")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    sets = testsets(a.lang, a.n)
    models = [a.baseline, *a.candidate]
    hyps = {
        m: outputs(
            m, a.lang, sets, a.out / "hyps" / m.as_posix().replace("/", "_"), a.threads, a.n_iso
        )
        for m in models
    }
    rows = []
    for name, (all_srcs, all_refs) in sets.items():
        for setting in ("unconstrained", "iso@1"):
            k = size(name, setting, len(all_srcs), a.n_iso)
            srcs, refs = all_srcs[:k], all_refs[:k]
            systems = {str(m): hyps[m][(name, setting)] for m in models}
            base = systems[str(a.baseline)]
            row: dict[str, object] = {"lang": a.lang, "set": name, "setting": setting, "n": k}
            for m, h in systems.items():
                row[m] = {
                    "bleu": round(BLEU().corpus_score(h, [refs]).score, 2),
                    "chrf": round(CHRF().corpus_score(h, [refs]).score, 2),
                    "lc": length_compliance(srcs, h).rate,
                }
            if len(systems) > 1:
                named = [("baseline", base)] + [(m, h) for m, h in systems.items() if h is not base]
                test = PairedTest(named, {"BLEU": BLEU()}, [refs], test_type="bs", n_samples=1000)
                _, sigs = test()  # one result per system, the baseline first
                for (name_, _), res in zip(named[1:], sigs["BLEU"][1:], strict=True):
                    extra = {"p": res.p_value, "mean": float(res.mean), "ci": float(res.ci)}
                    row[name_] = {**row[name_], **extra}  # type: ignore[dict-item]
            rows.append(row)
            print(json.dumps(row))
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / f"compare-{a.lang}.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
