"""Every decoder encoding against its formula, computed independently with `math`."""

from __future__ import annotations

import math

import pytest
import torch

from fitsub.nmt import length_encodings as enc

D = 8


def ref(arg_of_i, d: int = D) -> list[float]:
    """[sin(a_0), cos(a_0), sin(a_1), cos(a_1), ...] with a_i = arg_of_i(i)."""
    out = []
    for i in range(d // 2):
        a = arg_of_i(i)
        out += [math.sin(a), math.cos(a)]
    return out


def close(t: torch.Tensor, expected: list[float]) -> None:
    assert t.tolist() == pytest.approx(expected, abs=1e-5)


@pytest.mark.parametrize("pos", [0, 1, 7, 130])
def test_sinusoidal_matches_vaswani(pos: int) -> None:
    got = enc.sinusoidal(torch.tensor(pos), D)
    close(got, ref(lambda i: pos / 10000 ** (2 * i / D)))


@pytest.mark.parametrize(("pos", "length"), [(0, 12), (5, 12), (12, 12), (15, 12), (3, 40)])
def test_ldpe_is_sinusoid_of_remaining_length(pos: int, length: int) -> None:
    got = enc.ldpe(torch.tensor(pos), torch.tensor(length), D)
    close(got, ref(lambda i: (length - pos) / 10000 ** (2 * i / D)))


def test_ldpe_depends_only_on_remaining_length() -> None:
    a = enc.ldpe(torch.tensor(3), torch.tensor(10), D)
    b = enc.ldpe(torch.tensor(23), torch.tensor(30), D)
    assert torch.allclose(a, b, atol=1e-6)
    # remaining 0 (where EOS is due) is the same vector for every length
    assert torch.allclose(
        enc.ldpe(torch.tensor(9), torch.tensor(9), D), torch.tensor([0.0, 1.0] * (D // 2))
    )


@pytest.mark.parametrize(("pos", "length"), [(0, 10), (5, 10), (10, 20), (7, 3), (4, 1)])
def test_lrpe_replaces_the_base_by_the_length(pos: int, length: int) -> None:
    got = enc.lrpe(torch.tensor(pos), torch.tensor(length), D)
    close(got, ref(lambda i: pos / length ** (2 * i / D)))


def test_lrpe_clamps_length_to_one() -> None:
    got = enc.lrpe(torch.tensor(4), torch.tensor(0), D)
    close(got, ref(lambda i: 4 / 1.0))


@pytest.mark.parametrize(("pos", "length"), [(0, 30), (11, 30), (30, 30)])
def test_lakew_abs_is_sinusoid_of_len_minus_pos(pos: int, length: int) -> None:
    got = enc.lakew_abs(torch.tensor(pos), torch.tensor(length), D)
    close(got, ref(lambda i: (length - pos) / 10000 ** (2 * i / D)))


@pytest.mark.parametrize(
    ("pos", "length", "n", "q"),
    [
        (0, 30, 5, 0),
        (5, 30, 5, 0),
        (6, 30, 5, 1),
        (29, 30, 5, 4),
        (30, 30, 5, 5),
        (45, 30, 5, 5),
        (9, 10, 10, 9),
    ],
)
def test_lakew_rel_quantises_pos_over_len(pos: int, length: int, n: int, q: int) -> None:
    assert enc.quantise(torch.tensor(pos), torch.tensor(length), n).item() == q
    got = enc.lakew_rel(torch.tensor(pos), torch.tensor(length), D, n)
    close(got, ref(lambda i: q / 10000 ** (2 * i / D)))


def test_batched_shapes_broadcast_lengths_per_row() -> None:
    pos = torch.tensor([[0, 2, 4], [0, 1, 2]])
    length = torch.tensor([[6], [2]])
    got = enc.ldpe(pos, length, D)
    for b in range(2):
        for t in range(3):
            close(
                got[b, t],
                ref(lambda i, b=b, t=t: (length[b, 0] - pos[b, t]).item() / 10000 ** (2 * i / D)),
            )


def test_length_encoding_dispatch_and_position_term() -> None:
    pos, length = torch.tensor([3]), torch.tensor([9])
    assert torch.equal(enc.length_encoding("sinusoidal", pos, length, D), torch.zeros(1, D))
    assert torch.equal(enc.length_encoding("ldpe+pe", pos, length, D), enc.ldpe(pos, length, D))
    assert torch.equal(enc.length_encoding("lrpe", pos, length, D), enc.lrpe(pos, length, D))
    assert torch.equal(
        enc.length_encoding("lakew-rel", pos, length, D, 5), enc.lakew_rel(pos, length, D, 5)
    )
    assert not enc.has_position_term("ldpe") and not enc.has_position_term("lrpe")
    assert enc.has_position_term("ldpe+pe") and enc.has_position_term("lakew-abs")
    with pytest.raises(ValueError):
        enc.length_encoding("nope", pos, length, D)
    with pytest.raises(ValueError):
        enc.sinusoidal(pos, 7)
