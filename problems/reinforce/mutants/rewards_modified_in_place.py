"""This is what you get when the reward-to-go is accumulated in place in the rewards tensor: the caller's rewards are overwritten by the returns.

Overrides: _reward_to_go
"""


def _reward_to_go(rewards, gamma):
    returns = rewards.detach()  # no copy: the same storage as the caller's rewards
    for t in reversed(range(rewards.shape[-1] - 1)):
        returns[..., t] += gamma * returns[..., t + 1]
    return returns.clone()
