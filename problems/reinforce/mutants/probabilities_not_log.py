"""This is what you get when the loss weights the probabilities exp(log_probs) instead of the log-probabilities: the gradient misses the 1 / pi factor of the score function.

Overrides: reinforce_loss
"""


def reinforce_loss(log_probs, returns, baseline=None):
    check_loss_inputs(log_probs, returns, baseline)
    advantage = _advantage(returns, baseline)
    return -(log_probs.exp() * advantage).sum() / max(log_probs.numel(), 1)
