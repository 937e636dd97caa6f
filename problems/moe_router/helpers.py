"""Validation for the mixture-of-experts router problem, supplied to every solution (`from helpers import ...`).
Each function raises exactly the errors the contract promises; call them first, then compute."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_router_logits(logits, k, *, min_tokens=0):
    """logits: float32/float64 [N, E] with N >= min_tokens, E >= 1, finite. k: a Python int in [1, E]."""
    if not isinstance(logits, torch.Tensor):
        raise TypeError(f"logits must be a torch.Tensor, got {type(logits).__name__}")
    if logits.dtype not in FLOAT_DTYPES:
        raise TypeError(f"logits must be float32 or float64, got {logits.dtype}")
    if logits.dim() != 2 or logits.shape[1] < 1 or logits.shape[0] < min_tokens:
        raise ValueError(f"logits must be [N, E] with N >= {min_tokens} tokens and E >= 1 experts, got shape "
                         f"{tuple(logits.shape)}")
    if logits.device.type != "meta" and not bool(torch.isfinite(logits.detach()).all()):
        raise ValueError("logits has non-finite entries (nan or inf)")
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be a Python int, got {type(k).__name__}")
    if not 1 <= k <= logits.shape[1]:
        raise ValueError(f"k must lie in [1, E] = [1, {logits.shape[1]}], got {k}")


def check_assignments(experts, num_experts, capacity):
    """experts: int64 [N, K] (N >= 0, K >= 1) with entries in [0, num_experts); num_experts: a Python int >= 1;
    capacity: a Python int >= 0."""
    for name, value, low in (("num_experts", num_experts, 1), ("capacity", capacity, 0)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name} must be a Python int, got {type(value).__name__}")
        if value < low:
            raise ValueError(f"{name} must be >= {low}, got {value}")
    if not isinstance(experts, torch.Tensor):
        raise TypeError(f"experts must be a torch.Tensor, got {type(experts).__name__}")
    if experts.dtype != torch.int64:
        raise TypeError(f"experts must be int64, got {experts.dtype}")
    if experts.dim() != 2 or experts.shape[1] < 1:
        raise ValueError(f"experts must be [N, K] with K >= 1 choices per token, got shape {tuple(experts.shape)}")
    if experts.device.type != "meta" and bool(((experts < 0) | (experts >= num_experts)).any()):
        raise ValueError(f"experts must lie in [0, num_experts) = [0, {num_experts})")


# --- the experiment's run ------------------------------------------------------------------------------------
# The grader trains the notes' collapsed router with your three functions through `experiment_balance`: one request
# to the sandbox for the whole run instead of three per step. It checks every number it returns, so you never call
# it.


def experiment_chosen(gates, top_k):
    """The experts each token is routed to: the top_k largest gates, ties to the lower index."""
    return torch.sort(gates.detach(), dim=1, descending=True, stable=True).indices[:, :top_k]


def experiment_balance(functions, x, weights, bias, steps, top_k, experts, capacity, lr):
    """Train a linear router (logits = x W + b) on your load-balancing loss alone. Returns, for each step, your
    gates, your loss with its gradient in the logits, and your capacity mask of the chosen experts; it stops
    after a step whose loss sends no gradient. Each call gets its own copy of its inputs."""
    top_k_gating, load_balancing_loss, capacity_mask = (functions["top_k_gating"], functions["load_balancing_loss"],
                                                        functions["capacity_mask"])
    records = []
    for _ in range(steps):
        logits = x @ weights + bias  # [N, E]
        gates = top_k_gating(logits.clone(), top_k)
        leaf = logits.clone().requires_grad_(True)
        loss = load_balancing_loss(leaf, top_k)
        (gradient,) = torch.autograd.grad(loss, leaf, allow_unused=True)
        kept = capacity_mask(experiment_chosen(gates, top_k), experts, capacity)
        records.append((gates, loss.detach(), gradient, kept))
        if gradient is None:
            break
        weights = weights - lr * x.T @ gradient  # the chain rule through logits = x W + b
        bias = bias - lr * gradient.sum(dim=0)
    return records
