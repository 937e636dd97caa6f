"""This is what you get when top-k and top-p are decided on the unscaled logits and the temperature is applied afterwards: the nucleus no longer depends on the temperature.

Overrides: sampling_probs
"""

import torch


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    temperature, top_k, top_p = check_options(temperature, top_k, top_p)
    logits = logits.detach()
    if temperature == 0:
        return _greedy(logits)
    unscaled = _scaled(logits, 1.0)
    order = _ranking(unscaled)
    ranked = unscaled.gather(-1, order)
    keep = _top_k_keep(ranked, top_k)
    if top_p < 1:
        keep = keep & _top_p_keep(torch.softmax(ranked.masked_fill(~keep, float("-inf")), dim=-1), top_p)
    ranked_probs = torch.softmax((ranked / temperature).masked_fill(~keep, float("-inf")), dim=-1)
    return torch.zeros_like(unscaled).scatter(-1, order, ranked_probs)
