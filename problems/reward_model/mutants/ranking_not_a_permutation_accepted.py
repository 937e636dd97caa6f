"""This is what you get when a ranking row that repeats a response (and leaves another out) is accepted: only the
range of the indices is checked, not that each response appears exactly once.

Overrides: check_ranking_inputs
"""

import torch

_reference_check_ranking_inputs = check_ranking_inputs


def check_ranking_inputs(rewards, ranking):
    if isinstance(ranking, torch.Tensor) and ranking.dtype == torch.int64 and ranking.dim() == 2:
        stand_in = torch.arange(ranking.shape[1], device=ranking.device).expand_as(ranking)
        if isinstance(rewards, torch.Tensor) and rewards.shape == ranking.shape and rewards.shape[1] >= 2:
            if not bool(((ranking >= 0) & (ranking < ranking.shape[1])).all()):
                raise ValueError("ranking holds response indices in [0, K)")
            ranking = stand_in
    _reference_check_ranking_inputs(rewards, ranking)
