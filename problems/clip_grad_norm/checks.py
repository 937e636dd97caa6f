"""Check battery for clip_grad_norm (global L2-norm clipping of a list of gradients).

Groups: `clip` (the norm and the scaling, edge cases), `result` (types, precision, stability, no mutation, no
aliasing) and `contract` (errors) are required. Every random input comes from a seeded generator.
"""

import math

import torch

from grader.checks import (
    check,
    expect,
    expect_close,
    expect_equal,
    expect_no_alias,
    expect_rejected,
    expect_tensor,
    fail,
    tolerance,
)

# ------------------------------------------------------------------------------------------------ inputs


def _grads(seed, shapes, dtype=torch.float64, *, scale=1.0):
    """A list of gradients of the given shapes; None in `shapes` stands for a frozen parameter."""
    generator = torch.Generator().manual_seed(seed)
    return [None if shape is None else (scale * torch.randn(shape, generator=generator, dtype=torch.float64))
            .to(dtype) for shape in shapes]


def _exact_norm(grads):
    """The global norm in float64 from the same inputs (exact to float64 rounding for moderate values)."""
    tensors = [g.detach().double() for g in grads if g is not None]
    return math.sqrt(math.fsum(float((t * t).sum()) for t in tensors)) if tensors else 0.0


# ------------------------------------------------------------------------------------------- comparisons


def _unpack(result, grads):
    got = result.unwrap()
    if not isinstance(got, tuple | list) or len(got) != 2:
        fail(f"{result.call} returned {type(got).__name__}; return a tuple (clipped, total_norm)")
    clipped, total_norm = got
    if not isinstance(clipped, list) or len(clipped) != len(grads):
        fail(f"clipped of {result.call} should be a list of {len(grads)} entries (None kept in place), got "
             f"{type(clipped).__name__} of {len(clipped) if isinstance(clipped, list | tuple) else '?'}")
    for index, (item, grad) in enumerate(zip(clipped, grads, strict=True)):
        if grad is None:
            expect(item is None, f"clipped[{index}] of {result.call} should be None, like grads[{index}] (a frozen "
                   f"parameter has no gradient to clip), got {type(item).__name__}")
        else:
            expect_tensor(item, shape=tuple(grad.shape), dtype=grad.dtype, what=f"clipped[{index}]", call=result)
    return clipped, total_norm


def _expect_clip(result, ref, grads, max_norm, eps=1e-6, *, rtol=None, atol=None, hint=""):
    """total_norm first (every mistake in the norm shows there), then each clipped tensor. A result one of the
    mutants also gives is named by the engine's diagnosis, so no hand-written list of mistakes is needed here."""
    clipped, total_norm = _unpack(result, grads)
    expected_clipped, expected_norm = ref.clip_grad_norm([None if g is None else g.detach() for g in grads],
                                                         max_norm, eps)
    expect_close(total_norm, expected_norm, what="total_norm", call=result, rtol=rtol, atol=atol,
                 hint="(the norm before clipping: the square root of the sum of squares of every element of every "
                 "tensor)")
    rtol_, atol_ = tolerance(expected_norm.dtype)
    rtol, atol = rtol if rtol is not None else rtol_, atol if atol is not None else atol_
    for index, (got, expected) in enumerate(zip(clipped, expected_clipped, strict=True)):
        if expected is not None:
            expect_close(got, expected, what=f"clipped[{index}]", call=result, rtol=rtol, atol=atol, hint=hint)


# -------------------------------------------------------------------------------------------------- clip


@check("clip.hand_example", "Hand example: norms 5 and 12 make a global norm of 13, halved to 6.5",
       clauses=["norm.global", "clip.above", "clip.none_entries"])
def hand_example(sub, ref):
    # sqrt(3^2 + 4^2 + 12^2) = 13 > 6.5 with eps = 0: every tensor is multiplied by 6.5 / 13 = 0.5.
    grads = [torch.tensor([3.0, 4.0]), None, torch.tensor([[12.0]])]
    result = sub.clip_grad_norm.call(grads, 6.5, 0.0)
    clipped, total_norm = _unpack(result, grads)
    expect_close(total_norm, torch.tensor(13.0), what="total_norm", call=result,
                 hint="(sqrt(3^2 + 4^2 + 12^2) = 13: one norm over every element of every tensor, None skipped)")
    hint = "(every tensor times 6.5 / 13 = 0.5)"
    expect_close(clipped[0], torch.tensor([1.5, 2.0]), what="clipped[0]", call=result, hint=hint)
    expect_close(clipped[2], torch.tensor([[6.0]]), what="clipped[2]", call=result, hint=hint)


@check("clip.global_not_per_tensor", "One factor for all tensors, from the global norm",
       clauses=["norm.global", "clip.above"])
def global_not_per_tensor(sub, ref):
    # Norms 1 and 10 with max_norm 5: the global norm sqrt(101) is above 5, so both tensors shrink by the same
    # factor, the small one included; clipping each tensor on its own would leave the first unchanged.
    grads = [torch.tensor([0.6, 0.8], dtype=torch.float64), torch.tensor([6.0, 0.0, 8.0], dtype=torch.float64)]
    result = sub.clip_grad_norm.call(grads, 5.0)
    _expect_clip(result, ref, grads, 5.0, hint="(scale every tensor by max_norm / (global norm + eps))")


@check("clip.factor", "Above the threshold every tensor is multiplied by max_norm / (norm + eps)",
       clauses=["clip.above"])
def factor(sub, ref):
    cases = [([(3,), (2, 2)], 0.5, 1e-6), ([(4,), None, (1,)], 1.0, 0.0), ([(2, 3)], 0.1, 0.01),
             ([(5,), (5,)], 2, 1)]
    grads = [_grads(10 + i, shapes) for i, (shapes, _, _) in enumerate(cases)]
    results = sub.clip_grad_norm.map([((g, max_norm, eps), {}) for g, (_, max_norm, eps) in
                                      zip(grads, cases, strict=True)])
    for result, g, (_, max_norm, eps) in zip(results, grads, cases, strict=True):
        _expect_clip(result, ref, g, max_norm, eps)


@check("clip.threshold", "A norm exactly at max_norm, or below it, is left alone (never scaled up)",
       clauses=["clip.at_or_below"])
def threshold(sub, ref):
    # [3, 4] has norm exactly 5 (exact in binary): at max_norm = 5 nothing is clipped; PyTorch's
    # min(1, max_norm / (norm + eps)) would still shrink it by 5 / (5 + 1e-6).
    exact = [torch.tensor([3.0, 4.0], dtype=torch.float64), torch.tensor([0.0], dtype=torch.float64)]
    below = _grads(20, [(3,), (2,)])
    small = (torch.tensor(0.5), None, torch.full((2, 2), 0.25))  # float32, a tuple, a 0-d tensor: norm 0.707
    cases = [(exact, 5.0), (exact, 5), (exact, 100.0), (below, 1e6), (small, 1.0)]
    results = sub.clip_grad_norm.map([((g, max_norm), {}) for g, max_norm in cases])
    for result, (g, max_norm) in zip(results, cases, strict=True):
        clipped, _ = _unpack(result, g)
        for index, (got, grad) in enumerate(zip(clipped, g, strict=True)):
            expect_equal(got, grad, what=f"clipped[{index}]", call=result,
                         hint=f"(the norm {_exact_norm(g):g} is not above max_norm = {max_norm}: return the "
                         "gradient unchanged; clip only when norm > max_norm)")


@check("clip.none_entries", "None entries stay None in place; with no tensors the norm is a float32 zero",
       clauses=["clip.none_entries"])
def none_entries(sub, ref):
    grads = [None, torch.tensor([30.0, 40.0], dtype=torch.float64), None]
    result = sub.clip_grad_norm.call(grads, 1.0)
    _expect_clip(result, ref, grads, 1.0)
    for empty in ([], [None], [None, None, None], ()):
        result = sub.clip_grad_norm.call(empty, 1.0)
        clipped, total_norm = _unpack(result, list(empty))
        expect_close(total_norm, torch.zeros(()), what="total_norm", call=result,
                     hint="(no gradient at all: the norm is torch.zeros(()), a float32 0-d zero)")



@check("clip.empty_tensors", "Tensors with no elements: the norm is a zero of the gradients' dtype, each comes back "
       "as an empty copy", clauses=["norm.global", "clip.none_entries"])
def empty_tensors(sub, ref):
    # Only "no tensors at all" gives the float32 torch.zeros(()); tensors that hold no elements are still the
    # gradients, and their dtype is the norm's.
    for dtype in (torch.float64, torch.float32):
        empties = [None, torch.empty(2, 0, dtype=dtype), torch.empty(0, dtype=dtype)]
        for grads in ([torch.empty(0, dtype=dtype)], empties):
            result = sub.clip_grad_norm.call(grads, 1.0)
            _, total_norm = _unpack(result, grads)
            expect_tensor(total_norm, shape=(), dtype=dtype, what="total_norm", call=result)
            _expect_clip(result, ref, grads, 1.0,
                         hint="(tensors with no elements add nothing to the norm, which is a zero of their dtype)")


@check("clip.norm_before_clipping", "total_norm is the norm before clipping", clauses=["norm.before_clipping"])
def norm_before_clipping(sub, ref):
    grads = _grads(40, [(4,), (3,)], scale=10.0)
    result = sub.clip_grad_norm.call(grads, 1.0)
    _, total_norm = _unpack(result, grads)
    expected = _exact_norm(grads)
    expect_close(float(total_norm), expected, call=result, rtol=1e-9,
                 hint=f"(total_norm should be the original norm {expected:.6g}, not the clipped one, max_norm = 1)")


# ------------------------------------------------------------------------------------------------ result



@check("result.no_overflow", "No overflow or underflow: gradients of 1e30 and 1e-30 in float32, 1e300 in float64",
       clauses=["result.stability"])
def no_overflow(sub, ref):
    # (1e30)^2 = inf and (1e-30)^2 = 0 in float32, yet the norms 1.4e30 and 1.4e-30 are ordinary float32 numbers.
    cases = [([torch.full((2,), 1e30), torch.full((3,), -2e30)], 1.0),
             ([torch.full((2,), 1e-30), torch.full((2,), 1e-30)], 1.0),
             ([torch.full((2,), 3e-25), torch.zeros(3)], 1e-26),
             ([torch.full((4,), 1e300, dtype=torch.float64)], 1.0),
             ([torch.full((4,), 1e-300, dtype=torch.float64)], 1e-301)]
    results = sub.clip_grad_norm.map([((g, max_norm), {}) for g, max_norm in cases])
    for result, (g, max_norm) in zip(results, cases, strict=True):
        if result.raised is not None:
            fail(f"{result.call} raised {result.raised.summary()}; the norm of these gradients is finite "
                 "(divide by the largest magnitude before squaring, multiply back after the square root)")
        _expect_clip(result, ref, g, max_norm, hint="(squaring overflows or underflows: divide by the largest "
                     "magnitude first)")



@check("result.copies", "Nothing clipped still gives new tensors: copies, not the inputs or views of them",
       clauses=["result.copies"])
def copies(sub, ref):
    # At and below the threshold nothing is clipped, and returning the gradients (or g.detach(), g.view_as(g))
    # gives the right values in the inputs' own memory. The worker reports a result sharing storage with a tensor
    # of the grads list or tuple; a clipped case is a product, new storage anyway.
    cases = [([torch.tensor([3.0, 4.0], dtype=torch.float64), None, torch.tensor(0.0, dtype=torch.float64)], 5.0),
             ((torch.full((2, 2), 0.25), torch.tensor(0.5)), 1.0),
             ([torch.tensor([30.0, 40.0], dtype=torch.float64)], 1.0)]
    results = sub.clip_grad_norm.map([((g, max_norm), {}) for g, max_norm in cases])
    for result, (g, max_norm) in zip(results, cases, strict=True):
        clipping = _exact_norm(g) > max_norm
        why = "" if clipping else f"the norm {_exact_norm(g):g} is not above max_norm, so nothing is clipped: "
        expect_no_alias(result, hint=f"({why}return copies of the gradients (.clone()), not the gradients themselves "
                                     "or .detach() views of them)")


# ---------------------------------------------------------------------------------------------- contract



@check("result.norm_overflow", "A total norm that overflows the dtype raises ValueError, though each entry is finite",
       clauses=["result.overflow"])
def norm_overflow(sub, ref):
    calls = [
        (([torch.full((4,), 3e38)], 1.0), {}, "the true norm 6e38 overflows float32"),
        (([torch.full((4,), 1e308, dtype=torch.float64)], 1.0), {}, "the true norm 2e308 overflows float64"),
    ]
    expect_rejected("ValueError", sub.clip_grad_norm, calls)


# -------------------------------------------------------------------------------------------- experiment


@check("experiment.norms", "Experiment: the norm your function reports and the norm it leaves",
       clauses=["clip.above"])
def norms(sub, ref, ctx):
    # Gradient lists whose norm grows geometrically from 0.01 to 100, clipped at 1: below the threshold the
    # norm passes through unchanged, above it the clipped norm sits just under 1.
    scales = [10 ** (k / 4) for k in range(-8, 9)]
    base = _grads(90, [(8,), (4, 4)])
    norm = _exact_norm(base)
    calls = [(([g * (s / norm) for g in base], 1.0), {}) for s in scales]
    before, after = [], []
    for result in sub.clip_grad_norm.map(calls):
        clipped, total_norm = result.unwrap()
        before.append(float(total_norm))
        after.append(_exact_norm(clipped))
    ctx.record_experiment(x_label="k: norm 10^(k/4 - 2)", steps=list(range(len(scales))),
                          series={"log10_norm_before": [math.log10(n) for n in before],
                                  "log10_norm_after": [math.log10(n) for n in after]})
