"""This is what you get when the step goes on testing drafts after a rejection: every accepted draft is counted, although a rejection must end the step.

Overrides: speculative_step
"""


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    p, q = p.detach(), q.detach()
    accepted, rejected_at = 0, None
    for i in range(q.shape[0]):
        x = int(draft_tokens[i])
        if _accepted(float(accept_u[i]), float(p[i, x]), float(q[i, x])):
            accepted += 1
        elif rejected_at is None:
            rejected_at = i
    if rejected_at is None:
        return accepted, _draw(p[-1], sample_u)
    return accepted, _draw(_residual(p[rejected_at], q[rejected_at]), sample_u)
