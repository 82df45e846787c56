"""Each metric against hand-computed values on tiny inline fixtures."""

from __future__ import annotations

import math

import pytest
import sacrebleu

from fitsub import metrics as m


def words(n: int, word: str = "w") -> str:
    """A sentence of n distinct-looking tokens."""
    return " ".join(f"{word}{i}" for i in range(n))


# --- BLEU, BLEU*, chrF -----------------------------------------------------------------------


def test_bleu_equals_sacrebleu_corpus_bleu() -> None:
    hyps = ["the cat sat on the mat", "a dog barks loudly today", "hello there , friend"]
    refs = ["the cat is on the mat", "a dog barks loudly", "hello , my friend"]
    res = m.bleu(hyps, refs)
    expected = sacrebleu.corpus_bleu(hyps, [refs])
    assert res.score == pytest.approx(expected.score)
    assert res.bp == pytest.approx(expected.bp)
    assert res.signature.startswith("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:")


def test_bleu_star_divides_by_brevity_penalty() -> None:
    # 6 output tokens, all n-grams correct, against a 7-token reference:
    # precisions 100, BP = exp(1 - 7/6), BLEU = 100 * BP, BLEU* = 100.
    res = m.bleu(["the cat sat on the mat"], ["the cat sat on the mat today"])
    bp = math.exp(1 - 7 / 6)
    assert res.bp == pytest.approx(bp)
    assert res.bp < 1
    assert res.score == pytest.approx(100 * bp)
    assert res.bleu_star == pytest.approx(100.0)
    assert (res.sys_len, res.ref_len) == (6, 7)


def test_bleu_star_equals_bleu_when_output_is_long_enough() -> None:
    res = m.bleu(["a b c d e f g"], ["a b c d x f"])
    assert res.bp == 1.0
    assert res.bleu_star == pytest.approx(res.score)


def test_bleu_star_of_empty_output_is_zero() -> None:
    res = m.bleu([""], ["some words here"])
    assert res.bp == 0.0
    assert res.bleu_star == 0.0


def test_chrf_matches_sacrebleu_and_carries_signature() -> None:
    hyps, refs = ["il gatto nero"], ["il gatto è nero"]
    res = m.chrf(hyps, refs)
    assert res.score == pytest.approx(sacrebleu.corpus_chrf(hyps, [refs]).score)
    assert m.chrf(refs, refs).score == pytest.approx(100.0)
    assert "nc:6" in res.signature


def test_misaligned_inputs_are_an_error() -> None:
    with pytest.raises(ValueError, match="hyps has 2 segments but refs has 1"):
        m.bleu(["a", "b"], ["a"])


# --- LR and VAR ------------------------------------------------------------------------------


def test_length_ratio_mean_and_std_in_chars() -> None:
    # out/src ratios 4/2 = 2.0 and 2/4 = 0.5: mean 1.25, population std 0.75.
    res = m.length_ratio_stats(["abcd", "ab"], ["ab", "abcd"])
    assert res.mean == pytest.approx(1.25)
    assert res.std == pytest.approx(0.75)
    assert (res.n, res.skipped, res.unit) == (2, 0, "char")


def test_length_ratio_counts_spaces_and_skips_empty_denominators() -> None:
    # "a b" is 3 chars; the empty source is left out rather than dividing by zero.
    res = m.length_ratio_stats(["a b", "xyz"], ["abcdef", ""])
    assert res.mean == pytest.approx(0.5)
    assert (res.n, res.skipped) == (1, 1)


def test_length_ratio_in_subwords_uses_the_given_counter() -> None:
    res = m.length_ratio_stats(["a b c", "a"], ["a b", "a b"], count=lambda s: len(s.split()))
    assert res.mean == pytest.approx((1.5 + 0.5) / 2)
    assert res.unit == "subword"


def test_variance_is_mean_squared_difference() -> None:
    # (4-2)^2 + (2-4)^2 + (5-5)^2 = 8, over 3 sentences.
    res = m.variance([4, 2, 5], [2, 4, 5], "char")
    assert res.value == pytest.approx(8 / 3)
    assert res.n == 3


def test_requested_chars_floors_the_decimal_ratio() -> None:
    assert m.requested_chars("a" * 100, 0.29) == 29  # not 28 from 0.29 * 100 = 28.999...
    assert m.requested_chars("a" * 10, 0.9) == 9
    assert m.requested_chars("a" * 11, 0.9) == 9  # floor(9.9)
    assert m.requested_chars("ab cd", 1.0) == 5  # spaces count


# --- LC (IWSLT 2022) -------------------------------------------------------------------------


def test_lc_source_of_ten_chars_is_always_compliant() -> None:
    src = "abcde fghij"  # 10 chars without spaces
    assert m.is_length_compliant(src, "x" * 50)
    assert m.is_length_compliant(src, "")


def test_lc_eleven_char_source_boundaries() -> None:
    src = "a" * 11  # 10 % of 11 is 1.1: outputs of 10..12 chars comply
    assert m.is_length_compliant(src, "b" * 12)
    assert m.is_length_compliant(src, "b" * 10)
    assert not m.is_length_compliant(src, "b" * 13)
    assert not m.is_length_compliant(src, "b" * 9)


def test_lc_difference_of_exactly_ten_percent_is_compliant() -> None:
    src = "abcde abcde abcde abcde"  # 20 chars without spaces
    assert m.is_length_compliant(src, "x" * 22)
    assert m.is_length_compliant(src, "x" * 18)
    assert not m.is_length_compliant(src, "x" * 23)
    assert not m.is_length_compliant(src, "x" * 17)
    # 110 -> 121 and 99: exactly 10 % either way, no floating-point surprise.
    assert m.is_length_compliant("a" * 110, "b" * 121)
    assert m.is_length_compliant("a" * 110, "b" * 99)
    assert not m.is_length_compliant("a" * 110, "b" * 122)


def test_lc_ignores_spaces() -> None:
    # 22 chars without spaces against a 20-char source: compliant although 30 with spaces.
    assert m.is_length_compliant("a" * 20, "xx " * 8 + "xxxxxx")


def test_length_compliance_rate() -> None:
    srcs = ["a" * 20, "a" * 20, "a" * 20, "short"]
    outs = ["b" * 20, "b" * 30, "b" * 21, "a much longer output"]
    res = m.length_compliance(srcs, outs)
    assert (res.passed, res.n) == (3, 4)
    assert res.rate == pytest.approx(0.75)


# --- fit -------------------------------------------------------------------------------------


def test_fit_rate_uses_floor_of_ratio_times_source_chars() -> None:
    srcs = ["a" * 10, "a" * 10, "abcd efghi"]  # 10, 10 and 10 chars (space counted)
    outs = ["b" * 9, "b" * 10, "b b b b b"]  # 9 fits 9; 10 does not; 9 with spaces fits
    res = m.fit_rate(srcs, outs, 0.9)
    assert (res.passed, res.n) == (2, 3)
    assert res.rate == pytest.approx(2 / 3)
    assert m.fit_rate(srcs, outs, 1.0).passed == 3


# --- buckets ---------------------------------------------------------------------------------


def test_buckets_by_reference_tokens() -> None:
    refs = [words(5), "Hello, world.", words(15), words(25), words(50), words(100)]
    hyps = [words(5), "Hello, world.", words(12), words(25), words(40), words(100)]
    table = m.bucket_table(hyps, refs)
    assert [b.label for b in table] == ["1-10", "11-20", "21-40", "41-80"]
    # "Hello, world." is 4 tokens in 13a; the 100-token reference is left out.
    assert [b.n for b in table] == [2, 1, 1, 1]
    assert table[0].bleu == pytest.approx(100.0)
    assert table[0].lr == pytest.approx(1.0)
    assert table[1].lr == pytest.approx(12 / 15)
    assert table[3].lr == pytest.approx(40 / 50)
    assert table[1].bleu == pytest.approx(sacrebleu.corpus_bleu([words(12)], [[words(15)]]).score)


def test_empty_bucket_has_no_scores() -> None:
    table = m.bucket_table(["a b"], ["a b"])
    assert table[0].n == 1
    assert (table[2].n, table[2].bleu, table[2].lr) == (0, None, None)


# --- subtitle compliance ---------------------------------------------------------------------


def test_subtitle_compliance_counts_cpl_lines_and_cps() -> None:
    texts = ["short\nline", "x" * 43, "a\nb\nc", "y" * 20]
    durations = [1000, 5000, 1000, 1000]
    res = m.subtitle_compliance(texts, durations, max_cpl=42, max_lines=2, max_cps=17)
    assert res.cpl.passed == 3  # 43 chars on one line breaks CPL
    assert res.lines.passed == 3  # three lines
    assert res.cps.passed == 3  # 20 chars in 1 s is over 17 cps
    assert res.cps.rate == pytest.approx(0.75)


# --- everything at once ----------------------------------------------------------------------


def test_score_combines_metrics_and_reports_missing_subwords() -> None:
    srcs = ["a" * 20, "abcdefghij"]
    hyps = ["b" * 18, "b" * 12]
    refs = ["b" * 20, "b" * 10]
    res = m.score(hyps, refs, srcs, ratio=0.9)
    assert res.lc is not None and res.lc.passed == 2
    assert res.fit is not None and res.fit.passed == 1  # 18 <= 18; 12 > 9
    assert res.var_requested is not None
    assert res.var_requested.value == pytest.approx((0 + 9) / 2)
    assert res.var_ref is not None and res.var_ref.value == pytest.approx((4 + 4) / 2)
    assert res.lr_src_subwords is None
    assert any("subword" in note for note in res.notes)
    d = res.to_dict()
    assert d["bleu"]["signature"].startswith("nrefs:1")
    assert d["lr_src_subwords"] is None


def test_score_without_source_leaves_source_metrics_out() -> None:
    res = m.score(["a b"], ["a b c"], None, count_subwords=lambda s: len(s.split()))
    assert res.lc is None and res.fit is None and res.lr_src_chars is None
    assert res.lr_ref_subwords is not None
    assert res.lr_ref_subwords.mean == pytest.approx(2 / 3)


def test_isometric_bounds_are_exactly_the_lc_window() -> None:
    from fitsub.metrics import is_length_compliant, isometric_bounds

    for s in range(11, 80):
        src = "ab " * (s // 2) + "c" * (s % 2)  # s characters without spaces
        low, high = isometric_bounds(src)
        for o in range(0, 2 * s):
            assert (low <= o <= high) == is_length_compliant(src, "x" * o), (s, o)
