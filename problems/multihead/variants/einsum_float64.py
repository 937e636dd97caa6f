"""Variant: einsum over named axes in float64, with a logsumexp-based softmax, cast back at the end."""

import math

import torch

from helpers import check_inputs, check_options


def multi_head_attention(x, w_q, w_k, w_v, w_o, num_heads, causal=False):
    check_inputs(x, w_q, w_k, w_v, w_o)
    check_options(num_heads, causal, x.shape[-1])
    batch, length, d_model = x.shape
    d_head = d_model // num_heads
    h64 = x.double()
    q, k, v = (torch.einsum("bld,ed->ble", h64, w.double()).reshape(batch, length, num_heads, d_head)
               for w in (w_q, w_k, w_v))
    scores = torch.einsum("bihd,bjhd->bhij", q, k) / math.sqrt(d_head)
    if causal:
        scores = scores.masked_fill(torch.ones(length, length, dtype=torch.bool).triu(1), float("-inf"))
    weights = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True)) if length else scores
    heads = torch.einsum("bhij,bjhd->bihd", weights, v).reshape(batch, length, d_model)
    return torch.einsum("bld,ed->ble", heads, w_o.double()).to(x.dtype)
