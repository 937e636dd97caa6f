"""This is what you get when the loss sums log_probs * advantage over the batch instead of averaging it.

Overrides: reinforce_loss
"""


def reinforce_loss(log_probs, returns, baseline=None):
    check_loss_inputs(log_probs, returns, baseline)
    advantage = _advantage(returns, baseline)
    return -(log_probs * advantage).sum()
