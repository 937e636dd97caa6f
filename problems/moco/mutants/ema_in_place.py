"""updates key in place like the official training loop (param_k.mul_(m).add_(...)).

Overrides: momentum_update
Source: facebookresearch/moco moco/builder.py, _momentum_update_key_encoder: param_k.mul_(m)
"""

import torch


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    m = float(momentum)
    with torch.no_grad():
        key.mul_(m).add_(query, alpha=1.0 - m)
        return key.detach().clone()
