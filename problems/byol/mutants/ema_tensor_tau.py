"""This is what you get when tau is turned into a float64 tensor: a 0-d float32 parameter comes back as float64.

Overrides: target_update
"""

import torch


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    weight = torch.tensor(tau, dtype=torch.float64)
    with torch.no_grad():
        return weight * target_params.detach() + (1 - weight) * online_params.detach()
