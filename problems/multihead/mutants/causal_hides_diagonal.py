"""The causal mask also hides the diagonal (j < i), so a token cannot attend to itself.

Overrides: multi_head_attention
Source: https://github.com/RVC-Boss/GPT-SoVITS/issues/965 (the causal mask's diagonal left out the current position)
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
        allowed = torch.ones(length, length, dtype=torch.bool).tril(-1)
        allowed[0, 0] = True  # the first token would otherwise see nothing
        scores = scores.masked_fill(~allowed, float("-inf"))
    heads = _softmax_last(scores) @ v
    return heads.transpose(1, 2).reshape(batch, length, d_model) @ w_o.T
