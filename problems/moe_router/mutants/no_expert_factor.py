"""This is what you get when the sum is not multiplied by the number of experts: an even load gives 1/E instead of 1.

Overrides: load_balancing_loss
"""

_reference_loss = load_balancing_loss


def load_balancing_loss(logits, k):
    return _reference_loss(logits, k) / logits.shape[1]
