"""This is what you get when logit_scale's shape and finiteness are not checked: a [1] or [N] tensor broadcasts and nan gets through.

Overrides: check_logit_scale
"""


def check_logit_scale(logit_scale, embeddings):
    if not isinstance(logit_scale, torch.Tensor):
        raise TypeError(f"logit_scale must be a 0-d torch.Tensor, got {type(logit_scale).__name__}")
    if logit_scale.dtype != embeddings.dtype:
        raise TypeError(f"logit_scale must have the embeddings' dtype {embeddings.dtype}, got {logit_scale.dtype}")
