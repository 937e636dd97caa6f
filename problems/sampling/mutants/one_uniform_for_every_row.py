"""This is what you get when every row of a batch is drawn with the first row's uniform.

Overrides: sample
"""


def sample(logits, uniform, temperature=1.0, top_k=0, top_p=1.0):
    check_logits(logits)
    check_uniform(uniform, logits)
    probs = sampling_probs(logits, temperature, top_k, top_p)
    first = uniform.detach().reshape(-1)[:1].reshape([1] * uniform.dim()) if uniform.numel() else uniform
    return _inverse_cdf(probs, first.expand_as(uniform))
