"""Plain Python lists and floats; the acceptance as the ratio p/q compared exactly (fractions.Fraction, so no
rounding of the quotient), with q(x) = 0 treated as an infinite ratio."""

import math
from fractions import Fraction

import torch

from helpers import check_distributions, check_draft


def _residual_row(p_row, q_row):
    excess = [max(a - b, 0.0) for a, b in zip(p_row, q_row, strict=True)]
    total = math.fsum(excess)
    return [e / total for e in excess] if total > 0 else list(p_row)


def residual_distribution(p, q):
    check_distributions(p, q)
    rows_p = p.detach().double().reshape(-1, p.shape[-1]).tolist()
    rows_q = q.detach().double().reshape(-1, q.shape[-1]).tolist()
    out = [_residual_row(a, b) for a, b in zip(rows_p, rows_q, strict=True)]
    return torch.tensor(out, dtype=torch.float64).reshape(p.shape).to(p.dtype)


def _draw(row, u):
    running = 0.0
    for index, value in enumerate(row):
        running += value
        if running > u:
            return index
    return max(i for i, value in enumerate(row) if value > 0)


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    P = p.detach().double().tolist()
    Q = q.detach().double().tolist()
    for i, (x, u) in enumerate(zip(draft_tokens.tolist(), accept_u.detach().double().tolist(), strict=True)):
        ratio = Fraction(P[i][x]) / Fraction(Q[i][x]) if Q[i][x] > 0 else (math.inf if P[i][x] > 0 else 0.0)
        if not u < ratio:
            return i, _draw(_residual_row(P[i], Q[i]), sample_u)
    return len(Q), _draw(P[-1], sample_u)
