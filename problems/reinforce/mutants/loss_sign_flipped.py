"""This is what you get when the loss is +mean(log_probs * advantage): gradient descent then lowers the probability of the actions that paid off.

Source: ikostrikov/pytorch-a3c issue #30 (a reader proposed dropping the minus sign of the policy loss; the
equations are written for ascent, the optimiser descends)
Overrides: reinforce_loss
"""


def reinforce_loss(log_probs, returns, baseline=None):
    check_loss_inputs(log_probs, returns, baseline)
    advantage = _advantage(returns, baseline)
    return (log_probs * advantage).sum() / max(log_probs.numel(), 1)
