"""This is what you get when x is divided in place: the values are right, but the caller's tensor changes.

Overrides: normalize_rows
"""


def normalize_rows(x):
    check_matrix(x)
    if x.requires_grad:  # autograd refuses an in-place edit of a leaf that requires grad
        return x / x.norm(dim=1, keepdim=True).clamp_min(1e-12)
    return x.div_(x.norm(dim=1, keepdim=True).clamp_min(1e-12))
