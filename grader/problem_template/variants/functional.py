"""Variant: torch.nn.functional.normalize implements the same max(norm, eps) floor."""

import torch.nn.functional as F

from helpers import check_matrix


def normalize_rows(x):
    check_matrix(x)
    return F.normalize(x, p=2.0, dim=1, eps=1e-12)
