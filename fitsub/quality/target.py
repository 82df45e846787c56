"""Target-side quality signals: what the output itself says, without a reference (issue 28).

Read off the fitted text, the source, the model's shipped target lexicon (`fitsub.quality.lexicon`: the
words of its training target text with their counts) and the forced pass `fitsub.quality.score`
already runs; no extra model pass. Signals of the *output's* words count only the words not
copied from the source (a name or a number kept as is says nothing about the target language):

* `lexicon_min`: the lowest log(1 + count) of an output word in the lexicon (0 for a word it
  lacks): a word the training text hardly ever used ("terrestri" for "dragon lands");
* `lexicon_mean`: the mean log(1 + count) of the output's words;
* `rare_share`: the share of the output's words seen under `RARE_COUNT` times;
* `foreign_share`: the share of the output's words copied from the source that are neither
  names (capitalised inside the source) nor common in the lexicon (under `FOREIGN_COUNT`): English
  left in the line ("Luckily, qualcuno in Sony...", "il tumour", "la scheme");
* `english_share`: the share of the output's words that read as English left in the line, by the
  word lists of the target language and of English beside the lexicon
  (`fitsub.quality.dictionary.english_left`: the words the `untranslated` flag names; names of
  the source and interjections exempt); None without a word list. It replaced `foreign_share`
  in the calibrated score (issue 43: held-out AUC 0.890 → 0.893, docs/results/quality.md);
* `word_min_logprob`: the least likely output *word* under forced decoding, the sum of its
  pieces' log-probabilities (`OutputScore.output_words` groups the pieces into words);
* `output_pieces`: tokenizer pieces per output word (a made-up word is split into many);
* `repeated`: content words (`CONTENT_LETTERS` letters or more) the output repeats beyond the
  source's own repetitions ("un americano per un americano");
* `names_lost`: capitalised names of the source (not opening a sentence) that no output word
  starts like (first `NAME_STEM` letters: "London" / "Londra" is kept, a name gone is not);
* `numbers_lost`: numbers of the source the output lacks or adds (digits, times and numbers
  written as words: `fitsub.quality.flags.number_changes`);
* `question_lost`: 1.0 when the source asks a question and the output does not (or the
  reverse), else 0.0;
* `mismatch`: `names_lost` + `numbers_lost` + `question_lost`.

A signal that cannot be computed (no lexicon, no word of the output outside the source, no
forced-decoding score) is None and takes its calibration mean in the score.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from statistics import fmean

from fitsub.backend import OutputScore
from fitsub.quality.dictionary import Dictionary, english_left
from fitsub.quality.flags import CONTENT_LETTERS, names_of, number_changes
from fitsub.quality.lexicon import Lexicon, words_of

RARE_COUNT = 20  # an output word seen fewer times than this in the training text is rare
FOREIGN_COUNT = 100  # a copied word seen fewer times than this in the target text: not its own
NAME_STEM = 4  # a source name is kept when an output word starts with its first letters

TARGET_SIGNALS = (
    "lexicon_min",
    "lexicon_mean",
    "rare_share",
    "foreign_share",
    "english_share",
    "word_min_logprob",
    "output_pieces",
    "repeated",
    "names_lost",
    "numbers_lost",
    "question_lost",
    "mismatch",
)


def lexicon_signals(source: str, output: str, lexicon: Lexicon | None) -> dict[str, float | None]:
    """`lexicon_min`, `lexicon_mean`, `rare_share` of the output's words not in the source."""
    src = set(words_of(source))
    own = [w for w in words_of(output) if w not in src]
    if lexicon is None or not own:
        return dict.fromkeys(("lexicon_min", "lexicon_mean", "rare_share"))
    counts = [lexicon.counts.get(w, 0) for w in own]
    logs = [math.log1p(n) for n in counts]
    return {
        "lexicon_min": min(logs),
        "lexicon_mean": fmean(logs),
        "rare_share": fmean(n < RARE_COUNT for n in counts),
    }


def foreign_share(source: str, output: str, lexicon: Lexicon | None) -> float | None:
    """The share of the output's words that are source words left in English (see above)."""
    out = words_of(output)
    if lexicon is None or not out:
        return None
    src = set(words_of(source)) - set(names_of(source))
    return fmean(w in src and lexicon.counts.get(w, 0) < FOREIGN_COUNT for w in out)


def english_share(source: str, output: str, lexicon: Lexicon | None) -> float | None:
    """The share of the output's words left in English (see above); None without a word list."""
    out = words_of(output)
    if lexicon is None or not isinstance(lexicon.dictionary, Dictionary) or not out:
        return None
    return len(english_left(source, output, lexicon.dictionary)) / len(out)


def word_scores(score: OutputScore | None) -> dict[str, float | None]:
    """`word_min_logprob` and `output_pieces` from the forced pass's pieces grouped in words."""
    if score is None or not score.output_words:
        return {"word_min_logprob": None, "output_pieces": None}
    logprob: dict[int, float] = {}
    pieces: Counter[int] = Counter()
    for w, lp in zip(score.output_words, score.token_logprobs, strict=False):
        if w >= 0:
            logprob[w] = logprob.get(w, 0.0) + lp
            pieces[w] += 1
    if not pieces:
        return {"word_min_logprob": None, "output_pieces": None}
    return {"word_min_logprob": min(logprob.values()), "output_pieces": fmean(pieces.values())}


def repeated_words(source: str, output: str) -> int:
    """Occurrences of content words beyond their first in `output`, less the source's own."""

    def extra(ws: Sequence[str]) -> int:
        counts = Counter(w for w in ws if len(w) >= CONTENT_LETTERS)
        return sum(n - 1 for n in counts.values())

    return max(0, extra(words_of(output)) - extra(words_of(source)))


def names_lost(source: str, output: str) -> list[str]:
    """The source's names (`fitsub.quality.flags.names_of`) no output word starts like."""
    out = words_of(output)
    lost = []
    for name in names_of(source):
        stem = name[:NAME_STEM]
        if not any(w.startswith(stem) for w in out):
            lost.append(name)
    return lost


def asks(text: str) -> bool:
    """Whether `text` holds a question mark (either form)."""
    return "?" in text or "¿" in text or "\uff1f" in text


def mismatch_signals(
    source: str, output: str, tgt_lang: str | None = None
) -> dict[str, float | None]:
    """`names_lost`, `numbers_lost`, `question_lost` and their sum `mismatch`."""
    names = float(len(names_lost(source, output)))
    lost, added = number_changes(source, output, "en" if tgt_lang else None, tgt_lang)
    nums = float(len(lost) + len(added))
    question = 1.0 if asks(source) != asks(output) else 0.0
    return {
        "names_lost": names,
        "numbers_lost": nums,
        "question_lost": question,
        "mismatch": names + nums + question,
    }


def target_signals(
    source: str,
    output: str,
    score: OutputScore | None = None,
    lexicon: Lexicon | None = None,
    tgt_lang: str | None = None,
) -> dict[str, float | None]:
    """Every signal of `TARGET_SIGNALS` for one output."""
    if not words_of(output):
        empty: dict[str, float | None] = dict.fromkeys(TARGET_SIGNALS)
        return {**empty, **mismatch_signals(source, output, tgt_lang)}
    return {
        **lexicon_signals(source, output, lexicon),
        "foreign_share": foreign_share(source, output, lexicon),
        "english_share": english_share(source, output, lexicon),
        **word_scores(score),
        "repeated": float(repeated_words(source, output)),
        **mismatch_signals(source, output, tgt_lang),
    }
