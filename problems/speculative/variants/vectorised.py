"""All drafts tested at once with gather; the first rejection found with cumprod; draws with searchsorted."""

import torch

from helpers import check_distributions, check_draft


def residual_distribution(p, q):
    check_distributions(p, q)
    excess = torch.relu(p.detach() - q.detach())
    total = excess.sum(dim=-1, keepdim=True)
    return torch.where(total > 0, excess / torch.where(total > 0, total, 1.0), p.detach()).clone()


def _draw(row, u):
    cdf = row.double().cumsum(0)
    index = int(torch.searchsorted(cdf, torch.tensor([u], dtype=torch.float64), right=True))
    if index < row.numel():
        return index
    return int(torch.nonzero(row > 0).max())


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    p, q = p.detach().double(), q.detach().double()
    G = q.shape[0]
    x = draft_tokens.view(-1, 1) if G else draft_tokens.reshape(0, 1)
    p_x = p[:G].gather(1, x).squeeze(1)  # [G]
    q_x = q.gather(1, x).squeeze(1)  # [G]
    ok = accept_u.detach().double() * q_x < p_x  # [G]
    n = int(torch.cumprod(ok.to(torch.int64), dim=0).sum()) if G else 0  # accepted before the first rejection
    if n == G:
        return n, _draw(p[G], sample_u)
    return n, _draw(residual_distribution(p[n], q[n]), sample_u)
