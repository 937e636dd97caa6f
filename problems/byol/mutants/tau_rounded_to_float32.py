"""This is what you get when tau becomes torch.tensor(tau), a float32 0-d tensor: float64 parameters stay
float64, but tau itself is rounded to float32 (0.996 becomes 0.99599999189...), an error of about 1e-8.

Overrides: target_update
"""

import torch


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    weight = torch.tensor(tau)
    with torch.no_grad():
        return weight * target_params.detach() + (1 - weight) * online_params.detach()
