"""Reward-to-go as one matrix product with a triangular matrix of discount powers, the loss as a dot product,
the baseline through torch.lerp."""

import torch

from helpers import check_baseline_inputs, check_loss_inputs, check_rewards


def discounted_returns(rewards, gamma):
    check_rewards(rewards, gamma)
    steps = rewards.shape[-1]
    index = torch.arange(steps, device=rewards.device)
    lag = index[:, None] - index[None, :]  # [k, t]: step k comes lag steps after step t
    powers = torch.tensor(float(gamma), dtype=rewards.dtype).pow(lag.clamp_min(0).to(rewards.dtype))
    weights = torch.where(lag >= 0, powers, torch.zeros((), dtype=rewards.dtype))
    return rewards @ weights


def reinforce_loss(log_probs, returns, baseline=None):
    check_loss_inputs(log_probs, returns, baseline)
    with torch.no_grad():
        advantage = returns.clone() if baseline is None else returns - baseline
    n = log_probs.numel()
    return -torch.dot(log_probs.reshape(-1), advantage.reshape(-1)) / max(n, 1)


def update_baseline(baseline, returns, momentum):
    check_baseline_inputs(baseline, returns, momentum)
    with torch.no_grad():
        if returns.numel() == 0:
            return baseline.clone()
        # lerp(start, end, w) = start + w (end - start): start at the batch mean, move momentum of the way back
        return torch.lerp(returns.mean(), baseline, momentum)
