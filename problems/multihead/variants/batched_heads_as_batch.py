"""Variant: heads folded into the batch axis ([B * H, L, d_head]) and torch.bmm, as many implementations do."""

import torch

from helpers import check_inputs, check_options


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, causal=False):
    check_inputs(x, w_q, w_k, w_v, w_o)
    check_options(num_heads, causal, x.shape[-1])
    batch, length, d_model = x.shape
    d_head = d_model // num_heads

    def fold(t):  # (B, L, d) -> (B * H, L, d_head)
        return t.reshape(batch, length, num_heads, d_head).permute(0, 2, 1, 3).reshape(batch * num_heads, length,
                                                                                          d_head)

    q, k, v = fold(x @ w_q.T), fold(x @ w_k.T), fold(x @ w_v.T)
    scores = torch.bmm(q, k.transpose(1, 2)) * d_head ** -0.5
    if causal:
        scores = scores + torch.full((length, length), float("-inf"), dtype=x.dtype).triu(1)
    if length:
        scores = scores - scores.amax(dim=-1, keepdim=True).detach()
        scores = scores.exp() / scores.exp().sum(dim=-1, keepdim=True)
    heads = torch.bmm(scores, v).reshape(batch, num_heads, length, d_head).permute(0, 2, 1, 3)
    return heads.reshape(batch, length, d_model) @ w_o.T
