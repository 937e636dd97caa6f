"""This is what you get when dones of any dtype are accepted and converted (dones.bool()): a float or int tensor is not refused with the TypeError the contract promises.

Overrides: gae
"""

import torch

_reference_gae = gae


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    if isinstance(dones, torch.Tensor):
        dones = dones.bool()
    return _reference_gae(rewards, values, dones, last_value, gamma, lam)
