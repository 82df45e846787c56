"""How a run ends on time: the deadline learning-rate schedule, the stop rule (deadline, tail,
signals) and the FLOPs count behind MFU."""

from __future__ import annotations

import math
import os
import signal
from pathlib import Path

import pytest
from factories import tiny_config, word_tokenizer
from torch import nn

from fitsub.nmt.checkpoint import build_model
from fitsub.train.finish import StopRule, averaged_steps
from fitsub.train.flops import train_flops_per_target_token
from fitsub.train.optim import deadline_lr, inverse_sqrt_lr, scheduled_lr


def test_the_deadline_schedule_warms_up_then_decays_to_a_tenth_at_the_deadline() -> None:
    assert deadline_lr(50, 1e-3, 100, 0.0) == pytest.approx(5e-4)  # warm-up: linear
    assert deadline_lr(200, 1e-3, 100, 0.0) == pytest.approx(1e-3)
    assert deadline_lr(200, 1e-3, 100, 0.5) == pytest.approx(0.55e-3)  # cosine midpoint
    assert deadline_lr(200, 1e-3, 100, 1.0) == pytest.approx(1e-4)
    assert deadline_lr(200, 1e-3, 100, 7.0) == pytest.approx(1e-4)  # past it: the floor
    assert scheduled_lr("inverse-sqrt", 400, 1e-3, 100, 0.9) == inverse_sqrt_lr(400, 1e-3, 100)
    assert scheduled_lr("inverse-sqrt", 400, 1e-3, 100, 0.9) == pytest.approx(5e-4)


def test_the_stop_rule_keeps_the_tail_and_a_update_for_the_end() -> None:
    t0 = 1000.0
    rule = StopRule(60.0, started=t0)
    assert rule.tail == pytest.approx(6.0)  # 10 % of --max-time before anything was timed
    rule.record_tail(2.0)  # one evaluation + saves took 2 s: twice that, a second, the exit
    assert rule.tail == pytest.approx(6.0)
    rule.record_tail(0.5)  # one quicker one does not shrink it
    assert rule.tail == pytest.approx(6.0)
    rule.record_tail(0.5)  # two do: the slow early evaluation has aged out
    assert rule.tail == pytest.approx(3.0)
    assert StopRule(None, started=t0).reason(1.0) == "" and math.isinf(StopRule(None, 0).left())


def test_the_stop_rule_stops_when_the_time_left_is_the_tail_and_one_update() -> None:
    import time

    rule = StopRule(100.0, started=time.monotonic())
    rule.record_tail(1.0)  # tail: 2 * 1 + 1 + 1 = 4 s
    assert rule.tail == pytest.approx(4.0)
    assert rule.reason(update_seconds=90.0) == ""  # 100 s left > 4 + 90
    assert rule.reason(update_seconds=97.0) == "max_time"  # 100 s left <= 4 + 97
    with pytest.raises(Exception, match="leaves no time to train"):
        StopRule(3.0, started=time.monotonic() - 2.0).check_can_train(2.0)


def test_sigterm_becomes_a_stop_reason_and_the_old_handler_comes_back() -> None:
    before = signal.getsignal(signal.SIGTERM)
    rule = StopRule(None, started=0.0)
    rule.install()
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        assert rule.reason(0.0) == "signal SIGTERM"
    finally:
        rule.restore()
    assert signal.getsignal(signal.SIGTERM) == before


def test_the_flops_count_is_six_per_weight_per_token_of_the_real_model() -> None:
    tok = word_tokenizer()
    cfg = tiny_config(tok)
    model = build_model(cfg, tok)

    def linear_weights(layers: nn.Module) -> int:
        return sum(m.weight.numel() for m in layers.modules() if isinstance(m, nn.Linear))

    weights = linear_weights(model.enc_layers) + linear_weights(model.dec_layers)
    weights += cfg.vocab_size * cfg.d_model  # the (tied) output projection
    # one source token per target token, no attention-score terms (lengths 0)
    assert train_flops_per_target_token(cfg, 1.0, 0.0, 0.0) == pytest.approx(6 * weights)
    # attention scores grow with the lengths: 6 × (r L_e 2 S d + L_d (T d + 2 S d))
    extra = train_flops_per_target_token(cfg, 1.0, 10.0, 10.0) - 6 * weights
    d, le, ld = cfg.d_model, cfg.enc_layers, cfg.dec_layers
    assert extra == pytest.approx(6 * (le * 2 * 10 * d + ld * (10 * d + 2 * 10 * d)))


def test_eval_due_counts_from_the_last_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    import fitsub.train.finish as F

    now = [100.0]
    monkeypatch.setattr(F.time, "monotonic", lambda: now[0])
    rule = StopRule(None, started=100.0)
    rule.begin()
    assert not rule.eval_due(None) and not rule.eval_due(5.0)
    now[0] = 105.0
    assert rule.eval_due(5.0) and not rule.eval_due(None)
    rule.record_tail(1.0)  # an evaluation just ended: the clock restarts
    assert not rule.eval_due(5.0)
    now[0] = 110.5
    assert rule.eval_due(5.0)


def test_the_export_averages_only_the_last_quarter_of_updates() -> None:
    # the multilingual GPU run's kept checkpoints: evaluated by the clock, the first far weaker
    kept = [Path(f"steps/step-{n:06d}") for n in (2330, 3574, 4814, 6000, 6932)]
    assert [p.name for p in averaged_steps(kept)] == ["step-006000", "step-006932"]
    # checkpoints of the last quarter are all kept (the en-it GPU run: 4,800 … 6,061)
    evenly = [Path(f"steps/step-{n:06d}") for n in (4800, 5200, 5600, 6000, 6061)]
    assert averaged_steps(evenly) == evenly
    assert averaged_steps([]) == []
