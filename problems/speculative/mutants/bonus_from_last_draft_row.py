"""This is what you get when the bonus token is drawn from the target's row at the last drafted position, p[G - 1], instead of the extra row p[G].

Overrides: speculative_step
"""


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    p, q = p.detach(), q.detach()
    for i in range(q.shape[0]):
        x = int(draft_tokens[i])
        if not _accepted(float(accept_u[i]), float(p[i, x]), float(q[i, x])):
            return i, _draw(_residual(p[i], q[i]), sample_u)
    return q.shape[0], _draw(p[max(q.shape[0] - 1, 0)], sample_u)
