"""This is what you get when the parameters are flattened with .view(-1) for the average and viewed back: right
on contiguous parameters, a RuntimeError on a transposed or expanded one, which needs .reshape(-1).

Overrides: target_update
"""

import torch


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    with torch.no_grad():
        flat = tau * target_params.view(-1) + (1 - tau) * online_params.view(-1)
        return flat.view(target_params.shape)
