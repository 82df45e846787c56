"""The preallocated KV cache: steps write into one buffer, `reorder` gathers rows in place."""

from __future__ import annotations

import torch

from fitsub.nmt.cache import KVCache


def test_append_writes_into_a_preallocated_buffer_and_returns_the_prefix() -> None:
    cache = KVCache(n_layers=1, capacity=8)
    ks = [torch.randn(3, 2, 1, 4) for _ in range(3)]
    ptr = None
    for t, k in enumerate(ks):
        cache.steps = t
        kk, vv = cache.append(0, k, -k)
        assert kk.shape == (3, 2, t + 1, 4)
        torch.testing.assert_close(kk, torch.cat(ks[: t + 1], dim=2))
        torch.testing.assert_close(vv, -torch.cat(ks[: t + 1], dim=2))
        ptr = ptr or kk.data_ptr()
        assert kk.data_ptr() == ptr  # the same storage every step: no concatenation


def test_reorder_gathers_rows_into_the_spare_buffer_without_new_storage() -> None:
    cache = KVCache(n_layers=2, capacity=6)
    k = torch.randn(4, 2, 3, 4)
    for layer in range(2):
        cache.append(layer, k, k + 1)
    cache.steps = 3
    cache.units = torch.tensor([10, 11, 12, 13])
    cache.reorder(torch.tensor([2, 2, 0]))  # first call allocates the spare buffers
    first = cache.self_k[0]
    assert first is not None
    cache.reorder(torch.tensor([1, 0]))  # rows 2, 2 of the original
    cache.reorder(torch.tensor([0]))
    keys = cache.self_k[1]
    assert keys is not None and cache.rows == 1
    torch.testing.assert_close(keys[:1, :, :3], k[[2]])
    assert cache.units is not None and cache.units.tolist() == [12]
    # two buffers per layer, swapped by each reorder: the third is back in the first's storage
    assert cache.self_k[0] is not None and cache.self_k[0].data_ptr() == first.data_ptr()


def test_the_buffer_grows_when_decoding_past_its_capacity() -> None:
    cache = KVCache(n_layers=1, capacity=2)
    steps = [torch.randn(2, 1, 1, 4) for _ in range(5)]
    for t, k in enumerate(steps):
        cache.steps = t
        kk, _ = cache.append(0, k, k)
    torch.testing.assert_close(kk, torch.cat(steps, dim=2))


def test_cross_reorder_gathers_the_rows_into_two_buffers_in_turn() -> None:
    cache = KVCache(n_layers=1, capacity=4)
    ck, cv = torch.randn(3, 2, 5, 4), torch.randn(3, 2, 5, 4)
    cache.cross_k[0], cache.cross_v[0] = ck, cv
    cache.append(0, torch.randn(3, 2, 1, 4), torch.randn(3, 2, 1, 4))
    cache.steps = 1
    order = [torch.tensor([2, 0, 0, 1]), torch.tensor([3, 1]), torch.tensor([1, 1, 0])]
    want_k, want_v, ptrs = ck, cv, []
    for index in order:
        cache.reorder(index, cross=True)
        want_k, want_v = want_k[index], want_v[index]
        got_k, got_v = cache.cross_k[0], cache.cross_v[0]
        assert got_k is not None and got_v is not None
        torch.testing.assert_close(got_k, want_k, rtol=0, atol=0)
        torch.testing.assert_close(got_v, want_v, rtol=0, atol=0)
        ptrs.append(got_k.data_ptr())
    # no new storage after the first gather: the third is back in the first one's buffer
    assert ptrs[0] != ptrs[1] and ptrs[2] == ptrs[0]
