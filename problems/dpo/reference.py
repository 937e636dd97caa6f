"""Reference solution for the DPO problem (Rafailov et al., 2023, "Direct Preference Optimization: Your Language
Model is Secretly a Reward Model")."""

import torch
import torch.nn.functional as F

from helpers import check_dpo_inputs, check_sequence_inputs


def sequence_logprob(logits, labels, mask):
    """log pi(y | x) of each sequence: the sum over the positions where mask is True of
    log_softmax(logits[b, t])[labels[b, t]]. Labels are already aligned with the logits (logits[:, t] scores
    labels[:, t]); nothing is shifted here. logits [B, T, V], labels [B, T] int64, mask [B, T] bool -> [B]."""
    check_sequence_inputs(logits, labels, mask)
    token_logps = _token_logps(logits, labels)  # [B, T]
    return _masked_sum(token_logps, mask)  # [B]


def _token_logps(logits, labels):
    # log_softmax subtracts each row's maximum before exponentiating: finite for logits of any size
    logps = torch.log_softmax(logits, dim=-1)  # [B, T, V]
    return logps.gather(-1, labels.unsqueeze(-1)).squeeze(-1)  # [B, T]: the log-prob of each label


def _masked_sum(token_logps, mask):
    # the mask is applied before the sum, and the sum is not divided by anything: log pi(y | x) of the whole
    # completion is the sum of its tokens' log-probs
    return torch.where(mask, token_logps, torch.zeros_like(token_logps)).sum(dim=-1)  # [B]


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta=0.1):
    """(loss, chosen_rewards, rejected_rewards) for B preference pairs: loss = mean over pairs of
    -log sigmoid(beta * ((pc - rc) - (pr - rr))); chosen_rewards = beta * (pc - rc) and rejected_rewards =
    beta * (pr - rr), both detached. The reference log-probs never receive a gradient."""
    check_dpo_inputs(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps, beta)
    ref_chosen = ref_chosen_logps.detach()  # the reference model is frozen: detach inside, whatever the caller did
    ref_rejected = ref_rejected_logps.detach()
    chosen_ratio = policy_chosen_logps - ref_chosen  # [B]: log pi(y_w | x) / pi_ref(y_w | x)
    rejected_ratio = policy_rejected_logps - ref_rejected  # [B]
    margin = beta * (chosen_ratio - rejected_ratio)  # [B]: the implicit reward margin
    losses = _neg_log_sigmoid(margin)  # [B]
    chosen_rewards = (beta * chosen_ratio).detach()  # reported, not trained through
    rejected_rewards = (beta * rejected_ratio).detach()
    return losses.mean(), chosen_rewards, rejected_rewards


def _neg_log_sigmoid(x):
    # -log sigmoid(x) = softplus(-x): finite and exact at any margin (log(sigmoid(x)) is log 0 = -inf once
    # sigmoid underflows, near x = -104 in float32)
    return -F.logsigmoid(x)
