"""The heads are computed under torch.no_grad(), so nothing upstream of the output projection can train.

Overrides: multi_head_attention
"""

import math

import torch


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, causal=False):
    check_inputs(x, w_q, w_k, w_v, w_o)
    check_options(num_heads, causal, x.shape[-1])
    batch, length, d_model = x.shape
    d_head = d_model // num_heads
    with torch.no_grad():
        q, k, v = (_split_heads(x @ w.T, num_heads) for w in (w_q, w_k, w_v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_head)
        if causal:
            allowed = torch.ones(length, length, dtype=torch.bool).tril()
            scores = scores.masked_fill(~allowed, float("-inf"))
        heads = _softmax_last(scores) @ v
    return heads.transpose(1, 2).reshape(batch, length, d_model) @ w_o.T
