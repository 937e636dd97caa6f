"""Scaled dot-product attention (Vaswani et al., 2017, Eq. 1). Implement scaled_dot_product_attention below; the two
helpers of helpers.py (read-only under the editor) check the contract for you."""

import torch

from helpers import check_mask, check_qkv


def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q k^T / sqrt(D)) v, with the softmax over the keys.

    q: [..., Lq, D], k: [..., Lk, D], v: [..., Lk, Dv] (same leading dims, dtype and device).
    mask: None, or a bool tensor broadcastable to [..., Lq, Lk]; True = this query may attend to this key.
    Returns [..., Lq, Dv]. A query with no allowed key returns a row of zeros, and no NaN in value or gradient.
    """
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])  # (..., Lq, Lk)
    check_mask(mask, scores_shape, q.device)
    # 1. scores: q times k transposed over its last two dimensions, divided by sqrt(D) (D = q.shape[-1])
    # 2. forbidden keys get a logit of -inf, before the softmax
    # 3. softmax over the keys; rows with no allowed key must come out as zero weights, not NaN
    # 4. weights times v
    raise NotImplementedError("scaled_dot_product_attention: follow steps 1-4 above")
