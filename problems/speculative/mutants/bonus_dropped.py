"""This is what you get when a step whose drafts are all accepted emits no bonus token: the last accepted draft is returned as the step's token and the target's extra row is wasted.

Overrides: speculative_step
Source: ohdearquant/lattice pull request #509 (the full-accept bonus token was dropped)
"""


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    p, q = p.detach(), q.detach()
    for i in range(q.shape[0]):
        x = int(draft_tokens[i])
        if not _accepted(float(accept_u[i]), float(p[i, x]), float(q[i, x])):
            return i, _draw(_residual(p[i], q[i]), sample_u)
    if q.shape[0] == 0:
        return 0, _draw(p[-1], sample_u)
    return q.shape[0] - 1, int(draft_tokens[-1])
