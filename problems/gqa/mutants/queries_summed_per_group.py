"""This is what you get when the query heads of a group are added up into one query instead of each key/value head
being shared by its query heads: G outputs come back instead of H.

Overrides: grouped_query_attention
Source: fkodom/grouped-query-attention-pytorch issue #5 (the einsum reduced the query heads to the number of key/value heads)
"""

import math


def grouped_query_attention(q, k, v, mask=None):
    check_qkv(q, k, v)
    scores_shape = (*q.shape[:-1], k.shape[-2])
    check_mask(mask, scores_shape, q.device)
    heads, groups = q.shape[-3], k.shape[-3]
    grouped = q.reshape(*q.shape[:-3], groups, heads // groups, *q.shape[-2:]).sum(dim=-3)
    scores = grouped @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        mask = mask.expand(scores_shape).reshape(*q.shape[:-3], groups, heads // groups, *scores_shape[-2:]).all(-3)
    return _weights(scores, mask) @ v
