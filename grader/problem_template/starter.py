"""{{title}}: implement normalize_rows. check_matrix (helpers.py, shown under the editor) checks the contract;
keep calling it."""

import torch

from helpers import check_matrix


def normalize_rows(x):
    """Return x with every row divided by max(its L2 norm, 1e-12)."""
    check_matrix(x)
    raise NotImplementedError("normalize_rows: divide each row by max(its L2 norm, 1e-12)")
