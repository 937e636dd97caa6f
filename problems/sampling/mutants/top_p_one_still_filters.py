"""This is what you get when the nucleus filter also runs at top_p = 1: the cumulative sum rounds to 1 before the last tokens, so tail tokens of tiny but positive probability get probability 0 although top_p = 1 should keep every token.

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
    keep = keep & _top_p_keep(torch.softmax(ranked.masked_fill(~keep, float("-inf")), dim=-1), top_p)
    ranked_probs = torch.softmax(ranked.masked_fill(~keep, float("-inf")), dim=-1)
    return torch.zeros_like(scaled).scatter(-1, order, ranked_probs)
