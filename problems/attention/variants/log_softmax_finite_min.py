"""Variant: fill with the dtype's most negative number, log_softmax, then zero rows with no allowed key."""

import torch

from helpers import check_mask, check_qkv


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    scores = torch.matmul(q, k.mT) * (q.shape[-1] ** -0.5)
    if mask is None:
        return torch.nn.functional.log_softmax(scores, dim=-1).exp() @ v
    allowed = mask.expand(scores_shape)
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    weights = torch.nn.functional.log_softmax(scores, dim=-1).exp()
    # finfo.min is finite, so rows with no allowed key are uniform rather than NaN: zero them, and every
    # forbidden key's exp(min - max) is exactly 0 elsewhere
    weights = weights * allowed.any(dim=-1, keepdim=True) * allowed
    return weights @ v
