"""This is what you get when the tokens are returned as int32: token ids are int64, the dtype embedding tables and torch.multinomial use.

Overrides: sample
"""

import torch


def sample(logits, uniform, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    check_uniform(uniform, logits)
    probs = sampling_probs(logits, temperature, top_k, top_p)
    return _inverse_cdf(probs, uniform.detach()).to(torch.int32)
