"""Reference grouped-query attention and the mean-pooling conversion of a multi-head checkpoint (Ainslie et al.,
2023). The checks compare submissions with it."""

import math

import torch

from helpers import check_mask, check_projection, check_qkv


def _softmax_last(scores):
    """Stable softmax over the last axis: shift each row by its (detached) maximum so exp never overflows."""
    if scores.shape[-1] == 0:
        return scores
    top = scores.detach().amax(dim=-1, keepdim=True)  # a constant shift: softmax does not depend on it
    exps = torch.exp(scores - top)
    return exps / exps.sum(dim=-1, keepdim=True)


def _share_kv(t, num_heads):
    """(..., G, L, F) -> (..., H, L, F): KV head g is repeated for query heads g * H/G .. (g + 1) * H/G - 1, so
    query head h reads KV head h // (H / G). Autograd sums the gradients of the copies back into KV head g."""
    return t.repeat_interleave(num_heads // t.shape[-3], dim=-3)


def _scores(q, k):
    """(..., H, Lq, D) x (..., H, Lk, D) -> (..., H, Lq, Lk), divided by sqrt(D)."""
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])


def _weights(scores, mask):
    """Softmax over the keys; False keys get weight 0; a query with no allowed key gets all-zero weights."""
    if mask is None:
        return _softmax_last(scores)
    mask = mask.expand(scores.shape)
    has_key = mask.any(dim=-1, keepdim=True)  # (..., H, Lq, 1): False for a query with no allowed key
    scores = scores.masked_fill(~mask, float("-inf"))
    # A row of -inf would give 0 / 0 = NaN in value and gradient: give it a finite placeholder before the softmax
    # and zero weights after it.
    scores = scores.masked_fill(~has_key, 0.0)
    return _softmax_last(scores).masked_fill(~has_key, 0.0)


def grouped_query_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])  # (..., H, Lq, Lk)
    check_mask(mask, scores_shape, q.device)
    num_heads = q.shape[-3]
    k = _share_kv(k, num_heads)  # (..., H, Lk, D)
    v = _share_kv(v, num_heads)  # (..., H, Lk, Dv)
    return _weights(_scores(q, k), mask) @ v  # (..., H, Lq, Dv)


def mean_pool_kv_heads(w, num_heads, num_groups):
    check_projection(w, num_heads, num_groups)
    rows, d_model = w.shape
    head_dim = rows // num_heads
    per_group = num_heads // num_groups
    # rows h * Dh .. (h + 1) * Dh - 1 are head h; heads g * H/G .. (g + 1) * H/G - 1 form group g
    heads = w.reshape(num_groups, per_group, head_dim, d_model)
    return heads.mean(dim=1).reshape(num_groups * head_dim, d_model)  # (G * Dh, d_model)
