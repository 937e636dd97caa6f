"""This is what you get when the average is written target + (1 - tau) * (online - target): tau = 0 no longer gives the online values exactly.

Overrides: target_update
"""

import torch


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    with torch.no_grad():
        return target_params.detach() + (1 - tau) * (online_params.detach() - target_params.detach())
