"""Variant: a Python loop over the heads, each a column slice of the projections, concatenated with torch.cat."""

import math

import torch

from helpers import check_inputs, check_options


def _attend(q, k, v, causal):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, L, L)
    if causal:
        length = scores.shape[-1]
        future = torch.ones(length, length, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    if scores.shape[-1] == 0:
        return scores @ v
    scores = scores - scores.amax(dim=-1, keepdim=True).detach()
    weights = scores.exp() / scores.exp().sum(dim=-1, keepdim=True)
    return weights @ v


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, causal=False):
    check_inputs(x, w_q, w_k, w_v, w_o)
    check_options(num_heads, causal, x.shape[-1])
    d_head = x.shape[-1] // num_heads
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    outputs = []
    for h in range(num_heads):
        part = slice(h * d_head, (h + 1) * d_head)
        outputs.append(_attend(q[..., part], k[..., part], v[..., part], causal))
    return torch.cat(outputs, dim=-1) @ w_o.T
