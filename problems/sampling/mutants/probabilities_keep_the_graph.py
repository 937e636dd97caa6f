"""This is what you get when the logits are not detached: the probabilities stay on the training graph, so a
decoding step would send gradients back into the model (and keep its activations alive) for nothing.

Overrides: sampling_probs
"""


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    temperature, top_k, top_p = check_options(temperature, top_k, top_p)
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
