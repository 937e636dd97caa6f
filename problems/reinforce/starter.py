"""REINFORCE (Williams, 1992): reward-to-go returns, the surrogate loss whose gradient is the policy-gradient
estimate, and a moving-average baseline.

Implement discounted_returns, reinforce_loss and update_baseline below. The validation helpers are supplied in
helpers.py (shown read-only under the editor): each function already calls them; keep those calls.
"""

import torch

from helpers import check_baseline_inputs, check_loss_inputs, check_rewards


def discounted_returns(rewards, gamma):
    """Reward-to-go [..., T] for rewards [..., T]: G_t = r_t + gamma r_{t+1} + gamma^2 r_{t+2} + ...

    Each row (each vector along the last axis) is one episode; T may be 0. gamma is in [0, 1].
    """
    check_rewards(rewards, gamma)
    raise NotImplementedError("discounted_returns: walk each episode backwards, G_t = r_t + gamma * G_{t+1}")


def reinforce_loss(log_probs, returns, baseline=None):
    """The 0-d surrogate -(1/N) sum log_probs * (returns - baseline) over all N elements (0 when N = 0).

    log_probs, returns and baseline (None means 0) share one shape. Gradients reach log_probs only: returns and
    baseline are constants, even if they require grad.
    """
    check_loss_inputs(log_probs, returns, baseline)
    raise NotImplementedError("reinforce_loss: minus the mean of log_probs times the detached advantages")


def update_baseline(baseline, returns, momentum):
    """momentum * baseline + (1 - momentum) * mean(returns), as a new 0-d tensor that does not require grad.

    baseline is 0-d, returns any shape; an empty returns leaves the value unchanged.
    """
    check_baseline_inputs(baseline, returns, momentum)
    raise NotImplementedError("update_baseline: an exponential moving average of the mean return")
