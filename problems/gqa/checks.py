"""Check battery for grouped-query attention (placeholder while the contract is tried)."""

import torch

from grader.checks import check, expect_close


@check("sharing.hand_example", "Hand example", clauses=["sharing.grouped", "sharing.formula", "sharing.divides",
       "mask.polarity", "mask.fully_masked", "stable", "gradients.summed", "pooling.mean"])
def hand_example(sub, ref):
    q = torch.zeros(4, 1, 4)
    k = torch.zeros(2, 2, 4)
    v = torch.zeros(2, 2, 2)
    result = sub.grouped_query_attention.call(q, k, v)
    expect_close(result.unwrap(), ref.grouped_query_attention(q, k, v), call=result)
