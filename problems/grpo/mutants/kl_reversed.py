"""This is what you get when the k3 exponent is logp_new - logp_ref instead of logp_ref - logp_new.

Overrides: _kl_k3
"""


def _kl_k3(logp_new, logp_ref):
    log_ratio = logp_new - logp_ref
    return torch.exp(log_ratio) - log_ratio - 1
