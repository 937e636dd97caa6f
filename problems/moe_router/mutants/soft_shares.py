"""This is what you get when the routing shares f are replaced by the mean probabilities themselves: the loss becomes E * sum P^2, and the gradient also flows through what should be a count.

Overrides: load_balancing_loss
"""

import torch


def load_balancing_loss(logits, k):
    check_router_logits(logits, k, min_tokens=1)
    mean_probability = torch.softmax(logits, dim=1).mean(dim=0)
    return logits.shape[1] * (mean_probability * mean_probability).sum()
