"""Hand checks for {{title}}: only what problem.toml's contract cannot say (a hand example, the special cases the
statement defines). The generic battery derived from the contract covers the rest: random inputs in every dtype
and layout against the reference, inputs unchanged, new storage, gradients, refusals. Each check states one
property, names the clauses of problem.toml it tests, and fails with a message that tells the learner what to
fix."""

import torch

from grader.checks import check, expect_close


@check("normalize_rows.hand_example", "Hand example: [3, 4] becomes [0.6, 0.8]", clauses=["normalize_rows.unit_rows"])
def hand_example(sub, ref):
    got = sub.normalize_rows(torch.tensor([[3.0, 4.0]]))
    expect_close(got, torch.tensor([[0.6, 0.8]]), hint="(each row is divided by its length, here 5)")


@check("normalize_rows.zero_row", "A zero row stays zero", clauses=["normalize_rows.zero_row"])
def zero_row(sub, ref):
    x = torch.tensor([[0.0, 0.0], [1.0, 0.0]])
    got = sub.normalize_rows(x)
    expect_close(got, torch.tensor([[0.0, 0.0], [1.0, 0.0]]),
                 hint="(divide by max(norm, 1e-12), so 0 / 1e-12 = 0 rather than 0 / 0 = nan)")
