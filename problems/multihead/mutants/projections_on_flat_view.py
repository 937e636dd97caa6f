"""This is what you get when x is flattened with x.view(-1, d_model) before the projections: .view needs
contiguous memory, so a transposed or sliced x raises instead of being attended over.

Overrides: multi_head_attention
"""

import math

import torch


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, causal=False):
    check_inputs(x, w_q, w_k, w_v, w_o)
    check_options(num_heads, causal, x.shape[-1])
    batch, length, d_model = x.shape
    d_head = d_model // num_heads
    rows = x.view(-1, d_model)  # (B * L, d_model)
    q = _split_heads((rows @ w_q.T).reshape(batch, length, d_model), num_heads)
    k = _split_heads((rows @ w_k.T).reshape(batch, length, d_model), num_heads)
    v = _split_heads((rows @ w_v.T).reshape(batch, length, d_model), num_heads)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
    if causal:
        allowed = torch.ones(length, length, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
    heads = _softmax_last(scores) @ v
    return heads.transpose(1, 2).reshape(batch, length, d_model) @ w_o.T
