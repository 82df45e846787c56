"""`fitsub.device`: the CUDA set-up that keeps attention off cuDNN (a plan per new shape)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

from fitsub.device import no_cudnn_attention, resolve_device


@pytest.fixture
def cudnn_sdp() -> Iterator[None]:
    before = torch.backends.cuda.cudnn_sdp_enabled()
    torch.backends.cuda.enable_cudnn_sdp(True)
    yield
    torch.backends.cuda.enable_cudnn_sdp(before)


def test_cudnn_attention_is_switched_off(cudnn_sdp: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FITSUB_CUDNN_ATTENTION", raising=False)
    no_cudnn_attention()
    assert not torch.backends.cuda.cudnn_sdp_enabled()
    # the other fused kernels stay available
    assert torch.backends.cuda.mem_efficient_sdp_enabled()


def test_the_environment_keeps_cudnn_for_a_measurement(
    cudnn_sdp: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FITSUB_CUDNN_ATTENTION", "1")
    no_cudnn_attention()
    assert torch.backends.cuda.cudnn_sdp_enabled()


def test_cpu_leaves_the_backends_alone(cudnn_sdp: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FITSUB_CUDNN_ATTENTION", raising=False)
    assert resolve_device("cpu").type == "cpu"
    assert torch.backends.cuda.cudnn_sdp_enabled()
