"""Sampling the next token (Holtzman et al., 2020): temperature, top-k and nucleus (top-p), then the draw.

Implement sampling_probs and sample below. The validation helpers are supplied in helpers.py (shown read-only
under the editor): each function already calls them; keep those calls.
"""

import torch

from helpers import check_logits, check_options, check_uniform


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    """The distribution [..., V] the next token is drawn from, one row per row of logits [..., V].

    Temperature first (softmax of (z - max z) / T; T = 0 is greedy: all the mass on the first argmax), then
    top-k (keep the k largest, ties to the smaller index; 0 = off), then top-p on the renormalised top-k
    distribution (keep a ranked token while the mass ranked before it is below p). Removed tokens get exactly 0.
    The result does not require grad.
    """
    check_logits(logits)
    temperature, top_k, top_p = check_options(temperature, top_k, top_p)
    raise NotImplementedError("sampling_probs: scale, rank once (stable, largest first), filter, renormalise")


def sample(logits, uniform, temperature=1.0, top_k=0, top_p=1.0):
    """int64 [...]: for each row, the smallest token index i with C_i > u, where C is the cumulative sum of
    sampling_probs(logits, temperature, top_k, top_p) in vocabulary order and u the row's entry of uniform.
    If no C_i exceeds u (rounding), the last token with nonzero probability."""
    check_logits(logits)
    check_uniform(uniform, logits)
    raise NotImplementedError("sample: invert the cumulative distribution at u")
