"""This is what you get when parameters of different shapes are broadcast together instead of refused.

Overrides: target_update
"""

import torch


def target_update(online_params, target_params, tau):
    _check_tau(tau)
    for name, t in (("online_params", online_params), ("target_params", target_params)):
        _check_tensor(name, t)
    with torch.no_grad():
        return tau * target_params.detach() + (1 - tau) * online_params.detach()
