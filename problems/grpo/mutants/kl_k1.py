"""This is what you get when the KL penalty is the k1 estimate logp_new - logp_ref, which is negative whenever the reference likes the token more.

Overrides: _kl_k3
"""


def _kl_k3(logp_new, logp_ref):
    return logp_new - logp_ref
