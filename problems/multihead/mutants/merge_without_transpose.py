"""The heads are merged with a reshape of [B, H, L, d_head] straight to [B, L, d_model], scrambling tokens.

Overrides: multi_head_attention
Source: https://github.com/jsbaan/transformer-from-scratch/pull/6 (a missing permute before the reshape that merges heads)
"""

import math

import torch


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, causal=False):
    check_inputs(x, w_q, w_k, w_v, w_o)
    check_options(num_heads, causal, x.shape[-1])
    batch, length, d_model = x.shape
    d_head = d_model // num_heads
    q, k, v = (_split_heads(x @ w.T, num_heads) for w in (w_q, w_k, w_v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if causal:
        allowed = torch.ones(length, length, dtype=torch.bool).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
    heads = _softmax_last(scores) @ v
    return heads.reshape(batch, length, d_model) @ w_o.T
