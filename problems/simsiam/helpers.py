"""SimSiam: the validation helpers, supplied and read-only.

`from helpers import check_views` in your solution (the starter does)."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


NAMES = ("p1", "p2", "z1", "z2")


def check_views(p1, p2, z1, z2):
    """Raise TypeError / ValueError unless all four are matching finite float32/float64 [N, D] tensors."""
    tensors = (p1, p2, z1, z2)
    for name, t in zip(NAMES, tensors, strict=True):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    for name, t in zip(NAMES, tensors, strict=True):
        if t.dtype != p1.dtype:
            raise TypeError(f"{name} has dtype {t.dtype} but p1 has {p1.dtype}; all four must share one")
        if t.device != p1.device:
            raise ValueError(f"{name} is on {t.device} but p1 is on {p1.device}")
        if t.shape != p1.shape:
            raise ValueError(f"{name} has shape {tuple(t.shape)} but p1 has {tuple(p1.shape)} (no broadcasting)")
    if p1.dim() != 2 or p1.shape[0] < 1 or p1.shape[1] < 1:
        raise ValueError(f"p1, p2, z1 and z2 must be [N, D] with N >= 1 and D >= 1, got shape {tuple(p1.shape)}")
    for name, t in zip(NAMES, tensors, strict=True):
        if not torch.isfinite(t).all():
            raise ValueError(f"{name} must contain only finite values")


# ---------------------------------------------------------------------------------------------- the experiment
# The toy runs of the notes' chart, shared by the grader and the worker: the grader rebuilds every step of a run
# with these same functions, so both sides compute the same bits.


def toy_start(seed):
    """The seeded generator, sixteen points in 6-D, and the two runs (with and without the stop-gradient), each an
    encoder z = x W + b (6 -> 4) and a predictor p = z P, from the same start."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(16, 6, generator=generator, dtype=torch.float64)
    w0 = 0.5 * torch.randn(6, 4, generator=generator, dtype=torch.float64)
    p0 = torch.eye(4, dtype=torch.float64) + 0.1 * torch.randn(4, 4, generator=generator, dtype=torch.float64)
    runs = [{"w": w0, "b": torch.zeros(4, dtype=torch.float64), "p": p0} for _ in range(2)]
    return generator, x, runs


def toy_calls(runs, generator, x, noise):
    """One step's two noisy views, each run's projections (z1, z2), and the arguments of its simsiam_loss calls:
    each run's predictions against its projections, then for the run without the stop-gradient the projections as
    predictions (their gradient through D(p, z))."""
    x1 = x + noise * torch.randn(16, 6, generator=generator, dtype=torch.float64)
    x2 = x + noise * torch.randn(16, 6, generator=generator, dtype=torch.float64)
    calls, forward = [], []
    for index, run in enumerate(runs):
        z1, z2 = x1 @ run["w"] + run["b"], x2 @ run["w"] + run["b"]
        p1, p2 = z1 @ run["p"], z2 @ run["p"]
        forward.append((z1, z2))
        calls.append((p1.requires_grad_(), p2.requires_grad_(), z1, z2))
        if index == 1:
            calls.append((z2.clone().requires_grad_(), z1.clone().requires_grad_(), p2.detach(), p1.detach()))
    return x1, x2, forward, calls


def toy_step(runs, x1, x2, forward, gradients, lr):
    """Both runs after one SGD step, from each simsiam_loss call's gradients (into p1, p2), in the calls' order."""
    for index, run in enumerate(runs):
        z1, z2 = forward[index]
        g1, g2 = gradients[index]
        grad_z1, grad_z2 = g1 @ run["p"].T, g2 @ run["p"].T  # through p = z P
        if index == 1:
            swapped = gradients[index + 1]
            grad_z2, grad_z1 = grad_z2 + swapped[0], grad_z1 + swapped[1]
        run["p"] = run["p"] - lr * (z1.T @ g1 + z2.T @ g2)
        run["w"] = run["w"] - lr * (x1.T @ grad_z1 + x2.T @ grad_z2)
        run["b"] = run["b"] - lr * (grad_z1.sum(dim=0) + grad_z2.sum(dim=0))


def toy_run(functions, seed, steps, lr, noise):
    """The chart's two runs with your simsiam_loss, every step as the grader makes it. Returns, for each step, each
    call's (loss, its gradients into p1 and p2). Each call gets its own copy of its inputs, so a function that
    writes to one changes nothing the run goes on from."""
    simsiam_loss = functions["simsiam_loss"]
    generator, x, runs = toy_start(seed)
    records = []
    for _ in range(steps):
        x1, x2, forward, calls = toy_calls(runs, generator, x, noise)
        answers = []
        for p1, p2, z1, z2 in calls:
            p1, p2 = p1.detach().clone().requires_grad_(), p2.detach().clone().requires_grad_()
            loss = simsiam_loss(p1, p2, z1.clone(), z2.clone())
            g1, g2 = torch.autograd.grad(loss, (p1, p2))
            answers.append((loss.detach(), g1, g2))
        toy_step(runs, x1, x2, forward, [(g1, g2) for _, g1, g2 in answers], lr)
        records.append(answers)
    return records
