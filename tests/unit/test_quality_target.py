"""The target-side quality signals (`fitsub.quality.target`): how common the output's words are
in the model's lexicon, its least likely word, and names, numbers or a question lost."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

import pytest
import torch
from doubles import ToyBackend
from factories import tiny_checkpoint, word_texts

from fitsub.backend import OutputScore, Request
from fitsub.nmt.attention import output_word_index
from fitsub.nmt.backend import NMTBackend
from fitsub.nmt.tokenizer import Tokenizer
from fitsub.quality.dictionary import Dictionary
from fitsub.quality.lexicon import Lexicon
from fitsub.quality.score import QualityModel, estimate, load_model, segment_signals
from fitsub.quality.target import (
    RARE_COUNT,
    TARGET_SIGNALS,
    english_share,
    foreign_share,
    lexicon_signals,
    mismatch_signals,
    names_lost,
    repeated_words,
    target_signals,
    word_scores,
)

# word lists (zipf frequencies, `fitsub.quality.dictionary`) of Italian and of English
WORDS = Dictionary(
    language="it",
    target={"il": 7.0, "gatto": 4.5, "è": 7.0, "dov": 3.0, "tumore": 4.0, "ape": 4.0},
    english={"the": 7.5, "luckily": 4.5, "tumour": 4.0, "cat": 5.0, "bee": 4.5, "il": 2.0},
)
ITALIAN = Lexicon(
    {
        "il": 90000,
        "gatto": 4000,
        "è": 80000,
        "sul": 20000,
        "tavolo": 3000,
        "la": 95000,
        "casa": 9000,
        "rossa": 1500,
        "terrestri": 12,
        "blorfo": 2,
    },
    language="it",
)


def test_a_made_up_rare_word_scores_a_lower_lexicon_frequency_than_a_common_sentence() -> None:
    common = lexicon_signals("The cat is on the table.", "Il gatto è sul tavolo.", ITALIAN)
    rare = lexicon_signals("The cat is on the table.", "Il blorfo è sul tavolo.", ITALIAN)
    assert common["lexicon_min"] == pytest.approx(math.log1p(3000))
    assert rare["lexicon_min"] == pytest.approx(math.log1p(2))
    assert rare["lexicon_mean"] is not None and common["lexicon_mean"] is not None
    assert rare["lexicon_mean"] < common["lexicon_mean"]
    assert common["rare_share"] == 0.0 and rare["rare_share"] == pytest.approx(1 / 5)
    # a word the lexicon lacks counts as never seen
    unknown = lexicon_signals("The house.", "La cosquà.", ITALIAN)
    assert unknown["lexicon_min"] == 0.0 and unknown["rare_share"] == pytest.approx(1 / 2)
    assert 12 < RARE_COUNT  # "terrestri" is rare
    assert lexicon_signals("Dragon lands.", "Terrestri.", ITALIAN)["rare_share"] == 1.0


def test_words_copied_from_the_source_do_not_count_and_no_lexicon_gives_none() -> None:
    # "Sintel" is not Italian, but copied from the source: a name kept, not a rare word
    sig = lexicon_signals("The house, Sintel.", "La casa, Sintel.", ITALIAN)
    assert sig["lexicon_min"] == pytest.approx(math.log1p(9000))
    assert lexicon_signals("Sintel.", "Sintel.", ITALIAN)["lexicon_min"] is None
    assert lexicon_signals("The house.", "La casa.", None) == dict.fromkeys(
        ("lexicon_min", "lexicon_mean", "rare_share")
    )


def test_a_name_dropped_from_the_output_is_counted() -> None:
    assert names_lost("I met John in Paris.", "Ho incontrato John a Parigi.") == []
    assert names_lost("I met John in Paris.", "Ho incontrato qualcuno a casa.") == ["john", "paris"]
    # a capital opening the sentence is no name
    assert names_lost("Where is the house?", "Dov'è la casa?") == []
    sig = mismatch_signals("I met John in Paris.", "Ho incontrato John.", "it")
    assert sig["names_lost"] == 1.0 and sig["mismatch"] == 1.0


def test_a_number_lost_or_changed_is_counted_written_as_words_too() -> None:
    kept = mismatch_signals(
        "It can hold fifty thousand workers.", "Può ospitare 50.000 operai.", "it"
    )
    assert kept["numbers_lost"] == 0.0
    words = mismatch_signals("It can hold fifty thousand workers.", "Cinquantamila operai.", "it")
    assert words["numbers_lost"] == 0.0
    lost = mismatch_signals("It can hold fifty thousand workers.", "Può tenermi.", "it")
    assert lost["numbers_lost"] == 1.0
    changed = mismatch_signals("Born in 1984.", "Nato nel 1948.", "it")
    assert changed["numbers_lost"] == 2.0  # 1984 missing, 1948 added


def test_a_question_lost_is_counted() -> None:
    assert mismatch_signals("Where is the house?", "Dov'è la casa?", "it")["question_lost"] == 0.0
    assert mismatch_signals("Where is the house?", "La casa.", "it")["question_lost"] == 1.0
    assert mismatch_signals("The house.", "¿La casa?", "es")["question_lost"] == 1.0
    assert mismatch_signals("Where is it?", "¿Dónde está?", "es")["question_lost"] == 0.0


def test_repeated_content_words_beyond_the_source_are_counted() -> None:
    assert repeated_words("A dangerous quest.", "Un americano per un americano.") == 1
    # short function words and the source's own repetitions do not count
    assert repeated_words("It is what it is.", "È quel che è.") == 0
    assert repeated_words("Never, never again.", "Mai, mai più.") == 0
    assert repeated_words("Happy days, happy days.", "Giorni felici, giorni felici.") == 0


def test_word_scores_sum_each_words_pieces() -> None:
    # "▁gat" "to" "▁blo" "r" "fo" "." </s>: two words, the second three unlikely pieces
    score = OutputScore(
        token_logprobs=(-0.5, -0.5, -2.0, -3.0, -1.0, -0.1, -0.2),
        entropies=(1.0,) * 7,
        output_words=(0, 0, 1, 1, 1, -1, -1),
    )
    sig = word_scores(score)
    assert sig["word_min_logprob"] == pytest.approx(-6.0)
    assert sig["output_pieces"] == pytest.approx(2.5)
    assert word_scores(OutputScore((-1.0,), (1.0,))) == {
        "word_min_logprob": None,
        "output_pieces": None,
    }


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    common = ["the house is red.", "the cat is on the table!", "where is the house, (red)?"]
    return Tokenizer.train([*common * 100, *word_texts()], vocab_size=300, langs=("en", "it"))


def test_output_pieces_are_grouped_into_the_words_of_the_text(tok: Tokenizer) -> None:
    text = "the xqzvwyj house, (red)!"
    ids = [*tok.encode(text), tok.eos_id]
    index = output_word_index(tok, ids)
    assert len(index) == len(ids)
    assert index[-1] == -1  # the end of sentence
    assert max(index) == 3  # four words: the, xqzvwyj, house, red
    pieces = [tok.sp.id_to_piece(i) for i in ids[:-1]]
    assert all(
        (w == -1) == (not any(c.isalpha() for c in p))
        for w, p in zip(index[:-1], pieces, strict=True)
    )
    made_up = [k for k, w in enumerate(index) if w == 1]
    assert len(made_up) > 2  # the made-up word is split into many pieces
    assert [w for w in index if w >= 0] == sorted(w for w in index if w >= 0)


def test_the_forced_pass_groups_the_output_in_words(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    nmt = NMTBackend(tiny_checkpoint(tmp_path), device="cpu", threads=1)
    (score,) = nmt.score_outputs([Request("ka to ri")], ["kato rimè so"])
    assert len(score.output_words) == len(score.token_logprobs)
    assert score.output_words[-1] == -1 and max(score.output_words) == 2
    sig = segment_signals("ka to ri", "kato rimè so", None, score)
    assert sig["output_pieces"] is not None and sig["output_pieces"] >= 1.0
    assert sig["word_min_logprob"] is not None and sig["word_min_logprob"] <= max(
        score.token_logprobs
    )


class LexiconToy(ToyBackend):
    """A backend that scores every token -1 and carries a target lexicon."""

    def __init__(self, lexicon: Lexicon | None) -> None:
        super().__init__()
        self.lexicon = lexicon

    def score_outputs(
        self, requests: Sequence[Request], outputs: Sequence[str], dropout_passes: int = 0
    ) -> list[OutputScore]:
        return [OutputScore((-1.0,) * 3, (1.0,) * 3) for _ in outputs]


def test_the_score_reads_the_backends_lexicon_and_the_target_language() -> None:
    # P(wrong) falls with the rarest output word's log-count, rises with what was lost
    model = QualityModel(("lexicon_min", "mismatch"), (5.0, 0.5), (2.0, 0.5), (-1.5, 1.0), 0.0, 0.5)
    sents = [
        ("The cat is on the table.", "Il gatto è sul tavolo.", None),
        ("The cat is on the table.", "Il blorfo è sul tavolo.", None),
        ("Fifty cats are on the table?", "Il gatto è sul tavolo.", None),
    ]
    common, rare, lost = estimate(LexiconToy(ITALIAN), sents, model, "it") or []
    assert rare < common and lost < common
    # without a lexicon the lexicon signal takes its mean: both lines score alike
    plain = estimate(LexiconToy(None), sents[:2], model, "it") or []
    assert plain[0] == pytest.approx(plain[1])


def test_every_target_signal_is_computed_for_a_line_with_words() -> None:
    sig = target_signals(
        "Where is Sintel?",
        "Dov'è Sintel?",
        OutputScore((-1.0, -2.0, -0.5), (1.0,) * 3, output_words=(0, 1, -1)),
        dataclasses.replace(ITALIAN, dictionary=WORDS),
        "it",
    )
    assert set(sig) == set(TARGET_SIGNALS)
    assert all(sig[k] is not None for k in TARGET_SIGNALS)
    assert sig["lexicon_min"] == 0.0  # "dov" is no word of the lexicon
    assert sig["mismatch"] == 0.0 and sig["word_min_logprob"] == -2.0


def test_the_shipped_model_counts_many_pieces_a_word_and_a_lost_name_against_a_line() -> None:
    model = load_model()
    assert {"output_pieces", "mismatch"} <= set(model.features)
    assert model.score({"mismatch": 2.0}) < model.score({"mismatch": 0.0})
    assert model.score({"output_pieces": 3.0}) < model.score({"output_pieces": 1.2})
    # the same length and confidence: the line that lost both names scores lower
    src = "I saw John in Paris yesterday."
    kept = segment_signals(src, "Ho visto John a Parigi ieri.", None, None, tgt_lang="it")
    lost = segment_signals(src, "Ho visto Gianni a Roma ieri.", None, None, tgt_lang="it")
    assert kept["mismatch"] == 0.0 and lost["mismatch"] == 2.0
    assert model.score(lost) < model.score(kept)


def test_english_left_in_the_line_is_counted_but_not_names() -> None:
    src = "Luckily, someone at Sony noticed the tumour."
    assert foreign_share(src, "Per fortuna, qualcuno alla Sony ha notato il tumore.", ITALIAN) == 0
    left = foreign_share(src, "Luckily, qualcuno alla Sony ha notato il tumour.", ITALIAN)
    assert left == pytest.approx(2 / 8)  # "luckily" and "tumour"; "Sony" is a name
    # a copied word common in the target language is not English left
    common = Lexicon({**ITALIAN.counts, "tumour": 500})
    assert foreign_share(src, "Qualcuno alla Sony ha notato il tumour.", common) == 0
    assert foreign_share(src, "Il tumour.", None) is None


def test_english_share_counts_the_english_words_the_word_lists_find() -> None:
    listed = dataclasses.replace(ITALIAN, dictionary=WORDS)
    src = "Luckily, someone at Sony noticed the tumour."
    assert english_share(src, "Per fortuna qualcuno alla Sony ha visto il tumore.", listed) == 0
    left = english_share(src, "Luckily qualcuno alla Sony ha visto il tumour.", listed)
    assert left == 2 / 8  # "luckily", "tumour"; the name "Sony" is exempt
    assert english_share(src, "Luckily il tumour.", ITALIAN) is None  # no word list
    assert english_share(src, "", listed) is None
