"""Reference solution for the sampling problem. Trusted: imported only in the judge's process."""

import torch

from helpers import check_logits, check_options, check_uniform


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    """The distribution the next token is drawn from: temperature, then top-k, then top-p, each renormalised."""
    check_logits(logits)
    temperature, top_k, top_p = check_options(temperature, top_k, top_p)
    logits = logits.detach()  # decoding is not part of a training graph
    if temperature == 0:
        return _greedy(logits)
    scaled = _scaled(logits, temperature)  # [..., V], every entry <= 0, the largest exactly 0
    order = _ranking(scaled)  # [..., V] token indices, largest scaled logit first
    ranked = scaled.gather(-1, order)  # [..., V] in decreasing order
    keep = _top_k_keep(ranked, top_k)  # [..., V] bool, in ranked order
    if top_p < 1:
        keep = keep & _top_p_keep(torch.softmax(ranked.masked_fill(~keep, float("-inf")), dim=-1), top_p)
    ranked_probs = torch.softmax(ranked.masked_fill(~keep, float("-inf")), dim=-1)
    return torch.zeros_like(scaled).scatter(-1, order, ranked_probs)  # back to vocabulary order


def _greedy(logits):
    """Temperature 0: all the mass on the first largest logit."""
    best = logits.argmax(dim=-1, keepdim=True)  # argmax returns the first of equal maxima
    return torch.zeros_like(logits).scatter(-1, best, 1.0)


def _ranking(scaled):
    """A stable descending sort: equal logits keep increasing index order, so ties go to the smaller index."""
    return torch.sort(scaled, dim=-1, descending=True, stable=True).indices


def _scaled(logits, temperature):
    """(logits - max) / T: subtracting the maximum first keeps a tiny T from producing inf - inf."""
    return (logits - logits.amax(dim=-1, keepdim=True)) / temperature


def _top_k_keep(ranked, top_k):
    """The first min(k, V) ranked tokens; k = 0 keeps all."""
    keep = torch.ones_like(ranked, dtype=torch.bool)
    if top_k > 0:
        keep[..., top_k:] = False
    return keep


def _top_p_keep(ranked_probs, top_p):
    """A ranked token is kept when the mass of the tokens ranked before it is below p; the first always is."""
    before = torch.cumsum(ranked_probs, dim=-1) - ranked_probs  # [..., V] the mass ranked strictly earlier
    keep = before < top_p
    keep[..., 0] = True
    return keep


def sample(logits, uniform, temperature=1.0, top_k=0, top_p=1.0):
    """One token per row: the smallest index whose cumulative probability (in vocabulary order) exceeds u."""
    check_logits(logits)
    check_uniform(uniform, logits)
    probs = sampling_probs(logits, temperature, top_k, top_p)  # [..., V]
    return _inverse_cdf(probs, uniform.detach())


def _inverse_cdf(probs, uniform):
    cdf = torch.cumsum(probs, dim=-1)  # [..., V], non-decreasing
    index = (cdf <= uniform.unsqueeze(-1)).sum(dim=-1)  # how many C_i <= u: the first i with C_i > u
    # When rounding leaves the total below u, no C_i exceeds it: take the last token with nonzero probability.
    last = probs.shape[-1] - 1 - (probs > 0).flip(-1).to(torch.int64).argmax(dim=-1)
    return torch.minimum(index, last)
