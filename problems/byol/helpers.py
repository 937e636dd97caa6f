"""BYOL: the validation helpers, supplied and read-only.

`from helpers import check_batches, check_pair, check_tau` in your solution (the starter does)."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_tensor(name, t):
    """Raise TypeError unless t is a float32 or float64 tensor."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def check_pair(first_name, first, second_name, second):
    """Raise TypeError / ValueError unless both tensors share a float dtype, a device and a shape, all finite."""
    check_tensor(first_name, first)
    check_tensor(second_name, second)
    if first.dtype != second.dtype:
        raise TypeError(f"{first_name} and {second_name} must share a dtype, got {first.dtype} and {second.dtype}")
    if first.device != second.device:
        raise ValueError(f"{first_name} and {second_name} must be on one device, got {first.device} and "
                         f"{second.device}")
    if first.shape != second.shape:
        raise ValueError(f"{first_name} and {second_name} must have the same shape (no broadcasting), got "
                         f"{tuple(first.shape)} and {tuple(second.shape)}")
    if not (torch.isfinite(first).all() and torch.isfinite(second).all()):
        raise ValueError(f"{first_name} and {second_name} must contain only finite values")


def check_batches(online_prediction, target_projection):
    """Raise TypeError / ValueError unless both are matching finite float32/float64 [N, D] tensors, N, D >= 1."""
    check_pair("online_prediction", online_prediction, "target_projection", target_projection)
    if online_prediction.dim() != 2 or online_prediction.shape[0] < 1 or online_prediction.shape[1] < 1:
        raise ValueError(f"online_prediction and target_projection must be [N, D] with N >= 1 and D >= 1, got "
                         f"shape {tuple(online_prediction.shape)}")


def check_tau(tau):
    """Raise TypeError unless tau is a Python int or float (not bool), ValueError unless it is in [0, 1]."""
    if isinstance(tau, bool) or not isinstance(tau, int | float):
        raise TypeError(f"tau must be a Python int or float, got {type(tau).__name__}")
    if not math.isfinite(tau) or not 0 <= tau <= 1:
        raise ValueError(f"tau must be a finite number in [0, 1], got {tau}")


# ---------------------------------------------------------------------------------------------- the experiment
# The toy run of the notes' chart, shared by the grader and the worker: the grader rebuilds every step of a run with
# these same functions, so both sides compute the same bits.


def toy_start(seed, tau):
    """The seeded generator, sixteen points in 6-D, and the two runs: BYOL (a predictor, a target that moves with
    `tau`) and a plain one (no predictor, the target is the online encoder itself)."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(16, 6, generator=generator, dtype=torch.float64)
    w0 = 0.5 * torch.randn(6, 4, generator=generator, dtype=torch.float64)
    p0 = torch.eye(4, dtype=torch.float64) + 0.1 * torch.randn(4, 4, generator=generator, dtype=torch.float64)
    runs = [{"w": w0, "p": p0, "target": w0, "tau": tau}, {"w": w0, "p": None, "target": w0, "tau": 0.0}]
    return generator, x, runs


def toy_calls(runs, generator, x):
    """One step's two noisy views, and the arguments of its byol_loss calls: per run, each view's prediction
    against the target's projection of the other view."""
    x1 = x + 0.3 * torch.randn(16, 6, generator=generator, dtype=torch.float64)
    x2 = x + 0.3 * torch.randn(16, 6, generator=generator, dtype=torch.float64)
    calls = []
    for run in runs:
        z1, z2 = x1 @ run["w"], x2 @ run["w"]
        pred1, pred2 = (z1, z2) if run["p"] is None else (z1 @ run["p"], z2 @ run["p"])
        calls += [(pred1.requires_grad_(), x2 @ run["target"]), (pred2.requires_grad_(), x1 @ run["target"])]
    return x1, x2, calls


def toy_step(run, x1, x2, g1, g2, lr):
    """One SGD step of the run's encoder (and predictor) from the loss's gradients into the two predictions,
    chained through pred = x W P with the old W and P."""
    if run["p"] is None:
        grad_w = x1.T @ g1 + x2.T @ g2
    else:
        z1, z2 = x1 @ run["w"], x2 @ run["w"]
        grad_w = x1.T @ (g1 @ run["p"].T) + x2.T @ (g2 @ run["p"].T)
        run["p"] = run["p"] - lr * (z1.T @ g1 + z2.T @ g2)
    run["w"] = run["w"] - lr * grad_w


def toy_run(functions, seed, steps, lr, tau):
    """The chart's two runs with your byol_loss and target_update, every step as the grader makes it. Returns, for
    each step, each byol_loss call's (loss, its gradient in the prediction) and each run's new target. Each call
    gets its own copy of its inputs, so a function that writes to one changes nothing the run goes on from."""
    byol_loss, target_update = functions["byol_loss"], functions["target_update"]
    generator, x, runs = toy_start(seed, tau)
    records = []
    for _ in range(steps):
        x1, x2, calls = toy_calls(runs, generator, x)
        answers = []
        for prediction, target in calls:
            loss = byol_loss(prediction, target.clone())
            (gradient,) = torch.autograd.grad(loss, prediction)
            answers.append((loss.detach(), gradient))
        for index, run in enumerate(runs):
            toy_step(run, x1, x2, answers[2 * index][1], answers[2 * index + 1][1], lr)
        targets = [target_update(run["w"].clone(), run["target"].clone(), run["tau"]) for run in runs]
        for run, target in zip(runs, targets, strict=True):
            run["target"] = target
        records.append((answers, targets))
    return records
