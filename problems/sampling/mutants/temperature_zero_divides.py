"""This is what you get when temperature 0 is treated like any other temperature: the logits are divided by 0, which gives nan (0/0 at the maximum) instead of the greedy one-hot row.

Overrides: sampling_probs
Source: google-deepmind/gemma issue #562 (RandomSampling, TopkSampling and TopPSampling divide by a temperature of 0.0); karpathy/nanoGPT pull request #546 (temperature 0 makes every logit infinite)
"""

import torch


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    temperature, top_k, top_p = check_options(temperature, top_k, top_p)
    logits = logits.detach()
    scaled = _scaled(logits, temperature)
    order = _ranking(scaled)
    ranked = scaled.gather(-1, order)
    keep = _top_k_keep(ranked, top_k)
    if top_p < 1:
        keep = keep & _top_p_keep(torch.softmax(ranked.masked_fill(~keep, float("-inf")), dim=-1), top_p)
    ranked_probs = torch.softmax(ranked.masked_fill(~keep, float("-inf")), dim=-1)
    return torch.zeros_like(scaled).scatter(-1, order, ranked_probs)
