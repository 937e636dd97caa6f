"""This is what you get when q is scaled by 1 / sqrt(D) in place to save a copy: the caller's q changes (and a q that requires grad cannot be changed in place at all).

Overrides: blockwise_attention
"""

import math

_reference_blockwise_attention = blockwise_attention


def blockwise_attention(q, k, v, block_size, causal=False):
    check_attention_inputs(q, k, v, block_size, causal)
    d = q.shape[-1]
    q.mul_(1.0 / math.sqrt(d))
    return _reference_blockwise_attention(q * math.sqrt(d), k, v, block_size, causal)
