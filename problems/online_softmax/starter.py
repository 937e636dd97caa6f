import math

import torch

from helpers import check_attention_inputs, check_logits


def online_softmax(x, block_size):
    """softmax(x) along the last axis, computed with a running maximum m and a running sum l.

    x: float32/float64 [..., N], finite or -inf entries. block_size: int >= 1.
    Walk the blocks x[..., 0:b], x[..., b:2b], ... (the last may be shorter) once to get, per row,
    m = max_j x_j and l = sum_j exp(x_j - m); then return exp(x - m) / l. A row of only -inf returns zeros.
    """
    check_logits(x, block_size)
    raise NotImplementedError("online_softmax: update m and l block by block, then normalise")


def blockwise_attention(q, k, v, block_size, causal=False):
    """(out, lse) for softmax(q k^T / sqrt(D)) v, folding in block_size keys at a time.

    q [..., Lq, D], k [..., Lk, D], v [..., Lk, Dv] with Lk >= Lq: the queries are the last Lq positions.
    out [..., Lq, Dv]; lse [..., Lq] = log sum_j exp(q . k_j / sqrt(D)) over the keys each query sees.
    causal: query i sees keys 0 .. i + (Lk - Lq). Never build an [Lq, Lk] matrix.
    """
    check_attention_inputs(q, k, v, block_size, causal)
    raise NotImplementedError("blockwise_attention: keep m, l and the output accumulator per query, "
                              "rescale them when m grows, divide by l at the end")
