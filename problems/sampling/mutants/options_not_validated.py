"""This is what you get when sampling_probs skips the supplied validation: a negative temperature, a top_k below zero, a top_p outside (0, 1] or non-finite logits get a distribution (or a stray error) instead of the promised one.

Overrides: sampling_probs
"""


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    logits = logits.detach()
    if temperature == 0:
        return _greedy(logits)
    scaled = _scaled(logits, temperature)
    order = _ranking(scaled)
    ranked = scaled.gather(-1, order)
    keep = _top_k_keep(ranked, top_k)
    if top_p < 1:
        keep = keep & _top_p_keep(torch.softmax(ranked.masked_fill(~keep, float("-inf")), dim=-1), top_p)
    ranked_probs = torch.softmax(ranked.masked_fill(~keep, float("-inf")), dim=-1)
    return torch.zeros_like(scaled).scatter(-1, order, ranked_probs)
