"""Variant: the linear-cost form. Each query gathers only its own window of W keys ([B, H, T, W] scores instead of
[B, H, T, T]); positions before the start or in the padding are marked invalid."""

import math

import torch

from helpers import check_attention_inputs, check_length_and_window, check_mask_and_padding


def sliding_window_mask(T, window):
    check_length_and_window(T, window)
    back = torch.arange(T).unsqueeze(1) - torch.arange(T).unsqueeze(0)  # how far key j lies behind query i
    return (back >= 0) & (back < window)


def combine_with_padding(mask, key_padding):
    check_mask_and_padding(mask, key_padding)
    B, (Tq, Tk) = key_padding.shape[0], mask.shape
    return torch.logical_and(mask.expand(B, Tq, Tk), key_padding[:, None, :].expand(B, Tq, Tk))


def windowed_attention(q, k, v, window, key_padding=None):
    check_attention_inputs(q, k, v, window, key_padding)
    B, H, T, D = q.shape
    W = min(window, T)
    position = torch.arange(T, device=q.device).unsqueeze(1) - torch.arange(W, device=q.device)  # [T, W]
    valid = position >= 0
    index = position.clamp_min(0)
    keys, values = k[:, :, index], v[:, :, index]  # [B, H, T, W, D], [B, H, T, W, Dv]
    valid = valid.expand(B, 1, T, W)
    if key_padding is not None:
        valid = valid & key_padding[:, index].unsqueeze(1)  # [B, 1, T, W]
    scores = torch.einsum("bhtd,bhtwd->bhtw", q, keys) / math.sqrt(D)
    valid = valid.expand(scores.shape)
    has_key = valid.any(dim=-1, keepdim=True)
    scores = scores.masked_fill(~valid, float("-inf")).masked_fill(~has_key, 0.0)
    weights = torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0)
    return torch.einsum("bhtw,bhtwe->bhte", weights, values)
