"""Reward-to-go written into a preallocated tensor from the last step back, the loss as a masked mean, the
baseline as old + (1 - momentum) (mean - old)."""

import torch

from helpers import check_baseline_inputs, check_loss_inputs, check_rewards


def discounted_returns(rewards, gamma):
    check_rewards(rewards, gamma)
    out = torch.zeros_like(rewards)
    steps = rewards.shape[-1]
    if steps == 0:
        return out + rewards  # empty, but connected to the graph
    out[..., steps - 1] = rewards[..., steps - 1]
    for t in range(steps - 2, -1, -1):
        out[..., t] = rewards[..., t] + gamma * out[..., t + 1]
    return out


def reinforce_loss(log_probs, returns, baseline=None):
    check_loss_inputs(log_probs, returns, baseline)
    advantage = returns.detach()
    if baseline is not None:
        advantage = advantage - baseline.detach()
    if log_probs.numel() == 0:
        return (log_probs * advantage).sum()
    return -(log_probs * advantage).mean()


def update_baseline(baseline, returns, momentum):
    check_baseline_inputs(baseline, returns, momentum)
    old = baseline.detach()
    if returns.numel() == 0:
        return old.clone()
    return old + (1 - momentum) * (returns.detach().mean() - old)
