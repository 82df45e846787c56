"""`fitsub train`'s shape options: the presets, --d-model and --layers N / ENC+DEC."""

from __future__ import annotations

import pytest

from fitsub.cli.train_config import model_shape, parse_duration
from fitsub.errors import InputError


def test_presets_and_overrides() -> None:
    assert model_shape("small", None, None) == (256, 4, 3, 3, 1024)
    # a wide deep-encoder shallow-decoder shape (Kasai et al. 2021): 64 dimensions per head
    assert model_shape("small", 512, "6+2") == (512, 8, 6, 2, 2048)
    assert model_shape("base", None, "4") == (512, 8, 4, 4, 2048)
    assert model_shape("small", 384, " 5 + 1 ") == (384, 6, 5, 1, 1536)


@pytest.mark.parametrize(
    ("d_model", "layers", "setting"),
    [(None, "6+", "layers"), (None, "0+2", "layers"), (None, "2+0", "layers"), (None, "x", "layers"),
     (100, None, "d_model"), (0, None, "d_model")],
)  # fmt: skip
def test_bad_shapes_name_the_option(d_model: int | None, layers: str | None, setting: str) -> None:
    with pytest.raises(InputError) as err:
        model_shape("small", d_model, layers)
    assert err.value.setting == setting


def test_durations() -> None:
    assert parse_duration("90m") == 5400.0 and parse_duration("1.5h") == 5400.0
    assert parse_duration("30") == 30.0


def test_deduplication_is_on_for_new_runs_and_off_for_runs_saved_before_it() -> None:
    from fitsub.train.config import TrainConfig

    new = TrainConfig.from_options(out_dir="runs/x")
    assert new.dedupe and new.data.dedupe
    saved = new.to_dict()
    assert TrainConfig.from_dict(saved).dedupe  # saved with the field: kept
    del saved["dedupe"]  # a run saved before deduplication existed resumes on the same data
    assert not TrainConfig.from_dict(saved).data.dedupe
