"""This is what you get when the moving average's weights are swapped: tau goes to the online parameters.

Source: marin-community/levanter#883 (an EMA with its beta backwards)
Overrides: target_update
"""

import torch


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    with torch.no_grad():
        return tau * online_params.detach() + (1 - tau) * target_params.detach()
