"""This is what you get when draft i is checked against the target's row i + 1 (the row after it) instead of row i.

Overrides: speculative_step
"""


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    p, q = p.detach(), q.detach()
    for i in range(q.shape[0]):
        x = int(draft_tokens[i])
        if not _accepted(float(accept_u[i]), float(p[i + 1, x]), float(q[i, x])):
            return i, _draw(_residual(p[i + 1], q[i]), sample_u)
    return q.shape[0], _draw(p[-1], sample_u)
