"""This is what you get when parameters of different shapes are broadcast together instead of refused.

Overrides: target_update
"""

from helpers import check_tensor

import torch


def target_update(online_params, target_params, tau):
    check_tau(tau)
    for name, t in (("online_params", online_params), ("target_params", target_params)):
        check_tensor(name, t)
    with torch.no_grad():
        return tau * target_params.detach() + (1 - tau) * online_params.detach()
