"""This is what you get when the logits are divided by sqrt(Dv), the size of the values, instead of sqrt(D).

Overrides: grouped_query_attention
"""

import math


def grouped_query_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    num_heads = q.shape[-3]
    k = _share_kv(k, num_heads)
    v = _share_kv(v, num_heads)
    scores = q @ k.transpose(-2, -1) / math.sqrt(max(v.shape[-1], 1))
    return _weights(scores, mask) @ v
