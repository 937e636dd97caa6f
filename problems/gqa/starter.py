"""Grouped-query attention (Ainslie et al., 2023). Implement grouped_query_attention and mean_pool_kv_heads below;
the helpers of helpers.py (read-only under the editor) check the contract for you."""

import math

import torch

from helpers import check_mask, check_projection, check_qkv


def grouped_query_attention(q, k, v, mask=None):
    """Attention in which G key/value heads serve H query heads, H/G query heads each.

    q: [..., H, Lq, D], k: [..., G, Lk, D], v: [..., G, Lk, Dv] (same leading dims, dtype and device; G divides H).
    mask: None, or a bool tensor broadcastable to [..., H, Lq, Lk]; True = this query may attend to this key.
    Returns [..., H, Lq, Dv]. Query head h uses key/value head h // (H / G). A query with no allowed key returns
    a row of zeros, and no NaN in value or gradient.
    """
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])  # (..., H, Lq, Lk)
    check_mask(mask, scores_shape, q.device)
    # 1. give every query head its key/value head: head h reads KV head h // (H / G) (contiguous groups)
    # 2. scores q k^T / sqrt(D) per head, D = q.shape[-1]
    # 3. forbidden keys get -inf before a softmax over the keys; rows with no allowed key get zero weights
    # 4. weights times the shared values
    raise NotImplementedError("grouped_query_attention: follow steps 1-4 above")


def mean_pool_kv_heads(w, num_heads, num_groups):
    """Convert a multi-head key or value projection to num_groups heads by mean-pooling.

    w: [num_heads * head_dim, d_model] (the nn.Linear weight layout: rows h * head_dim .. (h + 1) * head_dim - 1
    are head h). Returns [num_groups * head_dim, d_model]: group g is the mean of heads g * H/G .. (g + 1) * H/G - 1.
    """
    check_projection(w, num_heads, num_groups)
    raise NotImplementedError("mean_pool_kv_heads: average the contiguous heads of each group")
