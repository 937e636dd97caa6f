"""This is what you get when sample draws from softmax(z / T) and forgets top_k and top_p: removed tokens can be drawn.

Overrides: sample
"""

import torch


def sample(logits, uniform, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    check_uniform(uniform, logits)
    probs = sampling_probs(logits, temperature)
    return _inverse_cdf(probs, uniform.detach())
