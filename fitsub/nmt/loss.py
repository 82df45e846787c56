"""Label-smoothed cross-entropy, from logits or straight from decoder states through the tied
output projection in row chunks (the (N, V) logits never exist all at once).

With z = h W^T the logits of a target row, p = softmax(z) and V classes, the loss of a row with
reference y (Szegedy et al. 2016, sec. 7; PyTorch's `label_smoothing`) is

    l = (1 - eps) (-log p_y) + (eps / V) sum_c (-log p_c)
      = lse(z) - (1 - eps) z_y - eps mean_c(z_c)

and its gradient in closed form

    dl/dz = p - (1 - eps) onehot(y) - eps / V,   dl/dh = (dl/dz) W,   dl/dW = (dl/dz)^T h,

so `projected_nll` computes the loss and both gradients chunk by chunk in its forward pass and
its backward pass only scales them. Pad rows are dropped before the projection.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

CHUNK_ROWS = 512  # rows of logits at once: 512 × 8000 fp32 = 16 MB (256-1024 measured alike)
# On a GPU the loop over chunks costs kernel launches, not cache misses: rows enough for this
# many logits at once (2**27 fp32 = 512 MB), a whole 32 k-token batch of a 16 k vocabulary in 4
GPU_CHUNK_LOGITS = 2**27


def chunk_rows(device: torch.device, vocab: int) -> int:
    """Rows of logits `projected_nll` makes at once on `device` (CPU: `CHUNK_ROWS`)."""
    if device.type == "cpu":
        return CHUNK_ROWS
    return max(CHUNK_ROWS, GPU_CHUNK_LOGITS // max(vocab, 1))


def smoothed_nll(logits: Tensor, target: Tensor, pad: int, eps: float) -> Tensor:
    """Sum over non-pad targets of label-smoothed cross-entropy (Szegedy et al. 2016), in fp32."""
    return F.cross_entropy(
        logits.flatten(0, 1).float(),
        target.flatten(),
        ignore_index=pad,
        label_smoothing=eps,
        reduction="sum",
    )


class _ProjectedNLL(torch.autograd.Function):
    """Sum of label-smoothed NLL of rows h (N, D) under logits h W^T; gradients made in forward."""

    @staticmethod
    def forward(
        ctx: Any,
        h: Tensor,
        weight: Tensor,
        target: Tensor,
        eps: float,
        dtype: torch.dtype,
        chunk: int,
        grads: bool,
    ) -> Tensor:
        # needs_input_grad ignores no_grad / inference mode, so the caller says whether to bother
        need_h, need_w = grads and ctx.needs_input_grad[0], grads and ctx.needs_input_grad[1]
        N, V = h.size(0), weight.size(0)
        hc, wc = h.to(dtype), weight.to(dtype)  # (N, D), (V, D) in the matmul dtype
        total = torch.zeros((), dtype=torch.float32, device=h.device)
        grad_h = torch.empty_like(hc) if need_h else None
        grad_w = torch.zeros_like(weight, dtype=torch.float32) if need_w else None
        gd = torch.empty(min(chunk, N), V, dtype=dtype, device=h.device)  # reused by each chunk
        for s in range(0, N, chunk):
            y = target[s : s + chunk, None]  # (n, 1)
            hs = hc[s : s + chunk]  # (n, D)
            z = hs @ wc.t()  # (n, V) logits in the matmul dtype
            p = torch.softmax(z, dim=1, dtype=torch.float32)  # (n, V)
            # lse(z) = max(z) - log(max(p)): exact, and max(p) >= 1/V cannot underflow. (exp of
            # log_softmax would hit denormals, ~4x slower on CPU than the fused softmax.)
            lse = z.amax(dim=1, keepdim=True).float() - p.amax(dim=1, keepdim=True).log()
            zy = z.gather(1, y).float()  # (n, 1)
            zbar = z.sum(dim=1, keepdim=True, dtype=torch.float32) / V  # (n, 1)
            total += (lse - (1.0 - eps) * zy - eps * zbar).sum()
            if grad_h is None and grad_w is None:
                continue
            g = p.sub_(eps / V)  # (n, V): p - eps / V
            g.scatter_add_(1, y, torch.full_like(y, eps - 1.0, dtype=g.dtype))
            gs = gd[: len(hs)]
            gs.copy_(g)  # (n, V) in the matmul dtype
            if grad_h is not None:
                torch.mm(gs, wc, out=grad_h[s : s + chunk])  # (n, D)
            if grad_w is not None:
                grad_w += gs.t() @ hs  # (V, D); as precise as one product over all rows
        ctx.save_for_backward(grad_h, grad_w)
        ctx.h_dtype, ctx.w_dtype = h.dtype, weight.dtype
        return total

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        grad_h, grad_w = ctx.saved_tensors
        gh = (grad_h * grad).to(ctx.h_dtype) if grad_h is not None else None
        gw = (grad_w * grad).to(ctx.w_dtype) if grad_w is not None else None
        return gh, gw, None, None, None, None, None


def projected_nll(
    hidden: Tensor,
    weight: Tensor,
    target: Tensor,
    pad: int,
    eps: float,
    dtype: torch.dtype | None = None,
    chunk: int = CHUNK_ROWS,
) -> Tensor:
    """`smoothed_nll(hidden @ weight.T, target, pad, eps)` without the pad rows' logits.

    hidden (B, T, D) decoder states, weight (V, D) the output projection, target (B, T) with
    `pad` where there is no target; the matmuls run in `dtype` (default: hidden's), the
    softmax and the loss in fp32.
    """
    keep = target.ne(pad).flatten()  # (B*T,)
    h = hidden.flatten(0, 1)[keep]  # (N, D) non-pad rows
    y = target.flatten()[keep]  # (N,)
    grads = torch.is_grad_enabled() and (h.requires_grad or weight.requires_grad)
    with torch.autocast(hidden.device.type, enabled=False):
        apply: Any = _ProjectedNLL.apply  # untyped in torch's stubs
        out: Tensor = apply(h, weight, y, eps, dtype or hidden.dtype, chunk, grads)
    return out
