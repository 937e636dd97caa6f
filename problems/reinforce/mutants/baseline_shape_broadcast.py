"""This is what you get when the baseline's shape is not checked: a baseline of another shape is broadcast against the returns instead of refused.

Overrides: reinforce_loss
"""

import torch


def reinforce_loss(log_probs, returns, baseline=None):
    check_loss_inputs(log_probs, returns, None)
    if baseline is not None:
        check_loss_inputs(baseline, baseline, None)
        if baseline.dtype != log_probs.dtype:
            raise TypeError("baseline must have log_probs' dtype")
        baseline = torch.broadcast_to(baseline, returns.shape)
    advantage = _advantage(returns, baseline)
    return -(log_probs * advantage).sum() / max(log_probs.numel(), 1)
