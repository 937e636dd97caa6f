"""Speculative sampling (Leviathan et al., 2023; Chen et al., 2023): the acceptance rule and the residual.

Implement residual_distribution and speculative_step below. The validation helpers are supplied in helpers.py
(shown read-only under the editor): each function already calls them; keep those calls.
"""

import torch

from helpers import check_distributions, check_draft


def residual_distribution(p, q):
    """max(p - q, 0) renormalised over the last dimension, for p and q [..., V]; where no entry of p - q is
    positive, a copy of p. The result does not require grad."""
    check_distributions(p, q)
    raise NotImplementedError("residual_distribution: the target's excess over the draft, renormalised")


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    """(n, token), two Python ints, for target rows p [G + 1, V], draft rows q [G, V] and drafted tokens [G].

    Draft i is accepted when accept_u[i] * q[i, x_i] < p[i, x_i]. The first rejection (at n) ends the step and the
    token is drawn from residual_distribution(p[n], q[n]); if all G are accepted, n = G and the token is drawn
    from p[G]. Draws use sample_u: the smallest index whose cumulative probability exceeds it.
    """
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    raise NotImplementedError("speculative_step: accept while the target agrees enough, then draw one token")
