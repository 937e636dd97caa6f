"""This is what you get when each head's logits are divided by sqrt(num_heads) instead of sqrt(d_head): it is
right only when the number of heads equals the head size (d_model = num_heads squared).

Overrides: multi_head_attention
"""

import math

import torch


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, causal=False):
    check_inputs(x, w_q, w_k, w_v, w_o)
    check_options(num_heads, causal, x.shape[-1])
    batch, length, d_model = x.shape
    q = _split_heads(x @ w_q.T, num_heads)
    k = _split_heads(x @ w_k.T, num_heads)
    v = _split_heads(x @ w_v.T, num_heads)
    scores = q @ k.transpose(-2, -1) / math.sqrt(num_heads)
    if causal:
        allowed = torch.ones(length, length, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
    heads = _softmax_last(scores) @ v
    return heads.transpose(1, 2).reshape(batch, length, d_model) @ w_o.T
