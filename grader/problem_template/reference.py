"""Reference solution for {{title}} (hidden from learners). Its validation is helpers.py's, as the starter's."""

from helpers import check_matrix


def normalize_rows(x):
    check_matrix(x)
    norms = x.norm(dim=1, keepdim=True)  # (N, 1)
    return x / norms.clamp_min(1e-12)  # (N, D) / (N, 1): a zero row stays zero
