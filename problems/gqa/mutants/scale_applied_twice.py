"""This is what you get when the queries are divided by sqrt(D) and the logits are divided by sqrt(D) again.

Overrides: _scores
Source: fkodom/grouped-query-attention-pytorch, grouped_query_attention_pytorch/attention.py (query = query / scale, then softmax(similarity / scale))
"""

import math


def _scores(q, k):
    q = q / math.sqrt(q.shape[-1])
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
