"""Reference solution for the reward-model problem: the Bradley-Terry pairwise loss (Christiano et al., 2017;
Ouyang et al., 2022), Llama 2's margin (Touvron et al., 2023), soft labels, the pairwise accuracy and InstructGPT's
K-choose-2 ranking loss."""

import torch
import torch.nn.functional as F

from helpers import check_accuracy_inputs, check_preference_inputs, check_ranking_inputs


def _logit(r_chosen, r_rejected, margin):
    """z = r_chosen - r_rejected - margin: the log-odds that the chosen response wins, less the margin."""
    z = r_chosen - r_rejected
    if margin is not None:
        z = z - margin  # Llama 2: the chosen reward must clear the rejected one by the margin
    return z


def _pair_losses(z, label):
    """-(p log sigma(z) + (1 - p) log sigma(-z)) per pair, with log sigma from logsigmoid (never log of a sigmoid)."""
    if label is None:
        return -F.logsigmoid(z)  # p = 1: the chosen response won
    return -(label * F.logsigmoid(z) + (1 - label) * F.logsigmoid(-z))


def _mean(losses):
    """Mean over the pairs; 0 for an empty batch, still attached to the graph."""
    return losses.sum() / max(losses.numel(), 1)


def preference_loss(r_chosen, r_rejected, margin=None, label=None):
    """Mean over N pairs of -(p log sigma(z) + (1 - p) log sigma(-z)), z = r_chosen - r_rejected - margin."""
    check_preference_inputs(r_chosen, r_rejected, margin, label)
    return _mean(_pair_losses(_logit(r_chosen, r_rejected, margin), label))


def preference_accuracy(r_chosen, r_rejected):
    """The fraction of pairs with r_chosen > r_rejected, an exact tie counting 1/2, as a Python float."""
    check_accuracy_inputs(r_chosen, r_rejected)
    with torch.no_grad():
        wins = (r_chosen > r_rejected).double()
        ties = (r_chosen == r_rejected).double()
        return float((wins + 0.5 * ties).mean())


def ranking_loss(rewards, ranking):
    """InstructGPT: for each prompt, the mean over its C(K, 2) ordered pairs of -log sigma(r_better - r_worse),
    then the mean over the P prompts."""
    check_ranking_inputs(rewards, ranking)
    k = rewards.shape[1]
    ordered = rewards.gather(1, ranking)  # [P, K]: column 0 is the best response's reward
    better, worse = torch.triu_indices(k, k, offset=1, device=rewards.device)  # every position a < b
    z = ordered[:, better] - ordered[:, worse]  # [P, C(K, 2)]
    per_prompt = -F.logsigmoid(z).mean(dim=1)  # the 1 / C(K, 2) weighting
    return _mean(per_prompt)
