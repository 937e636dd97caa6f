"""Future positions are filled with -1e4 instead of -inf: when a real logit is as low as -1e4, the future leaks back in.

Overrides: multi_head_attention
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
        scores = scores.masked_fill(~allowed, -1e4)
    heads = _softmax_last(scores) @ v
    return heads.transpose(1, 2).reshape(batch, length, d_model) @ w_o.T
