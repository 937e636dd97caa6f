"""Variant: masks from tril, attention in float64 with the most negative float as the fill and log_softmax, rows
with no allowed key zeroed by multiplying, cast back to the inputs' dtype."""

import torch

from helpers import check_attention_inputs, check_length_and_window, check_mask_and_padding


def sliding_window_mask(T, window):
    check_length_and_window(T, window)
    ones = torch.ones(T, T, dtype=torch.bool)
    return ones.tril() & ~ones.tril(diagonal=-window)  # causal, minus everything W or more positions back


def combine_with_padding(mask, key_padding):
    check_mask_and_padding(mask, key_padding)
    return torch.einsum("ij,bj->bij", mask.to(torch.int64), key_padding.to(torch.int64)) > 0


def windowed_attention(q, k, v, window, key_padding=None):
    check_attention_inputs(q, k, v, window, key_padding)
    B, H, T, D = q.shape
    allowed = sliding_window_mask(T, window).to(q.device).expand(B, H, T, T)
    if key_padding is not None:
        allowed = allowed & key_padding.view(B, 1, 1, T)
    q64, k64, v64 = q.double(), k.double(), v.double()
    scores = torch.matmul(q64, k64.mT) * D ** -0.5
    scores = scores.masked_fill(~allowed, torch.finfo(torch.float64).min)
    weights = torch.nn.functional.log_softmax(scores, dim=-1).exp() if T else scores
    # finfo.min is finite: a row with no allowed key comes out uniform, so zero it; elsewhere every forbidden
    # key's exp(min - max) is exactly 0
    weights = weights * allowed * allowed.any(dim=-1, keepdim=True)
    return torch.matmul(weights, v64).to(q.dtype)
