"""This is what you get when acceptance tests u < p(x) / q(x) with the quotient rounded in the tensors' dtype instead of comparing u * q(x) < p(x): where the quotient rounds down onto u, a draft that must be accepted is rejected.

Overrides: speculative_step
"""


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    p, q = p.detach(), q.detach()
    for i in range(q.shape[0]):
        x = int(draft_tokens[i])
        if not bool(accept_u[i] < p[i, x] / q[i, x]):
            return i, _draw(_residual(p[i], q[i]), sample_u)
    return q.shape[0], _draw(p[-1], sample_u)
