"""The norm is accumulated in float32 whatever the gradients' dtype, so float64 gradients lose precision.

Overrides: _total_norm
"""


def _total_norm(tensors):
    norm = torch.linalg.vector_norm(torch.cat([t.reshape(-1).float() for t in tensors]))
    return norm.to(tensors[0].dtype)
