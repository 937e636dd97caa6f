"""This is what you get when the reward-to-go is a reversed cumulative sum of gamma^k r_k divided by gamma^t: at gamma = 0, or once gamma^t underflows on a long episode, it divides 0 by 0.

Source: HorizonRobotics/alf pull request #1199 (replay_buffer.py: the discounted return as flip-cumsum-flip of
the discounted rewards, divided by the discounts)
Overrides: _reward_to_go
"""

import torch


def _reward_to_go(rewards, gamma):
    steps = rewards.shape[-1]
    discounts = torch.tensor(gamma, dtype=rewards.dtype).pow(torch.arange(steps, dtype=rewards.dtype))
    return (rewards * discounts).flip(-1).cumsum(-1).flip(-1) / discounts
