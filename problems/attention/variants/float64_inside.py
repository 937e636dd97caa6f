"""Variant: everything in float64 with an explicit max-shift, cast back to the inputs' dtype at the end."""

import math

import torch

from helpers import check_mask, check_qkv


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    q64, k64, v64 = q.double(), k.double(), v.double()
    scores = torch.einsum("...id,...jd->...ij", q64, k64) / math.sqrt(q.shape[-1])
    allowed = torch.ones(scores_shape, dtype=torch.bool) if mask is None else mask.expand(scores_shape)
    finite = torch.where(allowed, scores, torch.full_like(scores, -1e300))
    top = finite.amax(dim=-1, keepdim=True) if scores.shape[-1] > 0 else finite.sum(-1, keepdim=True)
    exps = torch.exp(finite - top.detach()) * allowed
    total = exps.sum(dim=-1, keepdim=True)
    weights = exps / torch.where(total > 0, total, torch.ones_like(total))
    return torch.einsum("...ij,...jd->...id", weights, v64).to(q.dtype)
