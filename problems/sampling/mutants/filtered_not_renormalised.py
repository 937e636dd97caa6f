"""This is what you get when removed tokens are zeroed in the full softmax without renormalising: the kept probabilities sum to less than 1.

Overrides: sampling_probs
"""

import torch


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    temperature, top_k, top_p = check_options(temperature, top_k, top_p)
    logits = logits.detach()
    if temperature == 0:
        return _greedy(logits)
    scaled = _scaled(logits, temperature)
    order = _ranking(scaled)
    ranked = scaled.gather(-1, order)
    keep = _top_k_keep(ranked, top_k)
    if top_p < 1:
        keep = keep & _top_p_keep(torch.softmax(ranked.masked_fill(~keep, float("-inf")), dim=-1), top_p)
    ranked_probs = torch.softmax(ranked, dim=-1) * keep
    return torch.zeros_like(scaled).scatter(-1, order, ranked_probs)
