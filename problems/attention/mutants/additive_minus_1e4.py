"""Forbidden logits get -10000 added (a BERT-style additive mask): a forbidden key with logit 1e4 leaks back in.

Overrides: scaled_dot_product_attention
Source: huggingface/transformers, src/transformers/models/bert/modeling_bert.py (early releases: extended_attention_mask = (1.0 - extended_attention_mask) * -10000.0)
"""

import math

import torch


def scaled_dot_product_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is None:
        return torch.softmax(scores, dim=-1) @ v
    mask = mask.expand(scores_shape)
    has_key = mask.any(dim=-1, keepdim=True)
    scores = scores + (~mask).to(scores.dtype) * -10000.0
    return torch.softmax(scores, dim=-1).masked_fill(~has_key, 0.0) @ v
