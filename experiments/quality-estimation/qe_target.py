"""Target-side signal variants measured for issue 28 (not all in the pipeline), and a refresh of
the cached rows' text signals, so that a change to `fitsub.quality.target` is measured without
running the forced passes again.

Variants (each measured alone in `fit`, and as candidates in `qe_select.py`):

* `rare_share_5`, `rare_share_100`: the share of output words (not copied) seen under 5 / 100
  times in the lexicon (`rare_share` uses `fitsub.quality.target.RARE_COUNT`);
* `lexicon_min_all`: `lexicon_min` over every output word, copied ones included;
* `unknown_share`: words in neither the lexicon nor the source (the search keeps these near 0);
* `repeated_any`: repeated words of any length (`repeated` counts content words);
* `names_lost_exact`: source names absent as whole words (no stem match);
* `foreign_share_20`, `foreign_share_1000`, `foreign_count`: `foreign_share` at other lexicon
  counts, and as a count of words;
* `predicted_ratio`: log((fitted + 10) / (predicted + 10) characters), the predicted length of
  the shipped length predictor (`models/en-XX/length-predictor`), signed;
* with the target language's word list (`fitsub.quality.dictionary`, issue 43):
  `english_left` (the count of words `untranslated` names: `english_left`; their share of the
  output's words is `fitsub.quality.target.english_share`, shipped) and `unreal_share` (the
  share of the output's words not copied from the source that neither the lexicon nor the
  word list knows: non-words).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from statistics import fmean
from typing import Any


def variants(source: str, fitted: str, lexicon: Any) -> dict[str, float | None]:
    """The text variants (`qe_fit.VARIANTS`, all but `predicted_ratio`) of one output."""
    from fitsub.quality.flags import names_of
    from fitsub.quality.lexicon import words_of

    src = set(words_of(source))
    out = words_of(fitted)
    own = [w for w in out if w not in src]
    counts = [lexicon.counts.get(w, 0) for w in own]
    every = [lexicon.counts.get(w, 0) for w in out]
    reps = Counter(out)
    src_reps = Counter(words_of(source))
    return {
        "rare_share_5": fmean(n < 5 for n in counts) if counts else None,
        "rare_share_100": fmean(n < 100 for n in counts) if counts else None,
        "lexicon_min_all": min(math.log1p(n) for n in every) if every else None,
        "unknown_share": fmean(n == 0 for n in counts) if counts else None,
        "repeated_any": float(
            max(0, sum(n - 1 for n in reps.values()) - sum(n - 1 for n in src_reps.values()))
        ),
        "names_lost_exact": float(sum(1 for n in names_of(source) if n not in set(out))),
        **foreign_variants(source, out, lexicon),
    }


def foreign_variants(source: str, out: list[str], lexicon: Any) -> dict[str, float | None]:
    """`foreign_share` at other lexicon counts (20, 1000) and as a count of words."""
    from fitsub.quality.flags import names_of
    from fitsub.quality.lexicon import words_of

    src = set(words_of(source)) - set(names_of(source))
    res: dict[str, float | None] = {}
    for cut in (20, 1000):
        res[f"foreign_share_{cut}"] = (
            fmean(w in src and lexicon.counts.get(w, 0) < cut for w in out) if out else None
        )
    res["foreign_count"] = float(sum(w in src and lexicon.counts.get(w, 0) < 100 for w in out))
    return res


def dictionary_variants(
    source: str, fitted: str, lexicon: Any, dictionary: Any
) -> dict[str, float | None]:
    """`english_left`, `unreal_share` (module docstring); None without a list."""
    from fitsub.quality.dictionary import english_left
    from fitsub.quality.lexicon import words_of

    out = words_of(fitted)
    if dictionary is None or not out:
        return dict.fromkeys(("english_left", "unreal_share"))
    english = len(english_left(source, fitted, dictionary))
    src = set(words_of(source))
    own = [w for w in out if w not in src]
    unreal = [w not in lexicon.counts and not dictionary.knows(w) for w in own]
    return {
        "english_left": float(english),
        "unreal_share": fmean(unreal) if unreal else 0.0,
    }


def predicted_lengths(model_dir: Path, sources: Sequence[str]) -> tuple[list[int], float]:
    """(predicted target characters of each source, CPU seconds) by the model's length predictor."""
    from fitsub.lengthpred.predictor import default_predictor_dir, load_predictor

    pred = load_predictor(default_predictor_dir(model_dir), model_dir)
    t0 = time.process_time()
    out = pred.predict_chars(list(sources))
    return out, time.process_time() - t0


def predicted_ratio(fitted: str, predicted: int | None) -> float | None:
    from fitsub.units import char_length

    if predicted is None:
        return None
    return math.log((char_length(fitted) + 10) / (predicted + 10))


def refresh(lang: str, rows: list[dict[str, Any]], lexicon: Any) -> None:
    """Recompute the text-only target signals of cached `rows` in place (today's code)."""
    from fitsub.quality.dictionary import load_dictionary, with_dictionary
    from fitsub.quality.lexicon import words_of
    from fitsub.quality.target import (
        english_share,
        foreign_share,
        lexicon_signals,
        mismatch_signals,
        repeated_words,
    )

    listed = with_dictionary(lexicon, lang)  # the lexicon as the pipeline reads it
    for r in rows:
        s, f = r["source"], r["fitted"]
        sig = r["signals"]
        sig.update(lexicon_signals(s, f, lexicon))
        sig.update(mismatch_signals(s, f, lang))
        sig["repeated"] = float(repeated_words(s, f))
        sig["foreign_share"] = foreign_share(s, f, lexicon) if words_of(f) else None
        sig.update(variants(s, f, lexicon))
        sig["predicted_ratio"] = predicted_ratio(f, r.get("predicted"))
        sig.update(dictionary_variants(s, f, lexicon, load_dictionary(lang)))
        sig["english_share"] = english_share(s, f, listed)


def misses(rows: list[dict[str, Any]], model_path: Path, lang: str, n: int) -> None:
    """`n` wrong lines (the dev label) that the model at `model_path` does not flag, drawn at
    random (seed 0), with their signals: to read what they have in common."""
    import numpy as np
    from qe_fit import wrong

    from fitsub.quality.score import load_model

    model = load_model(model_path)
    t = model.threshold_for(lang)
    w = wrong(rows)
    missed = [r for r, bad in zip(rows, w, strict=True) if bad and model.score(r["signals"]) >= t]
    print(f"{lang}: {int(w.sum())} wrong, {len(missed)} not flagged (threshold {t})")
    rng = np.random.default_rng(0)
    for i in rng.choice(len(missed), size=min(n, len(missed)), replace=False):
        r = missed[i]
        s = r["signals"]
        print(f"\n[{r['set']}] chrF {r['chrf']:.0f} q {model.score(s):.2f}\n  EN  {r['source']}\n"
              f"  FIT {r['fitted']}\n  REF {r['ref']}\n  FREE {r.get('unconstrained')}\n"
              f"  lexmin {s.get('lexicon_min')} rare {s.get('rare_share')} "
              f"wordlp {s.get('word_min_logprob')} mism {s.get('mismatch')} "
              f"pred {s.get('predicted_ratio')}")  # fmt: skip
