"""This is what you get when the average is always computed in float32 (as a mixed-precision training loop
keeps its EMA) and cast back: float64 parameters come back only float32-accurate.

Overrides: momentum_update
"""

import torch


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    m = float(momentum)
    with torch.no_grad():
        blended = m * key.detach().float() + (1.0 - m) * query.detach().float()
        return blended.to(key.dtype)
