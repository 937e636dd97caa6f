"""This is what you get when the loss is summed over time and averaged over the episodes (the rows) only: for a batch [E, T] it is T times the mean over every action.

Overrides: reinforce_loss
"""


def reinforce_loss(log_probs, returns, baseline=None):
    check_loss_inputs(log_probs, returns, baseline)
    advantage = _advantage(returns, baseline)
    per_action = log_probs * advantage
    if per_action.dim() < 2:
        return -per_action.sum() / max(per_action.numel(), 1)
    episodes = per_action.reshape(-1, per_action.shape[-1])
    return -episodes.sum() / max(episodes.shape[0], 1)
