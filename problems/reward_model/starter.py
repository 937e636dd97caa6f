"""Reward model: the Bradley-Terry pairwise loss (Christiano et al., 2017; Ouyang et al., 2022; Touvron et al., 2023).

Implement the three functions below. The validation helpers are supplied in helpers.py (shown read-only under
the editor): each function already calls them; keep those calls.
"""

import torch
import torch.nn.functional as F

from helpers import check_accuracy_inputs, check_preference_inputs, check_ranking_inputs


def preference_loss(r_chosen, r_rejected, margin=None, label=None):
    """Mean over the N pairs of -(p log sigmoid(z) + (1 - p) log sigmoid(-z)), z = r_chosen - r_rejected - margin.

    r_chosen, r_rejected: [N] rewards of the preferred and the other response of each pair (N >= 0).
    margin: None (0) or [N], subtracted from the difference (Llama 2). label: None (1) or [N] in [0, 1], the
    probability that the chosen response is the better one (0.5 = a tie). Returns a 0-d tensor; 0.0 when N = 0.
    Finite value and gradients for |z| up to 1e4 in float32 and float64.
    """
    check_preference_inputs(r_chosen, r_rejected, margin, label)
    raise NotImplementedError("preference_loss: the difference less the margin, a stable log-sigmoid, the mean")


def preference_accuracy(r_chosen, r_rejected):
    """The fraction of the N >= 1 pairs with r_chosen > r_rejected, an exact tie counting 1/2, as a Python float."""
    check_accuracy_inputs(r_chosen, r_rejected)
    raise NotImplementedError("preference_accuracy: wins, plus half the ties, over the number of pairs")


def ranking_loss(rewards, ranking):
    """InstructGPT's loss for K ranked responses per prompt.

    rewards: [P, K] (P >= 0, K >= 2). ranking: int64 [P, K], each row the response indices from best to worst.
    For each prompt, the mean over its C(K, 2) pairs (better, worse) of -log sigmoid(r_better - r_worse); then the
    mean over the prompts (0.0 when P = 0). Returns a 0-d tensor.
    """
    check_ranking_inputs(rewards, ranking)
    raise NotImplementedError("ranking_loss: every earlier response of the ranking against every later one")
