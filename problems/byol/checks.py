"""Check battery for BYOL's loss and target update.

Groups: `loss` (values), `gradients` (the online branch is trained, the target branch detached), `update` (the
moving average) and `contract` (result kind, refused arguments) are required; `experiment` is advisory (it
records the toy run for the notes). Every random input comes from a seeded generator, so two runs agree.
"""

import math

import torch

from grader.checks import (
    central_differences,
    check,
    expect,
    expect_close,
    expect_equal,
    expect_grad_close,
    expect_grad_none,
    expect_no_alias,
    expect_rejected,
    expect_tensor,
    expect_unchanged,
    fail,
    hint,
    tolerance,
)

F32, F64 = torch.float32, torch.float64
# float32 losses are compared with the exact loss (float64 on the same inputs, rounded). Each cosine carries a
# rounding error of a few eps32 and the loss is 2 - 2 mean(cos), so any correct order of operations stays within
# ~1e-6 of the exact value; 1e-5 admits all of them while every mutant is off by more than 1e-2.
FLOAT32_RTOL, FLOAT32_ATOL = 1e-5, 1e-5


# ------------------------------------------------------------------------------------------------ inputs


def _randn(seed, *shape, dtype=F64):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=generator, dtype=F64).to(dtype)


def _pair(seed, n, d, dtype=F64, *, noise=0.7):
    """A prediction and a target that agree partly (cosines spread between about 0.3 and 0.95), rows of
    different lengths, so normalisation, the batch mean and the scale all show in the value."""
    generator = torch.Generator().manual_seed(seed)
    z = torch.randn(n, d, generator=generator, dtype=F64)
    p = (z + noise * torch.randn(n, d, generator=generator, dtype=F64)) * torch.exp(
        torch.randn(n, 1, generator=generator, dtype=F64))
    return p.to(dtype), (3 * z).to(dtype)


def _tolerances(dtype):
    return (FLOAT32_RTOL, FLOAT32_ATOL) if dtype == F32 else tolerance(F64)


def _exact(ref, p, z):
    return ref.byol_loss(p.detach().double(), z.detach().double()).to(p.dtype)


def _expect_loss(result, ref, p, z, *, hint=""):
    got = result.unwrap()
    expected = _exact(ref, p, z)
    expect_tensor(got, shape=(), dtype=p.dtype, call=result)
    rtol, atol = _tolerances(p.dtype)
    expect_close(got, expected, call=result, rtol=rtol, atol=atol, hint=hint)


# ------------------------------------------------------------------------------------------------- loss

HAND_P = torch.tensor([[3.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0], [2.0, 0.0, 0.0]])
HAND_Z = torch.tensor([[5.0, 0.0, 0.0], [4.0, 0.0, 0.0], [-2.0, -2.0, 0.0], [0.5, 0.5 * math.sqrt(3.0), 0.0]])


@check("loss.hand_example", "Hand example: aligned, orthogonal, opposite and 60-degree rows give 0, 2, 4, 1: mean 1.75",
       clauses=["loss.formula", "loss.normalise", "loss.batch_mean"])
def hand_example(sub, ref):
    # After normalisation the four pairs are aligned (cos 1, loss 0), orthogonal (cos 0, loss 2), opposite
    # (cos -1, loss 4) and 60 degrees apart (cos 1/2, loss 1); the mean is 7/4. The rows have lengths 2 to 5, so
    # skipping normalisation shows, and the mutants' mistakes all give different values (1 - cos: 0.875, -2 cos:
    # -0.25, -cos: -0.125, the sum: 7, the mean over the D = 3 features too: 7/12).
    result = sub.byol_loss.call(HAND_P, HAND_Z)
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=F32, call=result)
    hint_text = "(the four rows have cosines 1, 0, -1 and 1/2, so the per-row losses 2 - 2 cos are 0, 2, 4 and " \
        "1, and their mean is 1.75)"
    expect_close(got, torch.tensor(1.75), call=result, rtol=FLOAT32_RTOL, atol=FLOAT32_ATOL, hint=hint_text)


@check("loss.scale", "One pair at 60 degrees: 2 - 2 cos = 1, whatever the lengths",
       clauses=["loss.formula", "loss.normalise"])
def scale(sub, ref):
    # cos 60 = 1/2, so 2 - 2 cos = 1; 1 - cos would give 0.5 and the squared error of the raw rows 3.
    p = torch.tensor([[2.0, 0.0]], dtype=F64)
    z = torch.tensor([[0.5, 0.5 * math.sqrt(3.0)]], dtype=F64)
    result = sub.byol_loss.call(p, z)
    got = result.unwrap()
    hint_text = "(the rows are 60 degrees apart: 2 - 2 cos 60 = 1)"
    expect_close(got, torch.tensor(1.0, dtype=F64), call=result, hint=hint_text)


@check("loss.batch_mean", "The per-row losses are averaged over the batch, not summed",
       clauses=["loss.batch_mean"])
def batch_mean(sub, ref):
    # Repeating a batch four times leaves its mean unchanged and multiplies a sum by four.
    p, z = _pair(1, 3, 4)
    once, four_times = sub.byol_loss.map([((p, z), {}), ((p.repeat(4, 1), z.repeat(4, 1)), {})])
    _expect_loss(once, ref, p, z)
    expect_close(four_times.unwrap(), once.unwrap(), call=four_times,
                 hint=f"(differs from {once.call}: the loss is a mean over the rows, so repeating the batch "
                      "changes nothing)")


@check("loss.random_float64", "Random batches in float64 match the reference",
       clauses=["loss.formula", "loss.precision"])
def random_float64(sub, ref):
    cases = [_pair(10 + i, n, d) for i, (n, d) in enumerate([(1, 1), (1, 5), (4, 3), (8, 16), (32, 2)])]
    results = sub.byol_loss.map([((p, z), {}) for p, z in cases])
    for result, (p, z) in zip(results, cases, strict=True):
        _expect_loss(result, ref, p, z)


@check("loss.random_float32", "Random batches in float32 match the exact loss to float32 precision",
       clauses=["loss.precision"])
def random_float32(sub, ref):
    cases = [_pair(20 + i, n, d, F32) for i, (n, d) in enumerate([(2, 3), (6, 8), (16, 32)])]
    results = sub.byol_loss.map([((p, z), {}) for p, z in cases])
    for result, (p, z) in zip(results, cases, strict=True):
        _expect_loss(result, ref, p, z)


@check("loss.normalisation_invariance", "Rescaling any row of either input by a positive factor changes nothing",
       clauses=["loss.normalise"])
def normalisation_invariance(sub, ref):
    p, z = _pair(30, 5, 4)
    scale_p = torch.exp(3 * _randn(31, 5, 1))  # factors ~ e^{+-3}
    scale_z = torch.exp(3 * _randn(32, 5, 1))
    plain, scaled = sub.byol_loss.map([((p, z), {}), ((p * scale_p, z * scale_z), {})])
    _expect_loss(plain, ref, p, z)
    expect_close(scaled.unwrap(), plain.unwrap(), call=scaled,
                 hint="(the loss depends only on the directions: normalise every row before comparing)")


@check("loss.zero_and_tiny_rows", "Rows are divided by max(norm, 1e-12): a zero row costs 2, a tiny row shrinks",
       clauses=["loss.normalise"])
def zero_and_tiny_rows(sub, ref):
    # A zero row has cosine 0 with anything, so its loss is 2. A row of norm 1e-13 is divided by 1e-12 and
    # becomes a row of length 0.1: its cosine with a unit row is 0.1 cos, not cos (and not 1 / 1.1 cos).
    p, z = _pair(33, 4, 3)
    p[0] = 0.0
    z[1] = 0.0
    p[2] = torch.tensor([1e-13, 0.0, 0.0], dtype=F64)
    z[2] = torch.tensor([1.0, 0.0, 0.0], dtype=F64)
    result = sub.byol_loss.call(p, z)
    got = result.unwrap()
    expect(isinstance(got, torch.Tensor) and bool(torch.isfinite(got).all()),
           f"{result.call} returned {got}: a zero row must give cosine 0 (divide by max(norm, 1e-12)), not 0 / 0")
    _expect_loss(result, ref, p, z, hint="(divide each row by max(norm, 1e-12): clamp the norm, do not add "
                 "1e-12 to it; a zero row then costs exactly 2)")


@check("loss.strided_views", "Transposed, sliced and expanded inputs give the same loss as copies",
       clauses=["loss.strided"])
def strided_views(sub, ref):
    base = _randn(40, 6, 8)
    cases = [
        (base[:3, ::2], base[3:, 1::2]),  # every other column of one storage
        (base[:4, :3].T, base[:4, 3:6].T),  # transposed slices
        (base[0].expand(3, 8), base[1:4]),  # three identical rows with stride 0
    ]
    results = sub.byol_loss.map([((p, z), {}) for p, z in cases])
    for result, (p, z) in zip(results, cases, strict=True):
        _expect_loss(result, ref, p, z, hint="(use operations that accept any strides: reshape or arithmetic "
                     "rather than view)")


@check("loss.inputs_unchanged", "The inputs are left unchanged and the result has its own storage",
       clauses=["loss.unchanged"])
def inputs_unchanged(sub, ref):
    p, z = _pair(41, 4, 3, F32)
    for args in ((p * 3, z * 3), (p.clone().requires_grad_(), z.clone())):
        result = sub.byol_loss.call(*args)
        expect_unchanged(result, hint="(normalise into new tensors: x / norm, not x.div_(norm))")
        expect_no_alias(result)


# ---------------------------------------------------------------------------------------------- gradients


def _reference_grad(ref, p, z):
    leaf = p.detach().double().requires_grad_()
    ref.byol_loss(leaf, z.detach().double()).backward()
    return leaf.grad.to(p.dtype)


def _expect_online_grad(result, ref, p, z, *, rtol=None, atol=None):
    result.unwrap()
    if result.grads.get("online_prediction") is None:
        fail(f"after backward() on {result.call}, online_prediction.grad is None: the online network is the one "
             f"BYOL trains, so the loss must stay differentiable in online_prediction (no .detach(), .item() "
             f"or torch.no_grad() on that branch)")
    expect_grad_close(result, "online_prediction", _reference_grad(ref, p, z), rtol=rtol, atol=atol)


@check("gradients.online", "The gradient into online_prediction matches the reference (float64)",
       clauses=["gradients.online"])
def gradients_online(sub, ref):
    cases = [_pair(50, 5, 4), _pair(51, 1, 3), _pair(52, 7, 2)]
    calls = [((p.clone().requires_grad_(), z), {}) for p, z in cases]
    results = sub.byol_loss.map(calls, grads=("online_prediction",))
    for result, (p, z) in zip(results, cases, strict=True):
        _expect_online_grad(result, ref, p, z)


@check("gradients.finite_differences", "The gradient agrees with central differences of your own function",
       clauses=["gradients.online"])
def gradients_finite_differences(sub, ref):
    # Central differences with step 1e-6 in float64: truncation ~1e-12 f''', rounding ~1e-16 / 1e-6.
    p, z = _pair(53, 3, 4)
    numeric = central_differences(sub.byol_loss, (p, z), 0)
    result = sub.byol_loss.call(p.clone().requires_grad_(), z, grads=("online_prediction",))
    result.unwrap()
    if result.grads.get("online_prediction") is None:
        fail(f"after backward() on {result.call}, online_prediction.grad is None, but the loss changes when "
             f"online_prediction changes (finite differences give {numeric.abs().max():.3g} at most)")
    expect_grad_close(result, "online_prediction", numeric, rtol=1e-5, atol=1e-8,
                      source="central finite differences")


@check("gradients.float32", "The float32 gradient matches the exact one to float32 precision",
       clauses=["gradients.online", "loss.precision"])
def gradients_float32(sub, ref):
    p, z = _pair(54, 6, 5, F32)
    result = sub.byol_loss.call(p.clone().requires_grad_(), z, grads=("online_prediction",))
    _expect_online_grad(result, ref, p, z, rtol=1e-4, atol=1e-5)


@check("gradients.target_detached", "No gradient reaches target_projection, even when it requires grad",
       clauses=["gradients.target_detached"])
def target_detached(sub, ref):
    p, z = _pair(55, 4, 3)
    calls = [((p.clone().requires_grad_(), z.clone().requires_grad_()), {}),
             ((p.clone(), z.clone().requires_grad_()), {})]
    with_online, target_only = sub.byol_loss.map(calls, grads=("online_prediction", "target_projection"))
    stop = ("(BYOL's target is a regression target: detach target_projection inside the loss, so its .grad stays "
            "None even when the caller's tensor requires grad)")
    expect_grad_none(with_online, "target_projection", hint=stop)
    _expect_online_grad(with_online, ref, p, z)
    expect_grad_none(target_only, "target_projection", hint=stop)
    got = target_only.unwrap()
    expect_tensor(got, shape=(), dtype=F64, requires_grad=False, call=target_only)


# ------------------------------------------------------------------------------------------------ update


def _expected_update(online, target, tau):
    """tau * target + (1 - tau) * online in float64, rounded to the inputs' dtype (independent of the reference)."""
    return (tau * target.detach().double() + (1 - tau) * online.detach().double()).to(online.dtype)


UPDATE_HINT = "(the target keeps the share tau of itself: tau * target_params + (1 - tau) * online_params, where " \
    "target_params is the second argument)"


def _update_hint(got, online, target, tau):
    if isinstance(got, torch.Tensor) and got.shape == online.shape and got.numel() and tau not in (0.5,):
        swapped = (tau * online.detach().double() + (1 - tau) * target.detach().double())
        if torch.allclose(got.detach().double(), swapped, rtol=1e-5, atol=1e-6):
            return ("(this is what you get when the weights are swapped: tau belongs to target_params, the second "
                    "argument, and 1 - tau to online_params)")
    return UPDATE_HINT


@check("update.formula", "tau * target + (1 - tau) * online for tau in {0.2, 0.9, 0.996}, int and float",
       clauses=["update.formula"])
def update_formula(sub, ref):
    calls = []
    for dtype in (F32, F64):
        online, target = _randn(60, 3, 4, dtype=dtype), _randn(61, 3, 4, dtype=dtype)
        calls += [((online, target, tau), {}) for tau in (0.2, 0.9, 0.996, 0.0, 1.0, 0, 1)]
    for result, ((online, target, tau), _) in zip(sub.target_update.map(calls), calls, strict=True):
        got = result.unwrap()
        expect_close(got, _expected_update(online, target, tau), call=result,
                     hint=_update_hint(got, online, target, tau))


@check("update.endpoints", "tau = 1 gives target_params and tau = 0 online_params exactly, in every shape",
       clauses=["update.endpoints"])
def update_endpoints(sub, ref):
    calls = []
    for dtype in (F32, F64):
        for shape in ((4, 3), (), (0, 2), (5,)):
            online, target = _randn(62, *shape, dtype=dtype), _randn(63, *shape, dtype=dtype)
            calls += [((online, target, tau), {}) for tau in (0.0, 0, 1.0, 1)]
    for result, ((online, target, tau), _) in zip(sub.target_update.map(calls), calls, strict=True):
        name, wanted = ("target_params", target) if tau == 1 else ("online_params", online)
        expect_equal(result.unwrap(), wanted, call=result,
                     hint=f"(at tau = {tau} the result is {name}, value for value, in new storage; "
                          "tau * target + (1 - tau) * online is exact at both ends, while target + (1 - tau) * "
                          "(online - target) rounds away from online at tau = 0)")


@check("update.no_grad", "nn.Parameter inputs give a result that does not require grad",
       clauses=["update.no_grad"])
def update_no_grad(sub, ref):
    calls = []
    for tau in (0.0, 0.5, 0.996, 1.0):
        online, target = _randn(100, 3, 2), _randn(101, 3, 2)
        calls.append(((torch.nn.Parameter(online), torch.nn.Parameter(target), tau), {}))
    calls.append(((_randn(102, 4).requires_grad_(), _randn(103, 4), 0.9), {}))
    for result, ((online, target, tau), _) in zip(sub.target_update.map(calls), calls, strict=True):
        with hint("(the target network follows by averaging, not by gradient: compute under torch.no_grad() or on "
                  ".detach()ed tensors and return a plain tensor)"):
            expect_tensor(result.unwrap(), shape=tuple(online.shape), dtype=F64, requires_grad=False, call=result)
        expect_close(result.unwrap(), _expected_update(online, target, tau), call=result, hint=UPDATE_HINT)


@check("update.new_storage", "The result shares storage with neither input and both are left unchanged",
       clauses=["update.new_storage"])
def update_new_storage(sub, ref):
    calls = [((_randn(110, 3, 2), _randn(111, 3, 2), tau), {}) for tau in (0.0, 0, 0.5, 0.99, 1.0, 1)]
    calls.append(((_randn(112), _randn(113), 1.0), {}))
    calls.append(((torch.nn.Parameter(_randn(114, 2, 2)), torch.nn.Parameter(_randn(115, 2, 2)), 0.9), {}))
    for result in sub.target_update.map(calls):
        expect_unchanged(result, hint="(do not update target_params in place, as in target.mul_(tau).add_(...): "
                         "return the new parameters and let the caller store them)")
        expect_no_alias(result, hint="(at tau = 0 or 1 returning an input itself, or its .detach(), which shares "
                        "memory, is not allowed: return new storage)")


@check("update.shapes", "Scalars, empty and N-d parameters, strided views, in their own dtype",
       clauses=["update.shapes"])
def update_shapes(sub, ref):
    shapes = [(), (0,), (2, 0, 3), (7,), (2, 3, 4), (1, 1, 1, 1)]
    calls = []
    for index, shape in enumerate(shapes):
        for dtype in (F32, F64):
            calls.append(((_randn(70 + index, *shape, dtype=dtype), _randn(80 + index, *shape, dtype=dtype), 0.9),
                          {}))
    calls += [
        ((_randn(90, 3, 4).t(), _randn(91, 4, 3), 0.7), {}),
        ((_randn(92, 8, 3)[::2], _randn(93, 1, 3).expand(4, 3), 0.3), {}),
        ((_randn(94, 2, 5, dtype=F32)[:, 1:4], _randn(95, 3, 2, dtype=F32).t(), 0.99), {}),
    ]
    for result, ((online, target, tau), _) in zip(sub.target_update.map(calls), calls, strict=True):
        with hint("(parameters of any shape and layout are averaged elementwise; keep their shape and dtype: "
                  "multiply by the Python number tau, not by a float64 tensor)"):
            expect_close(result.unwrap(), _expected_update(online, target, tau), call=result)


# ----------------------------------------------------------------------------------------------- contract


@check("contract.loss_result", "The loss is a 0-d tensor of the inputs' dtype, attached to the graph",
       clauses=["loss.result"])
def loss_result(sub, ref):
    for dtype in (F32, F64):
        p, z = _pair(120, 3, 4, dtype)
        result = sub.byol_loss.call(p.requires_grad_(), z)
        expect_tensor(result.unwrap(), shape=(), dtype=dtype, requires_grad=True, call=result)
    p, z = _pair(121, 3, 4)
    result = sub.byol_loss.call(p, z)
    expect_tensor(result.unwrap(), shape=(), dtype=F64, requires_grad=False, call=result)


@check("contract.loss_inputs", "Malformed online_prediction / target_projection raise TypeError or ValueError",
       clauses=["validation.loss_inputs"])
def loss_inputs(sub, ref):
    p, z = _pair(130, 3, 4)
    calls = [
        ((p.tolist(), z), {}, "online_prediction is a list, not a tensor"),
        ((p, 1.0), {}, "target_projection is a float, not a tensor"),
        ((p[0], z[0]), {}, "1-D inputs are not [N, D] batches"),
        ((p[None], z[None]), {}, "3-D inputs are not [N, D] batches"),
        ((p, z[:2]), {}, "the batch sizes differ (no broadcasting)"),
        ((p[:1], z), {}, "a [1, D] prediction does not broadcast against a [3, D] target"),
        ((p, z[:, :3]), {}, "the feature sizes differ"),
        ((p[:0], z[:0]), {}, "N = 0 leaves nothing to average"),
        ((p[:, :0], z[:, :0]), {}, "D = 0 has no direction"),
        ((p.long(), z.long()), {}, "integer tensors are outside the contract"),
        ((p.half(), z.half()), {}, "float16 is outside the contract"),
        ((p.float(), z), {}, "online_prediction is float32 while target_projection is float64"),
        ((p.masked_fill(p > 1, math.nan), z), {}, "online_prediction contains nan"),
        ((p, z.masked_fill(z > 1, math.inf)), {}, "target_projection contains inf"),
        ((p, z.to("meta")), {}, "target_projection is on another device"),
    ]
    expect_rejected(("TypeError", "ValueError"), sub.byol_loss, calls)


@check("contract.tau_type", "A tau that is not a Python int or float raises TypeError",
       clauses=["validation.tau_type"])
def tau_type(sub, ref):
    online, target = _randn(140, 2, 3), _randn(141, 2, 3)
    calls = [((online, target, bad), {}, why) for bad, why in [
        (True, "a bool is not a number here"), (False, "a bool is not a number here"),
        (torch.tensor(0.9), "tau must be a Python number, not a tensor"), ("0.9", "a string is not a number"),
        (None, "None is not a number")]]
    expect_rejected("TypeError", sub.target_update, calls)


@check("contract.tau_range", "A tau below 0, above 1, nan or infinite raises ValueError",
       clauses=["validation.tau_range"])
def tau_range(sub, ref):
    online, target = _randn(142, 2, 3), _randn(143, 2, 3)
    calls = [((online, target, bad), {}, why) for bad, why in [
        (-0.1, "tau must be >= 0"), (1.5, "tau must be <= 1"), (2, "tau must be <= 1"), (-1, "tau must be >= 0"),
        (math.nan, "tau must be finite"), (math.inf, "tau must be finite")]]
    expect_rejected("ValueError", sub.target_update, calls)


@check("contract.params", "Mismatched or malformed parameters raise TypeError or ValueError",
       clauses=["validation.params"])
def params(sub, ref):
    online, target = _randn(144, 2, 3), _randn(145, 2, 3)
    calls = [((a, b, 0.9), {}, why) for a, b, why in [
        (online[0], target, "shapes [3] and [2, 3] differ (no broadcasting)"),
        (online[:1], target, "shapes [1, 3] and [2, 3] differ (no broadcasting)"),
        (online, target.t(), "shapes [2, 3] and [3, 2] differ"),
        (online, target.reshape(6), "shapes [2, 3] and [6] differ, though the sizes agree"),
        (online.tolist(), target, "online_params must be a tensor"),
        (online, 1.0, "target_params must be a tensor"),
        (online.half(), target.half(), "float16 is outside the contract"),
        (online.long(), target.long(), "integer tensors are outside the contract"),
        (online.float(), target, "online_params is float32 but target_params is float64"),
        (online, target.masked_fill(target > 0.5, math.nan), "target_params has a nan entry"),
        (online.clone().fill_(math.inf), target, "online_params has inf entries"),
        (online, target.to("meta"), "target_params is on another device"),
    ]]
    expect_rejected(("TypeError", "ValueError"), sub.target_update, calls)


# --------------------------------------------------------------------------------------------- experiment


STEPS, LEARNING_RATE, TAU = 24, 2.0, 0.9


def _effective_rank(rows):
    """The participation ratio (sum s)^2 / sum s^2 of the unit rows' singular values s: D when the rows spread
    evenly over D directions, 1 when they all lie on one line (collapse)."""
    unit = rows / rows.norm(dim=1, keepdim=True).clamp_min(1e-12)
    values = torch.linalg.svdvals(unit)
    return float(values.sum() ** 2 / (values**2).sum())


@check("experiment.toy_run", "Experiment: a toy BYOL run, with and without the predictor and the moving average")
def toy_run(sub, ref, ctx):
    # Sixteen points in 6-D, two noisy views each step; a linear encoder W (6 -> 4) and a linear predictor P.
    # Run A is BYOL: predictor and target = moving average of W (tau = 0.9). Run B has neither: p = z and the
    # target is the online encoder itself (tau = 0), detached. Both use your byol_loss (its gradient into the
    # predictions drives SGD, chained through P and W here) and your target_update.
    generator = torch.Generator().manual_seed(150)
    x = torch.randn(16, 6, generator=generator, dtype=F64)
    w0 = 0.5 * torch.randn(6, 4, generator=generator, dtype=F64)
    p0 = torch.eye(4, dtype=F64) + 0.1 * torch.randn(4, 4, generator=generator, dtype=F64)
    runs = {"byol": {"w": w0, "p": p0, "target": w0, "tau": TAU},
            "plain": {"w": w0, "p": None, "target": w0, "tau": 0.0}}
    names = {"byol": "BYOL", "plain": "no_predictor_no_EMA"}
    series = {f"{kind}_{label}": [] for kind in ("effective_rank", "loss") for label in names.values()}
    for _ in range(STEPS):
        x1 = x + 0.3 * torch.randn(16, 6, generator=generator, dtype=F64)
        x2 = x + 0.3 * torch.randn(16, 6, generator=generator, dtype=F64)
        calls = []
        for run in runs.values():
            z1, z2 = x1 @ run["w"], x2 @ run["w"]
            pred1, pred2 = (z1, z2) if run["p"] is None else (z1 @ run["p"], z2 @ run["p"])
            calls += [((pred1.requires_grad_(), x2 @ run["target"]), {}),
                      ((pred2.requires_grad_(), x1 @ run["target"]), {})]
        results = sub.byol_loss.map(calls, grads=("online_prediction",))
        updates = []
        for index, (name, run) in enumerate(runs.items()):
            first, second = results[2 * index], results[2 * index + 1]
            g1, g2 = first.grads.get("online_prediction"), second.grads.get("online_prediction")
            if g1 is None or g2 is None:
                fail(f"after backward() on {first.call}, online_prediction.grad is None: the toy run needs it")
            losses = [expect_tensor(r.unwrap(), shape=(), call=r).detach() for r in (first, second)]
            series[f"loss_{names[name]}"].append(float(losses[0]) + float(losses[1]))
            if run["p"] is None:
                grad_w = x1.T @ g1 + x2.T @ g2
            else:
                z1, z2 = x1 @ run["w"], x2 @ run["w"]  # chain rule through pred = x W P, with the old W and P
                grad_w = x1.T @ (g1 @ run["p"].T) + x2.T @ (g2 @ run["p"].T)
                run["p"] = run["p"] - LEARNING_RATE * (z1.T @ g1 + z2.T @ g2)
            run["w"] = run["w"] - LEARNING_RATE * grad_w
            updates.append(((run["w"], run["target"], run["tau"]), {}))
        for (name, run), result in zip(runs.items(), sub.target_update.map(updates), strict=True):
            run["target"] = expect_tensor(result.unwrap(), shape=(6, 4), dtype=F64, call=result)
            series[f"effective_rank_{names[name]}"].append(_effective_rank(x @ run["w"]))
    ctx.record_experiment(steps=list(range(1, STEPS + 1)), series=series)
