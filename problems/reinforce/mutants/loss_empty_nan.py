"""This is what you get when the loss takes .mean() with no guard: an empty batch gives 0 / 0 = nan.

Overrides: reinforce_loss
"""


def reinforce_loss(log_probs, returns, baseline=None):
    check_loss_inputs(log_probs, returns, baseline)
    advantage = _advantage(returns, baseline)
    return -(log_probs * advantage).mean()
