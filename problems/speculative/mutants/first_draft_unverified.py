"""This is what you get when the first drafted token is accepted without the test: only the later drafts are verified, and the first token follows the draft instead of the target.

Overrides: speculative_step
Source: ohdearquant/lattice issue #243 (verify_draft commits draft[0] unverified)
"""


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    p, q = p.detach(), q.detach()
    for i in range(q.shape[0]):
        x = int(draft_tokens[i])
        if i > 0 and not _accepted(float(accept_u[i]), float(p[i, x]), float(q[i, x])):
            return i, _draw(_residual(p[i], q[i]), sample_u)
    return q.shape[0], _draw(p[-1], sample_u)
