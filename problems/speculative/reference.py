"""Reference solution for the speculative sampling problem. Trusted: imported only in the judge's process."""

import torch

from helpers import check_distributions, check_draft


def residual_distribution(p, q):
    """norm(max(p - q, 0)) row by row; p itself for a row where p never exceeds q (then p equals q)."""
    check_distributions(p, q)
    return _residual(p.detach(), q.detach())


def _residual(p, q):
    excess = (p - q).clamp_min(0)  # [..., V]
    total = excess.sum(dim=-1, keepdim=True)  # [..., 1]
    safe = torch.where(total > 0, total, torch.ones_like(total))  # no 0/0, even in the branch not taken
    return torch.where(total > 0, excess / safe, p.clone())


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    """(accepted, token): how many drafted tokens the target accepts, and the token it emits after them."""
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    p, q = p.detach(), q.detach()
    for i in range(q.shape[0]):
        x = int(draft_tokens[i])
        if not _accepted(float(accept_u[i]), float(p[i, x]), float(q[i, x])):
            return i, _draw(_residual(p[i], q[i]), sample_u)  # the first rejection ends the step
    return q.shape[0], _draw(p[-1], sample_u)  # every draft accepted: a bonus token from the last target row


def _accepted(u, p_x, q_x):
    """Accept with probability min(1, p(x) / q(x)): u < p/q, written without a division (q(x) may be 0)."""
    return u * q_x < p_x


def _draw(probs, u):
    """The smallest index whose cumulative probability exceeds u; the last nonzero one if rounding leaves none."""
    cdf = torch.cumsum(probs.double(), dim=0)
    above = (cdf > u).nonzero()
    if len(above):
        return int(above[0, 0])
    return int((probs > 0).nonzero()[-1, 0])
