"""This is what you get when the returns are standardised inside the loss ((G - mean) / std): a common training trick, but it rescales the gradient and is not the REINFORCE estimate this loss promises.

Source: pytorch/examples reinforcement_learning/reinforce.py (finish_episode standardises the returns with
(rewards - rewards.mean()) / (rewards.std() + eps) before weighting the log-probabilities)
Overrides: _advantage
"""

import torch


def _advantage(returns, baseline):
    g = returns.detach()
    if baseline is not None:
        g = g - baseline.detach()
    if g.numel() < 2:
        return g
    return (g - g.mean()) / (g.std() + torch.finfo(g.dtype).eps)
