"""Reference NT-Xent loss (SimCLR). The checks compare submissions with it."""

import torch

from helpers import check_temperature, check_views

NORM_FLOOR = 1e-12  # rows are divided by max(||z||, NORM_FLOOR): a zero row stays zero instead of 0 / 0


def _unit_rows(z):
    """Step 1: each row divided by max(its L2 norm, NORM_FLOOR)."""
    return z / z.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR)  # (2N, D) / (2N, 1)


def _logits(z, temperature):
    """Step 2 and the first half of step 3: cosine / T between every two views, a view's own entry removed."""
    logits = z @ z.T / temperature  # (2N, D) x (D, 2N) -> (2N, 2N) cosine / T
    is_self = torch.eye(z.shape[0], dtype=torch.bool, device=z.device)
    return logits.masked_fill(is_self, float("-inf"))  # a view is never its own candidate


def _partners(n, device):
    """View i of z1 pairs with view i of z2, and back: partner(k) = (k + N) mod 2N."""
    return (torch.arange(2 * n, device=device) + n) % (2 * n)


def _per_anchor(logits, partner):
    """Steps 3 and 4: a stable logsumexp over each row's candidates minus the partner's logit."""
    rows = torch.arange(logits.shape[0], device=logits.device)
    positive = logits[rows, partner]  # (2N,)
    return torch.logsumexp(logits, dim=1) - positive  # (2N,) the positive stays in the denominator


def nt_xent_loss(z1, z2, temperature):
    check_views(z1, z2)
    check_temperature(temperature)
    n = z1.shape[0]
    z = _unit_rows(torch.cat([z1, z2], dim=0))  # (2N, D): rows 0..N-1 are the first views, N..2N-1 their partners
    per_anchor = _per_anchor(_logits(z, temperature), _partners(n, z.device))
    return per_anchor.mean()  # symmetric: all 2N anchors, both directions
