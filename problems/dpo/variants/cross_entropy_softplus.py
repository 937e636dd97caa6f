"""A correct solution with library calls: the token log-probs as minus cross_entropy (no reduction), the mask as a
float weight, and the loss through softplus."""

import torch
import torch.nn.functional as F

from helpers import check_dpo_inputs, check_sequence_inputs


def sequence_logprob(logits, labels, mask):
    check_sequence_inputs(logits, labels, mask)
    batch, length, vocab = logits.shape
    if batch * length == 0:
        return logits.new_zeros((batch,)) + logits.sum(dim=(1, 2)) * 0
    token = -F.cross_entropy(logits.reshape(-1, vocab), labels.reshape(-1), reduction="none").reshape(batch, length)
    return (token * mask.to(logits.dtype)).sum(dim=1)


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta=0.1):
    check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta)
    with torch.no_grad():
        ref_logratios = ref_chosen_logps - ref_rejected_logps
    pi_logratios = policy_chosen_logps - policy_rejected_logps
    logits = pi_logratios - ref_logratios
    loss = F.softplus(-beta * logits).mean()
    with torch.no_grad():
        chosen_rewards = beta * (policy_chosen_logps - ref_chosen_logps)
        rejected_rewards = beta * (policy_rejected_logps - ref_rejected_logps)
    return loss, chosen_rewards, rejected_rewards
