"""This is what you get when discounted_returns does not validate gamma: a gamma above 1 or below 0 (or a bool) is used instead of refused.

Overrides: discounted_returns
"""


def discounted_returns(rewards, dones, last_value, gamma=0.99):
    check_returns_rollout(rewards, dones, last_value)
    rewards, last_value = rewards.detach(), last_value.detach()
    return _discounted_sum(rewards, float(gamma) * _alive(dones, rewards.dtype), last_value)
