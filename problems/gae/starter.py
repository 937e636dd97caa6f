"""Generalized advantage estimation (Schulman, Moritz, Levine, Jordan & Abbeel, 2016).

Implement gae and discounted_returns below. The validation helpers are supplied in helpers.py (shown read-only
under the editor): each function already calls them; keep those calls.
"""

import torch

from helpers import check_factor, check_returns_rollout, check_rollout


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    """Advantages and lambda-returns of a time-major rollout.

    rewards, values: [T] or [T, N] float tensors (time first, one column per environment); dones: bool, same
    shape, True where the episode ENDED at that step; last_value: [] or [N], V of the state after the last step.

    delta_t = r_t + gamma * (1 - done_t) * V_{t+1} - V_t   (V_{t+1} = last_value at the last step)
    A_t     = delta_t + gamma * lam * (1 - done_t) * A_{t+1},   A_T = 0

    Returns (advantages, advantages + values), both shaped like rewards, in rewards' dtype, detached.
    """
    check_rollout(rewards, values, dones, last_value)
    gamma, lam = check_factor("gamma", gamma), check_factor("lam", lam)
    raise NotImplementedError("gae: TD errors, then a backward recursion cut by the done flags")


def discounted_returns(rewards, dones, last_value, gamma=0.99):
    """G_t = r_t + gamma * (1 - done_t) * G_{t+1}, with G_T = last_value. Shaped like rewards, detached."""
    check_returns_rollout(rewards, dones, last_value)
    gamma = check_factor("gamma", gamma)
    raise NotImplementedError("discounted_returns: a backward running sum cut by the done flags")
