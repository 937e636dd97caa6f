"""This is what you get when the target is updated in place (mul_ and add_): the caller's target_params are overwritten.

Overrides: target_update
"""

import torch


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    with torch.no_grad():
        target_params.mul_(tau).add_((1 - tau) * online_params)
        return target_params.detach().clone()
