"""Reference causal sliding-window attention (Beltagy et al., 2020; Jiang et al., 2023). The checks compare
submissions with it."""

import math

import torch

from helpers import check_attention_inputs, check_length_and_window, check_mask_and_padding


def sliding_window_mask(T, window):
    """bool [T, T]: query i may attend key j exactly when i - window < j <= i (window keys, itself included)."""
    check_length_and_window(T, window)
    i = torch.arange(T).unsqueeze(1)  # (T, 1): the query's position
    j = torch.arange(T).unsqueeze(0)  # (1, T): the key's position
    return (j <= i) & (j > i - window)  # causal, and no further back than window - 1 positions


def combine_with_padding(mask, key_padding):
    """bool [B, Tq, Tk]: mask for every batch element, with the padded keys (key_padding False) removed."""
    check_mask_and_padding(mask, key_padding)
    return mask.unsqueeze(0) & key_padding.unsqueeze(1)  # (1, Tq, Tk) & (B, 1, Tk): padding acts on keys only


def _softmax_last(scores):
    """Stable softmax over the last axis: shift each row by its (detached) maximum so exp never overflows."""
    if scores.shape[-1] == 0:
        return scores
    top = scores.detach().amax(dim=-1, keepdim=True)
    exps = torch.exp(scores - top)
    return exps / exps.sum(dim=-1, keepdim=True)


def _masked_attention(q, k, v, allowed):
    """softmax(q k^T / sqrt(D)) v over the allowed keys; a query with no allowed key gets zeros."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, T, D) x (B, H, D, T) -> (B, H, T, T)
    allowed = allowed.expand(scores.shape)
    has_key = allowed.any(dim=-1, keepdim=True)  # (B, H, T, 1)
    # A row with no allowed key would be all -inf, and its softmax 0 / 0 = NaN in value and gradient: give it
    # finite logits before the softmax, then zero its weights, so it returns 0 and passes no gradient back.
    scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~has_key, 0.0)
    weights = _softmax_last(scores).masked_fill(~has_key, 0.0)
    return weights @ v  # (B, H, T, T) x (B, H, T, Dv) -> (B, H, T, Dv)


def windowed_attention(q, k, v, window, key_padding=None):
    """Causal sliding-window attention; key_padding [B, T] (True = real token) removes padded keys."""
    check_attention_inputs(q, k, v, window, key_padding)
    T = q.shape[2]
    allowed = sliding_window_mask(T, window).to(q.device)  # (T, T)
    if key_padding is not None:
        allowed = combine_with_padding(allowed, key_padding).unsqueeze(1)  # (B, 1, T, T): same for every head
    return _masked_attention(q, k, v, allowed)
