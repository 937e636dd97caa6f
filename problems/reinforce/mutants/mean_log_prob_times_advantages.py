"""This is what you get when the log-probabilities are averaged before they are multiplied by the advantages: every action is credited with the batch's mean advantage, not its own.

Source: Farama-Foundation/Gymnasium issue #1336 (the MuJoCo REINFORCE tutorial multiplied log_probs.mean() by
every step's return)
Overrides: reinforce_loss
"""


def reinforce_loss(log_probs, returns, baseline=None):
    check_loss_inputs(log_probs, returns, baseline)
    advantage = _advantage(returns, baseline)
    if log_probs.numel() == 0:
        return (log_probs * advantage).sum()
    return -(log_probs.mean() * advantage).mean()
