"""This is what you get when a query with no allowed key is given every key instead (bias 0): it averages values it may not read.

Overrides: _masked_attention
Source: huggingface/transformers PR #45511 (the proposed fix lets fully masked rows attend to all keys, a uniform softmax, instead of NaN)
"""

import math

import torch


def _masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = allowed.expand(scores.shape)
    allowed = allowed | ~allowed.any(dim=-1, keepdim=True)
    return _softmax_last(scores.masked_fill(~allowed, float("-inf"))) @ v
