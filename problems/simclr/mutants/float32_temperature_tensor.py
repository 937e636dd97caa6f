"""This is what you get when the temperature is first made a tensor with torch.tensor(temperature): that tensor
is float32, so 0.07 becomes 0.0700000003, and float64 inputs get logits off in their eighth digit.

Overrides: _logits
Source: michaeljiao11/ganaxy, SimCLR/loss_function.py (register_buffer("temperature", torch.tensor(temperature)))
"""

import torch


def _logits(z, temperature):
    temperature = torch.tensor(temperature)  # float32, whatever z's dtype
    logits = z @ z.T / temperature
    is_self = torch.eye(z.shape[0], dtype=torch.bool, device=z.device)
    return logits.masked_fill(is_self, float("-inf"))
