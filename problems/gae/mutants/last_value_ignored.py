"""This is what you get when the rollout's end is treated as an episode end: the last step bootstraps from 0 instead of last_value, so every cut-off episode looks as if it had terminated.

Source: rohitg00/ai-engineering-from-scratch pull request #54 (review: `next_v = ... if t + 1 < T else 0.0`, "Bootstrap GAE at rollout truncation")
Overrides: _next_values
"""

import torch


def _next_values(values, last_value):
    return torch.cat([values[1:], torch.zeros_like(last_value).unsqueeze(0)])[: values.shape[0]]
