"""This is what you get when the rows are flattened with .view(-1, V): a view needs memory it can regroup without copying, so p or q with non-contiguous strides (a transposed or permuted tensor) raises instead of giving the residual.

Overrides: _residual
"""


def _residual(p, q):
    V = p.shape[-1]
    p_rows, q_rows = p.view(-1, V), q.view(-1, V)  # one row per line, whatever the leading dimensions
    excess = (p_rows - q_rows).clamp_min(0)
    total = excess.sum(dim=-1, keepdim=True)
    safe = torch.where(total > 0, total, torch.ones_like(total))
    return torch.where(total > 0, excess / safe, p_rows.clone()).view(p.shape)
