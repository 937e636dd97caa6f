"""DPO (Rafailov et al., 2023): sequence log-probabilities and the preference loss.

Implement the two functions below. The validation helpers are supplied in helpers.py (shown read-only under the
editor): each function already calls them; keep those calls.
"""

import torch
import torch.nn.functional as F

from helpers import check_dpo_inputs, check_sequence_inputs


def sequence_logprob(logits, labels, mask):
    """log pi(y | x) of each sequence, shape [B]: the SUM over positions t with mask[b, t] True of
    log_softmax(logits[b, t])[labels[b, t]].

    logits [B, T, V] float32/float64; labels [B, T] int64 in [0, V), ALREADY ALIGNED with the logits (logits[:, t]
    scores labels[:, t]: do not shift); mask [B, T] bool, True on completion tokens, False on prompt and padding.
    Must stay finite for logits of any size. Returns a [B] tensor of the logits' dtype.
    """
    check_sequence_inputs(logits, labels, mask)
    raise NotImplementedError("sequence_logprob: log-softmax over the vocabulary, pick each label, mask, sum over time")


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta=0.1):
    """(loss, chosen_rewards, rejected_rewards) for B preference pairs, all inputs [B].

    loss = mean over pairs of -log sigmoid(beta * ((pc - rc) - (pr - rr))), a 0-d tensor;
    chosen_rewards = beta * (pc - rc), rejected_rewards = beta * (pr - rr), both [B] and detached.
    The reference log-probs (rc, rr) must receive no gradient, even if they require one.
    """
    check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta)
    raise NotImplementedError("dpo_loss: two log-ratios against the reference, their difference times beta, "
                              "a stable -log sigmoid, the mean")
