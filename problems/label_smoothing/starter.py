"""Cross-entropy with label smoothing (Szegedy et al., 2016, section 7). Implement smoothed_cross_entropy below;
the helpers of helpers.py (read-only under the editor) check the contract for you."""

import math

import torch

from helpers import check_classes, check_logits_target, check_options


def smoothed_cross_entropy(logits, target, epsilon=0.1, ignore_index=-100):
    """Mean over non-ignored rows of -sum_c q_c log p_c, with q = (1 - epsilon) one-hot(target) + epsilon / C.

    logits: [N, C] float; target: [N] int64 (a class, or ignore_index). Returns a 0-d tensor of logits' dtype;
    0.0 (with zero gradient) when every row is ignored.
    """
    check_logits_target(logits, target)
    check_options(epsilon, ignore_index)
    check_classes(target, logits.shape[1], ignore_index)
    # 1. a stable log-softmax over the classes (subtract the log-sum-exp of each row)
    # 2. per row: (1 - epsilon) * (-log p of the target) + epsilon * mean over all C classes of (-log p)
    #    (ignored rows have no valid target: give them any class, then zero their loss)
    # 3. divide the sum by the number of rows that count, at least 1
    raise NotImplementedError("smoothed_cross_entropy: follow steps 1-3 above")
