"""Reference solution for the REINFORCE problem (Williams, 1992): reward-to-go returns, the surrogate loss whose
gradient is the policy-gradient estimate, and a moving-average baseline. Trusted: imported only in the judge's
process."""

import torch

from helpers import check_baseline_inputs, check_loss_inputs, check_rewards


def discounted_returns(rewards, gamma):
    """Reward-to-go along the last axis: G_t = sum_{k >= 0} gamma^k r_{t+k}, for rewards [..., T]."""
    check_rewards(rewards, gamma)
    return _reward_to_go(rewards, gamma)


def _reward_to_go(rewards, gamma):
    steps = rewards.shape[-1]
    if steps == 0:
        return rewards.clone()  # nothing to sum: an empty [..., 0] result, still part of the graph
    # Walk backwards: G_t = r_t + gamma * G_{t+1}, with G_T = 0 after the last step.
    running = torch.zeros_like(rewards[..., 0])
    returns = []
    for t in reversed(range(steps)):
        running = rewards[..., t] + gamma * running
        returns.append(running)
    return torch.stack(returns[::-1], dim=-1)  # [..., T], back in time order


def reinforce_loss(log_probs, returns, baseline=None):
    """-mean(log_probs * (returns - baseline)) over every element; returns and baseline are constants."""
    check_loss_inputs(log_probs, returns, baseline)
    advantage = _advantage(returns, baseline)
    return -(log_probs * advantage).sum() / max(log_probs.numel(), 1)  # an empty batch gives 0


def _advantage(returns, baseline):
    # The returns and the baseline are numbers the policy is scored with, not functions of its parameters:
    # no gradient may flow into them, whatever their requires_grad says.
    if baseline is None:
        return returns.detach()
    return returns.detach() - baseline.detach()


def update_baseline(baseline, returns, momentum):
    """momentum * baseline + (1 - momentum) * mean(returns), detached; an empty returns leaves it unchanged."""
    check_baseline_inputs(baseline, returns, momentum)
    baseline, returns = baseline.detach(), returns.detach()
    if returns.numel() == 0:
        return baseline.clone()
    return momentum * baseline + (1 - momentum) * returns.mean()
