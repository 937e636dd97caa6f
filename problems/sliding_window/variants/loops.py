"""Variant: everything written with Python loops, one query at a time, with a hand-written stable softmax."""

import math

import torch

from helpers import check_attention_inputs, check_length_and_window, check_mask_and_padding


def sliding_window_mask(T, window):
    check_length_and_window(T, window)
    mask = torch.zeros(T, T, dtype=torch.bool)
    for i in range(T):
        for j in range(max(0, i - window + 1), i + 1):
            mask[i, j] = True
    return mask


def combine_with_padding(mask, key_padding):
    check_mask_and_padding(mask, key_padding)
    B, (Tq, Tk) = key_padding.shape[0], mask.shape
    out = torch.zeros(B, Tq, Tk, dtype=torch.bool, device=mask.device)
    for b in range(B):
        for i in range(Tq):
            for j in range(Tk):
                out[b, i, j] = bool(mask[i, j]) and bool(key_padding[b, j])
    return out


def _attend_one(query, keys, values, allowed):
    """One query [D] against keys [T, D] and values [T, Dv]; allowed: a list of key indices."""
    out = values[0] * 0.0 + query.sum() * 0.0  # zeros that stay on the graph
    if not allowed:
        return out
    logits = [(query * keys[j]).sum() / math.sqrt(query.shape[0]) for j in allowed]
    top = max(float(x.detach()) for x in logits)
    exps = [torch.exp(x - top) for x in logits]
    total = sum(exps)
    for e, j in zip(exps, allowed, strict=True):
        out = out + (e / total) * values[j]
    return out


def windowed_attention(q, k, v, window, key_padding=None):
    check_attention_inputs(q, k, v, window, key_padding)
    B, H, T, _ = q.shape
    Dv = v.shape[-1]
    if B == 0 or T == 0:
        return torch.zeros(B, H, T, Dv, dtype=q.dtype, device=q.device)
    heads = []
    for b in range(B):
        real = [True] * T if key_padding is None else [bool(x) for x in key_padding[b]]
        for h in range(H):
            rows = []
            for i in range(T):
                allowed = [j for j in range(max(0, i - window + 1), i + 1) if real[j]]
                rows.append(_attend_one(q[b, h, i], k[b, h], v[b, h], allowed))
            heads.append(torch.stack(rows))
    return torch.stack(heads).reshape(B, H, T, Dv)
