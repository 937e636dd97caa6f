"""This is what you get when an episode of length 0 is answered with a fresh tensor of zeros: its values are right (there are none), but it is off the autograd graph, so it no longer requires grad when rewards does.

Overrides: discounted_returns
"""

import torch


def discounted_returns(rewards, gamma):
    check_rewards(rewards, gamma)
    if rewards.shape[-1] == 0:
        return torch.zeros_like(rewards)  # nothing to sum: a new empty tensor, but a constant
    return _reward_to_go(rewards, gamma)
