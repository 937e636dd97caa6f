"""This is what you get when the acceptance compares p(x) with the target's largest probability instead of with the draft's q(x): the draft's own probability never enters the test.

Overrides: speculative_step
Source: 1bit-MONSTER/1bit-MONSTER issue #637 (the acceptance probability divides by the target's argmax probability)
"""


def speculative_step(p, q, draft_tokens, accept_u, sample_u):
    check_distributions(p, q, extra_target_row=True)
    sample_u = check_draft(draft_tokens, accept_u, sample_u, q)
    p, q = p.detach(), q.detach()
    for i in range(q.shape[0]):
        x = int(draft_tokens[i])
        if not _accepted(float(accept_u[i]), float(p[i, x]), float(p[i].max())):
            return i, _draw(_residual(p[i], q[i]), sample_u)
    return q.shape[0], _draw(p[-1], sample_u)
