"""`fitsub.hf.constraints.BudgetProcessor` on a hand-made vocabulary and hand-made scores.

The vocabulary (SentencePiece style): 0 `</s>`, 1 `<pad>` (decoder start), 2 `▁le`,
3 `▁barche`, 4 `ban`, 5 `che`, 6 `▁ba`, 7 `>>ita<<`, 8 `,`, 9 `▁molto`.
"""

from __future__ import annotations

import torch

from fitsub.hf.constraints import LANG_TOKEN, BudgetProcessor, PieceTable

PIECES = ["</s>", "<pad>", "▁le", "▁barche", "ban", "che", "▁ba", ">>ita<<", ",", "▁molto"]
EOS, PAD, LE, BARCHE, BAN, CHE, BA, ITA, COMMA, MOLTO = range(10)
NEG = float("-inf")


def table(prefixes: bool = False) -> PieceTable:
    special = torch.tensor([i in (EOS, PAD, ITA) for i in range(10)])
    chars = torch.tensor(
        [0 if special[i] else len(p.replace("▁", " ")) for i, p in enumerate(PIECES)]
    )
    lead = torch.tensor([int(p.startswith("▁")) for p in PIECES])
    cont = torch.tensor([not special[i] and p[0].isalnum() for i, p in enumerate(PIECES)])
    pre = None
    if prefixes:  # "▁ba" is a proper prefix of "▁barche"; pad with PAD (never generated)
        pre = torch.full((10, 1), PAD, dtype=torch.long)
        pre[BARCHE, 0] = BA
    return PieceTable(
        chars=chars, lead=lead, special=special, cont=cont, eos_id=EOS, prefixes=pre, prefix_pad=PAD
    )


def scores(best: int, rows: int = 1) -> torch.Tensor:
    """Log-probabilities with `best` on top and every other token possible."""
    s = torch.full((rows, 10), -5.0)
    s[:, best] = -0.1
    return s


def test_table_counts_the_way_fitsub_units_do() -> None:
    t = table()
    assert t.length([LE, BA]) == 5  # "le ba": the first piece's space is not counted
    assert t.length([ITA, LE, BARCHE]) == 9  # "le barche": language tokens add nothing
    assert t.length([LE, BARCHE], no_space=True) == 8
    assert LANG_TOKEN.match(">>ita<<") and LANG_TOKEN.match("__it__")
    assert LANG_TOKEN.match("ita_Latn") and LANG_TOKEN.match("it_IT") and LANG_TOKEN.match("<2it>")
    assert not LANG_TOKEN.match("▁barche")


def test_over_budget_continuation_kills_the_hypothesis() -> None:
    """ "le ba" + best "che" over a budget of 5: the word would be cut ("le ban"): killed."""
    proc = BudgetProcessor(table(), [5], num_beams=2)
    ids = torch.tensor([[PAD, LE, BA], [PAD, LE, BA]])
    s = torch.cat([scores(CHE), scores(MOLTO)])
    out = proc(ids, s.clone())
    assert bool(torch.isinf(out[0]).all())  # row 0: killed, not even EOS
    # row 1's best next token starts a new word: only masked, EOS stays open, the row lives
    assert out[1, EOS] == s[1, EOS] and out[1, MOLTO] == NEG and out[1, CHE] == NEG


def test_over_budget_word_start_only_masks_it() -> None:
    """Best token `▁barche` does not fit: the word is not cut, so EOS and `▁ba` stay open."""
    proc = BudgetProcessor(table(), [5])
    s = scores(BARCHE)
    out = proc(torch.tensor([[PAD, LE]]), s.clone())
    assert out[0, BARCHE] == NEG and out[0, MOLTO] == NEG  # "le barche" 9, "le molto" 8 > 5
    assert out[0, EOS] == s[0, EOS] and out[0, BA] == s[0, BA]  # "le ba" = 5 fits
    assert out[0, BAN] == NEG  # a fragment far less likely than the best piece: never


def test_fitting_continuation_is_left_alone() -> None:
    proc = BudgetProcessor(table(), [9])
    s = scores(CHE)
    out = proc(torch.tensor([[PAD, LE, BA]]), s.clone())
    assert out[0, CHE] == s[0, CHE]
    assert out[0, EOS] == NEG  # the word "barche" is unfinished: it may not end here


def test_first_piece_space_is_free_and_specials_are_never_generated() -> None:
    proc = BudgetProcessor(table(), [6])
    s = scores(BARCHE)
    out = proc(torch.tensor([[PAD]]), s.clone())
    assert out[0, BARCHE] == s[0, BARCHE]  # "barche" = 6 characters: fits
    assert out[0, PAD] == NEG and out[0, ITA] == NEG
    assert out[0, EOS] == s[0, EOS]


def test_forced_language_step_is_left_to_generate() -> None:
    proc = BudgetProcessor(table(), [1], prefix_len=2)
    s = scores(ITA)
    assert torch.equal(proc(torch.tensor([[PAD]]), s.clone()), s)
    # after the language token the rule does not apply (last token is special) and the
    # first word's space is free: every word is over 1, masked; "," (1) and EOS stay open
    out = proc(torch.tensor([[PAD, ITA]]), scores(BAN))
    open_ids = [i for i in range(10) if out[0, i] > NEG]
    assert open_ids == [EOS, COMMA]


def test_per_segment_budgets_and_lower_bound() -> None:
    """Two segments x two beams: budgets 5 and 20, lower bound 8 on the second."""
    proc = BudgetProcessor(table(), [5, 20], [None, 8], num_beams=2)
    ids = torch.tensor([[PAD, LE]] * 4)
    s = scores(BARCHE, rows=4)
    out = proc(ids, s.clone())
    assert bool((out[:2, BARCHE] == NEG).all()) and bool((out[2:, BARCHE] > NEG).all())
    assert bool((out[:2, EOS] > NEG).all())  # segment 0 has no lower bound
    assert bool((out[2:, EOS] == NEG).all())  # segment 1: "le" = 2 < 8, may not end
    last = BudgetProcessor(table(), [5, 20], [None, 8], num_beams=2, max_len=3)
    assert bool((last(ids, s.clone())[2:, EOS] > NEG).all())  # forced end: may end


def test_no_space_rows_count_without_spaces() -> None:
    proc = BudgetProcessor(table(), [7, 7], no_space=[True, False])
    ids = torch.tensor([[PAD, LE], [PAD, LE]])
    out = proc(ids, scores(EOS, rows=2))
    assert out[0, MOLTO] > NEG  # "le" + "molto" = 7 letters
    assert out[1, MOLTO] == NEG  # "le molto" = 8 characters


def test_greedy_killed_row_may_only_end_and_stays_dead() -> None:
    proc = BudgetProcessor(table(), [5, 50], num_beams=1)
    ids = torch.tensor([[PAD, LE, BA], [PAD, LE, BA]])
    out = proc(ids, scores(CHE, rows=2))
    assert out[0, EOS] == 0.0 and bool(torch.isinf(out[0, 1:]).all())
    assert out[1, CHE] > NEG
    assert proc.dead.tolist() == [True, False]


def test_inside_an_unfinished_word_only_continuations_follow() -> None:
    """Best "che" after "le ba" (fits a budget of 9): no EOS, no new word, no punctuation."""
    proc = BudgetProcessor(table(), [20])
    s = scores(CHE)
    s[0, BAN] = -0.5  # a continuation nearly as likely as the best one
    out = proc(torch.tensor([[PAD, LE, BA]]), s.clone())
    assert [i for i in range(10) if out[0, i] > NEG] == [BAN, CHE]


def test_pieces_that_would_start_a_word_that_cannot_fit_are_forbidden() -> None:
    """Best "▁barche" (9 with "le") is over a budget of 6: "▁ba" would start it; forbidden."""
    s = scores(BARCHE)
    plain = BudgetProcessor(table(prefixes=False), [6])(torch.tensor([[PAD, LE]]), s.clone())
    assert plain[0, BA] > NEG  # "le ba" = 5 fits the budget
    out = BudgetProcessor(table(prefixes=True), [6])(torch.tensor([[PAD, LE]]), s.clone())
    assert out[0, BA] == NEG and out[0, EOS] > NEG and out[0, COMMA] > NEG
