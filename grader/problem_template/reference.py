"""Reference solution for {{title}}. Its validation is helpers.py's, as the starter's.

Learners read this file on the Solution page once they solve the problem or give up; a comment that starts with
"# private:" is left out of what they see (or write solution.py for them instead)."""

from helpers import check_matrix


def normalize_rows(x):
    check_matrix(x)
    norms = x.norm(dim=1, keepdim=True)  # (N, 1)
    return x / norms.clamp_min(1e-12)  # (N, D) / (N, 1): a zero row stays zero
