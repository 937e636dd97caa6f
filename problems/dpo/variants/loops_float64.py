"""A correct solution with explicit loops over sequences, positions and pairs, computed in float64 and cast back."""

import math

import torch

from helpers import check_dpo_inputs, check_sequence_inputs


def sequence_logprob(logits, labels, mask):
    check_sequence_inputs(logits, labels, mask)
    wide = logits.to(torch.float64)
    rows = []
    for b in range(logits.shape[0]):
        total = wide.new_zeros(())
        for t in range(logits.shape[1]):
            if bool(mask[b, t]):
                row = wide[b, t]
                top = row.max()
                log_norm = top + torch.log(torch.exp(row - top).sum())
                total = total + (row[int(labels[b, t])] - log_norm)
        rows.append(total)
    if not rows:
        return logits.new_zeros((0,))
    return torch.stack(rows).to(logits.dtype)


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta=0.1):
    check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta)
    dtype = policy_chosen_logps.dtype
    pc, pr = policy_chosen_logps.to(torch.float64), policy_rejected_logps.to(torch.float64)
    rc, rr = ref_chosen_logps.detach().to(torch.float64), ref_rejected_logps.detach().to(torch.float64)
    terms, chosen, rejected = [], [], []
    for i in range(pc.shape[0]):
        c, r = beta * (pc[i] - rc[i]), beta * (pr[i] - rr[i])
        m = c - r
        # -log sigmoid(m) = max(-m, 0) + log(1 + exp(-|m|)), every exp of a non-positive number; max(-m, 0) is
        # written (|m| - m) / 2 so that autograd's derivative at m = 0 is the true -1/2
        terms.append((m.abs() - m) / 2 + torch.log1p(torch.exp(-m.abs())))
        chosen.append(c.detach())
        rejected.append(r.detach())
    loss = torch.stack(terms).sum() / len(terms)
    assert math.isfinite(float(loss.detach()))
    return loss.to(dtype), torch.stack(chosen).to(dtype), torch.stack(rejected).to(dtype)
