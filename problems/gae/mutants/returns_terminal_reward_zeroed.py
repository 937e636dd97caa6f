"""This is what you get when the done mask multiplies the whole return, G_t = (r_t + gamma G_{t+1}) (1 - done_t), instead of only the bootstrap: the reward of the step that ended the episode is lost.

Overrides: discounted_returns
"""

import torch


def discounted_returns(rewards, dones, last_value, gamma=0.99):
    check_returns_rollout(rewards, dones, last_value)
    gamma = check_factor("gamma", gamma)
    rewards, last_value = rewards.detach(), last_value.detach()
    alive = _alive(dones, rewards.dtype)
    out = torch.empty_like(rewards)
    running = last_value
    for t in reversed(range(rewards.shape[0])):
        running = (rewards[t] + gamma * running) * alive[t]
        out[t] = running
    return out
