"""This is what you get when the whole product log_probs * advantage is detached instead of the advantage alone: the loss has the right value but no gradient reaches the policy.

Overrides: reinforce_loss
"""


def reinforce_loss(log_probs, returns, baseline=None):
    check_loss_inputs(log_probs, returns, baseline)
    advantage = _advantage(returns, baseline)
    return -(log_probs * advantage).detach().sum() / max(log_probs.numel(), 1)
