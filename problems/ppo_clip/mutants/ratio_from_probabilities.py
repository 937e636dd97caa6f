"""This is what you get when the ratio is formed from probabilities, exp(logp_new) / exp(logp_old): right on paper, but 0 / 0 = nan once the log-probabilities are below about -104 in float32 (-745 in float64).

Source: philtabor/Youtube-Code-Repository, ReinforcementLearning/PolicyGradient/PPO/torch/ppo_torch.py (prob_ratio = new_probs.exp() / old_probs.exp())
Overrides: _ratio
"""

import torch


def _ratio(logp_new, logp_old):
    return torch.exp(logp_new) / torch.exp(logp_old.detach())
