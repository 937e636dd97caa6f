"""The residual as the target with the draft's share removed, min(p, q) subtracted; draws by counting the
cumulative sums that do not exceed u; float32 stays float32."""

import torch

from helpers import check_distributions, check_draft


def residual_distribution(p, q):
    check_distributions(p, q)
    p, q = p.detach(), q.detach()
    excess = p - torch.minimum(p, q)  # = max(p - q, 0)
    total = excess.sum(dim=-1, keepdim=True)
    has_excess = total > 0
    return torch.where(has_excess, excess / total.masked_fill(~has_excess, 1.0), p)


def _draw(row, u):
    cdf = torch.cumsum(row, dim=0)
    index = int((cdf <= u).sum())
    last = int(torch.arange(row.numel())[row > 0][-1])
    return min(index, last)


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    p, q = p.detach(), q.detach()
    for i in range(q.shape[0]):
        x = int(draft_tokens[i])
        if not bool(accept_u[i].to(p.dtype) * q[i, x] < p[i, x]):
            return i, _draw(residual_distribution(p[i], q[i]), sample_u)
    return q.shape[0], _draw(p[-1], sample_u)
