"""This is what you get when the advantages are normalised (minus their mean, over their standard deviation) inside gae: that is a later, optional step of PPO's loss, not part of the estimate, and it also changes the returns.

Overrides: gae
"""

_reference_gae = gae


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    advantages, returns = _reference_gae(rewards, values, dones, last_value, gamma, lam)
    if advantages.numel() > 1:
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    return advantages, advantages + values.detach()
