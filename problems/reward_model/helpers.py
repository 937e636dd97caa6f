"""Validation for the reward-model problem, supplied to every solution and read-only:
`from helpers import check_preference_inputs, check_accuracy_inputs, check_ranking_inputs`.

Each function raises exactly the errors the contract promises (TypeError for the wrong kind of value, ValueError
for a value out of range); call it first, then compute."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_float_tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def _check_finite(name, t):
    if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} has non-finite entries (nan or inf)")


def _check_rewards_pair(r_chosen, r_rejected):
    _check_float_tensor("r_chosen", r_chosen)
    _check_float_tensor("r_rejected", r_rejected)
    if r_rejected.dtype != r_chosen.dtype:
        raise TypeError(f"r_rejected must have r_chosen's dtype {r_chosen.dtype}, got {r_rejected.dtype}")
    if r_chosen.dim() != 1:
        raise ValueError(f"r_chosen must be 1-D [N] (one reward per pair), got shape {tuple(r_chosen.shape)}")
    if r_rejected.shape != r_chosen.shape:
        raise ValueError(f"r_rejected must have r_chosen's shape {tuple(r_chosen.shape)}, got "
                         f"{tuple(r_rejected.shape)}")
    if r_rejected.device != r_chosen.device:
        raise ValueError(f"r_rejected must be on r_chosen's device {r_chosen.device}, got {r_rejected.device}")


def check_preference_inputs(r_chosen, r_rejected, margin=None, label=None):
    """r_chosen, r_rejected: float32/float64 tensors [N] (N >= 0) of one dtype and device, finite. margin and
    label: None, or tensors like r_chosen; label's values in [0, 1]."""
    _check_rewards_pair(r_chosen, r_rejected)
    optional = [(name, t) for name, t in (("margin", margin), ("label", label)) if t is not None]
    for name, t in optional:
        _check_float_tensor(name, t)
        if t.dtype != r_chosen.dtype:
            raise TypeError(f"{name} must have r_chosen's dtype {r_chosen.dtype}, got {t.dtype}")
    for name, t in optional:
        if t.shape != r_chosen.shape:
            raise ValueError(f"{name} must have r_chosen's shape {tuple(r_chosen.shape)}, got {tuple(t.shape)}")
        if t.device != r_chosen.device:
            raise ValueError(f"{name} must be on r_chosen's device {r_chosen.device}, got {t.device}")
    for name, t in (("r_chosen", r_chosen), ("r_rejected", r_rejected), *optional):
        _check_finite(name, t)
    if label is not None and label.device.type != "meta":
        if not bool(((label >= 0) & (label <= 1)).all()):
            raise ValueError("label must hold probabilities in [0, 1] (1 = chosen preferred, 0.5 = a tie)")


def check_accuracy_inputs(r_chosen, r_rejected):
    """r_chosen, r_rejected: float32/float64 tensors [N] with N >= 1, of one dtype and device, finite."""
    _check_rewards_pair(r_chosen, r_rejected)
    if r_chosen.shape[0] == 0:
        raise ValueError("preference_accuracy needs at least one pair: the accuracy of an empty batch is undefined")
    _check_finite("r_chosen", r_chosen)
    _check_finite("r_rejected", r_rejected)


def check_ranking_inputs(rewards, ranking):
    """rewards: a float32/float64 tensor [P, K] (P >= 0 prompts, K >= 2 responses each), finite. ranking: an int64
    tensor [P, K] on the same device whose every row is a permutation of 0..K-1, the response indices from best
    to worst."""
    _check_float_tensor("rewards", rewards)
    if not isinstance(ranking, torch.Tensor):
        raise TypeError(f"ranking must be a torch.Tensor, got {type(ranking).__name__}")
    if ranking.dtype != torch.int64:
        raise TypeError(f"ranking must be an int64 tensor of response indices, got {ranking.dtype}")
    if rewards.dim() != 2 or rewards.shape[1] < 2:
        raise ValueError(f"rewards must be [P, K] with K >= 2 responses per prompt, got shape {tuple(rewards.shape)}")
    if ranking.shape != rewards.shape:
        raise ValueError(f"ranking must have rewards' shape {tuple(rewards.shape)}, got {tuple(ranking.shape)}")
    if ranking.device != rewards.device:
        raise ValueError(f"ranking must be on rewards' device {rewards.device}, got {ranking.device}")
    _check_finite("rewards", rewards)
    if ranking.device.type == "meta":
        return
    k = rewards.shape[1]
    if not bool(((ranking >= 0) & (ranking < k)).all()):
        raise ValueError(f"ranking holds response indices in [0, {k})")
    expected = torch.arange(k, device=ranking.device).expand_as(ranking)
    if not bool((ranking.sort(dim=1).values == expected).all()):
        raise ValueError("every row of ranking must be a permutation of 0..K-1 (each response exactly once)")


# ---------------------------------------------------------------------------------------------- the experiment
# The training run of the notes' chart, shared by the grader and the worker: the grader rebuilds every step of the
# run with these same functions, so both sides compute the same bits.


def linear_step(w, chosen, rejected, g_chosen, g_rejected, lr):
    """The linear reward's weights after one step of gradient descent, from the loss's gradients into the chosen
    and the rejected rewards, chained through rewards = features @ w."""
    return w - lr * (chosen.T @ g_chosen.double() + rejected.T @ g_rejected.double())


def linear_run(functions, chosen, rejected, steps, lr):
    """Full-batch gradient descent on a linear reward w . x with your preference_loss, from w = 0, as the grader
    makes it: steps + 1 calls, the last one only measured. Returns each call's (loss, its gradients into r_chosen
    and r_rejected). Each call gets rewards of its own, so a function that writes to them changes nothing the run
    goes on from."""
    preference_loss = functions["preference_loss"]
    w = torch.zeros(chosen.shape[1], dtype=torch.float64)
    records = []
    for step in range(steps + 1):
        r_chosen, r_rejected = (chosen @ w).requires_grad_(True), (rejected @ w).requires_grad_(True)
        loss = preference_loss(r_chosen, r_rejected)
        g_chosen, g_rejected = torch.autograd.grad(loss, (r_chosen, r_rejected))
        records.append((loss.detach(), g_chosen, g_rejected))
        if step < steps:
            w = linear_step(w, chosen, rejected, g_chosen, g_rejected, lr)
    return records
