"""The squares are summed in the gradients' dtype without rescaling, so 1e30 overflows and 1e-30 underflows in float32.

Overrides: _total_norm
Source: https://github.com/tracel-ai/burn/issues/5699 (square().sum().sqrt() overflows and zeroes a finite FP16 gradient);
https://github.com/facebookresearch/fairscale/pull/263
"""


def _total_norm(tensors):
    return torch.stack([(t * t).sum() for t in tensors]).sum().sqrt()
