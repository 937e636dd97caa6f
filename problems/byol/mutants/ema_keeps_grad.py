"""This is what you get when the average is computed inside autograd: the new target parameters require grad.

Overrides: target_update
"""


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    return tau * target_params + (1 - tau) * online_params
