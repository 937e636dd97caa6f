"""Check battery for the VQ-VAE problem: quantize and vq_loss (van den Oord et al., 2017).

Groups: `quantize`, `loss`, `gradients` and `contract` are required; `experiment` is advisory (it records the
chart of the notes). Every check names the contract clauses of problem.toml it tests. Every random input comes
from a seeded generator, so two runs give identical verdicts.

Random codebooks have rows of very different lengths (so the dot product ranks them differently from the
distance), and every random input is checked here to have a clear nearest row (a margin far above rounding),
so any correct way of computing the distance picks the same rows.
"""

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
)

CODEBOOK = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [3.0, 3.0], [-4.0, -4.0]]
Z_E = [[0.6, 0.2], [0.4, 0.9]]
MARGIN = 1e-3  # relative gap between the nearest and the second-nearest row of every random case

# ------------------------------------------------------------------------------------------------ inputs


def _case(seed, n, k, d, dtype=torch.float64):
    """(z_e, codebook): z_e ~ N(0, 1); codebook rows N(0, 1) scaled by lengths from 0.2 to 3 (seeded)."""
    generator = torch.Generator().manual_seed(seed)
    z_e = torch.randn(n, d, generator=generator, dtype=torch.float64)
    lengths = 0.2 + 2.8 * torch.rand(k, 1, generator=generator, dtype=torch.float64)
    codebook = torch.randn(k, d, generator=generator, dtype=torch.float64) * lengths
    _expect_clear_nearest(z_e, codebook, seed)
    return z_e.to(dtype), codebook.to(dtype)


def _expect_clear_nearest(z_e, codebook, seed):
    """An internal guard on the battery's own inputs: every row has one clearly nearest code."""
    if codebook.shape[0] < 2:
        return
    distances = ((z_e[:, None, :] - codebook[None, :, :]) ** 2).sum(dim=2).sort(dim=1).values
    gap = (distances[:, 1] - distances[:, 0]) / distances[:, 1].clamp_min(1e-12)
    if float(gap.min()) < MARGIN:
        raise AssertionError(f"seed {seed}: a random case has two nearly equal distances; choose another seed")


def _nearest(z_e, codebook):
    """The exact nearest rows (float64 differences, first of equal distances)."""
    distances = ((z_e.double()[:, None, :] - codebook.double()[None, :, :]) ** 2).sum(dim=2)
    return distances.argmin(dim=1)


def _indices(values):
    return torch.tensor(values, dtype=torch.int64)


def _grad(result, name, like):
    """The gradient the learner's call sent into `name`; None (not in the graph) counts as zero here."""
    grad = result.grads.get(name)
    return torch.zeros_like(like) if grad is None else grad


def _two(result, what):
    """The two results of a call, each checked to be a tensor."""
    value = result.unwrap()
    if not isinstance(value, tuple | list) or len(value) != 2:
        fail(f"{result.call} returned {type(value).__name__}; expected a pair ({what})")
    return value


RANDOM_SHAPES = [(1, 1, 1), (5, 3, 2), (16, 8, 4), (7, 32, 3), (32, 5, 16), (3, 2, 1)]

# ---------------------------------------------------------------------------------------------- quantize


@check("quantize.hand_example", "Hand example: z_e = [[0.6, 0.2], [0.4, 0.9]] against five codes",
       clauses=["quantize.nearest", "quantize.values"])
def quantize_hand_example(sub, ref):
    z_e, codebook = torch.tensor(Z_E, dtype=torch.float64), torch.tensor(CODEBOOK, dtype=torch.float64)
    result = sub.quantize.call(z_e, codebook)
    z_q, indices = _two(result, "z_q and indices")
    expect_equal(indices, _indices([0, 1]), what="indices", call=result,
                 hint="(squared distances 0.2, 1.0, 2.6, 13.6, 38.8 and 1.17, 0.17, 2.77, 11.17, 43.37: the "
                      "smallest wins)")
    expect_close(z_q, torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=torch.float64), what="z_q", call=result,
                 hint="(z_q holds the chosen codebook rows in the forward pass)")


@check("quantize.random", "Random cases in float32 and float64, N, K, D from 1 up, codes of unequal lengths",
       clauses=["quantize.nearest", "quantize.values"])
def quantize_random(sub, ref):
    cases = [_case(10 + i, *shape, dtype=dtype) for i, shape in enumerate(RANDOM_SHAPES)
             for dtype in (torch.float32, torch.float64)]
    for result, (z_e, codebook) in zip(sub.quantize.map([((z, c), {}) for z, c in cases]), cases, strict=True):
        z_q, indices = _two(result, "z_q and indices")
        expected = _nearest(z_e, codebook)
        expect_equal(indices, expected, what="indices", call=result,
                     hint="(the nearest row in squared Euclidean distance; these codes have different lengths, so "
                          "the largest dot product is not the nearest)")
        expect_close(z_q, codebook[expected], what="z_q", call=result)


@check("quantize.ties", "Equally near codes: the smallest index wins", clauses=["quantize.ties"])
def quantize_ties(sub, ref):
    cases = [
        ([[0.0, 0.0]], [[1.0, 0.0], [-1.0, 0.0]], [0], "both codes at distance 1"),
        ([[0.0, 1.0], [2.0, 2.0]], [[0.0, 1.0], [2.0, 2.0], [0.0, 1.0], [2.0, 2.0]], [0, 1], "duplicated codes"),
        ([[0.0, 0.0], [4.0, 0.0]], [[5.0, 5.0], [1.0, 0.0], [-1.0, 0.0], [3.0, 0.0], [5.0, 0.0]], [1, 3],
         "a tie between two middle codes"),
    ]
    for dtype in (torch.float32, torch.float64):
        calls = [((torch.tensor(z, dtype=dtype), torch.tensor(c, dtype=dtype)), {}) for z, c, _, _ in cases]
        for result, (_, _, expected, why) in zip(sub.quantize.map(calls), cases, strict=True):
            _, indices = _two(result, "z_q and indices")
            expect_equal(indices, _indices(expected), what="indices", call=result,
                         hint=f"({why}: of equally near codes the smallest index wins, as torch.argmin does)")


@check("quantize.result_kind", "z_q is [N, D] of the inputs' dtype; indices is int64 [N]",
       clauses=["quantize.values"])
def quantize_result_kind(sub, ref):
    shapes = [(4, 3, 2), (1, 1, 1), (2, 5, 1)]
    cases = [_case(30 + i, *shape, dtype=dtype) for i, shape in enumerate(shapes)
             for dtype in (torch.float32, torch.float64)]
    for result, (z_e, _) in zip(sub.quantize.map([((z, c), {}) for z, c in cases]), cases, strict=True):
        z_q, indices = _two(result, "z_q and indices")
        expect_tensor(z_q, shape=tuple(z_e.shape), dtype=z_e.dtype, what="z_q", call=result)
        expect_tensor(indices, shape=(z_e.shape[0],), dtype=torch.int64, what="indices", call=result)


@check("quantize.far_from_the_codes", "Encoder outputs far from every code still become exactly those codes",
       clauses=["quantize.values", "quantize.nearest"])
def quantize_far(sub, ref):
    z_e = torch.tensor([[40.0, -30.0], [-60.0, 25.0]], dtype=torch.float64)
    codebook = torch.tensor(CODEBOOK, dtype=torch.float64)
    result = sub.quantize.call(z_e, codebook)
    z_q, indices = _two(result, "z_q and indices")
    expect_equal(indices, _indices([0, 4]), what="indices", call=result,
                 hint="(squared distances 2421, 2561, 2581, 2458, 2612 and 4346, 4176, 4106, 4453, 3977)")
    expect_close(z_q, codebook[_indices([0, 4])], what="z_q", call=result, rtol=0, atol=1e-12,
                 hint="(the forward value of z_q is the code itself, whatever z_e was: z_e + detach(code - z_e))")


# ---------------------------------------------------------------------------------------------- the loss


@check("loss.hand_example", "Hand example: codebook loss 0.0925 and commitment loss 0.023125 (beta = 0.25)",
       clauses=["loss.codebook", "loss.commitment"])
def loss_hand_example(sub, ref):
    z_e, codebook = torch.tensor(Z_E, dtype=torch.float64), torch.tensor(CODEBOOK, dtype=torch.float64)
    result = sub.vq_loss.call(z_e, codebook, _indices([0, 1]))
    codebook_loss, commitment_loss = _two(result, "codebook_loss and commitment_loss")
    expect_tensor(codebook_loss, shape=(), dtype=torch.float64, what="codebook_loss", call=result)
    expect_tensor(commitment_loss, shape=(), dtype=torch.float64, what="commitment_loss", call=result)
    expect_close(codebook_loss, torch.tensor(0.0925, dtype=torch.float64), what="codebook_loss", call=result,
                 hint="(squared errors 0.2 + 0.17 over N * D = 4 entries, not scaled by beta)")
    expect_close(commitment_loss, torch.tensor(0.023125, dtype=torch.float64), what="commitment_loss",
                 call=result, hint="(beta = 0.25 times the same mean, 0.0925)")


@check("loss.beta", "beta scales only the commitment loss: 0 gives exactly 0, an int is accepted",
       clauses=["loss.commitment", "loss.codebook"])
def loss_beta(sub, ref):
    z_e, codebook = _case(40, 6, 4, 3)
    indices = _nearest(z_e, codebook)
    betas = [0, 0.0, 1, 2, 0.25]
    results = sub.vq_loss.map([((z_e, codebook, indices, beta), {}) for beta in betas])
    expected_codebook, _ = ref.vq_loss(z_e, codebook, indices, 1.0)
    for result, beta in zip(results, betas, strict=True):
        codebook_loss, commitment_loss = _two(result, "codebook_loss and commitment_loss")
        expect_close(codebook_loss, expected_codebook, what="codebook_loss", call=result,
                     hint="(the codebook loss does not depend on beta; only the commitment term is weighted)")
        if beta == 0:
            expect_equal(float(commitment_loss), 0.0, what="commitment_loss", call=result,
                         hint="(beta = 0 switches the commitment loss off)")
        else:
            expect_close(commitment_loss, beta * expected_codebook, what="commitment_loss", call=result,
                         hint=f"(beta = {beta} times the mean squared distance)")
    default = sub.vq_loss.call(z_e, codebook, indices)
    _, commitment_loss = _two(default, "codebook_loss and commitment_loss")
    expect_close(commitment_loss, 0.25 * expected_codebook, what="commitment_loss", call=default,
                 hint="(beta defaults to 0.25, the paper's value)")


@check("loss.random", "Random cases in float32 and float64 with given (not nearest) indices match the reference",
       clauses=["loss.codebook", "loss.commitment", "loss.given_indices"])
def loss_random(sub, ref):
    calls, expected = [], []
    for i, shape in enumerate(RANDOM_SHAPES):
        for dtype in (torch.float32, torch.float64):
            z_e, codebook = _case(50 + i, *shape)
            generator = torch.Generator().manual_seed(150 + i)
            indices = torch.randint(0, shape[1], (shape[0],), generator=generator)  # any rows, repeats allowed
            beta = [0.25, 0.5, 1.0, 3][i % 4]
            calls.append(((z_e.to(dtype), codebook.to(dtype), indices, beta), {}))
            expected.append(tuple(v.to(dtype) for v in ref.vq_loss(z_e, codebook, indices, beta)))
    for result, (want_codebook, want_commitment) in zip(sub.vq_loss.map(calls), expected, strict=True):
        codebook_loss, commitment_loss = _two(result, "codebook_loss and commitment_loss")
        hint = "(use the rows named by indices, even where they are not the nearest ones)"
        expect_close(codebook_loss, want_codebook, what="codebook_loss", call=result, hint=hint)
        expect_close(commitment_loss, want_commitment, what="commitment_loss", call=result, hint=hint)


@check("loss.mean_over_entries", "The losses are means over N * D entries: repeating the batch or the "
       "dimensions changes nothing", clauses=["loss.codebook"])
def loss_mean(sub, ref):
    z_e, codebook = _case(60, 3, 4, 2)
    indices = _indices([0, 3, 3])
    calls = [((z_e, codebook, indices), {}),
             ((z_e.repeat(4, 1), codebook, indices.repeat(4)), {}),
             ((z_e.repeat(1, 3), codebook.repeat(1, 3), indices), {})]
    base, batch, wide = sub.vq_loss.map(calls)
    reference_value = _two(base, "codebook_loss and commitment_loss")[0]
    expect_close(reference_value, ref.vq_loss(z_e, codebook, indices)[0], what="codebook_loss", call=base)
    for result, how in ((batch, "the batch repeated 4 times"), (wide, "every dimension repeated 3 times")):
        expect_close(_two(result, "codebook_loss and commitment_loss")[0], reference_value, what="codebook_loss",
                     call=result, hint=f"(with {how} the mean is the same: average over all N * D entries)")


# --------------------------------------------------------------------------------------------- gradients


@check("gradients.straight_through", "The gradient of z_q passes unchanged to z_e and never into the codebook",
       clauses=["quantize.straight_through"])
def gradients_straight_through(sub, ref):
    for seed, dtype in ((70, torch.float64), (71, torch.float32)):
        z_e, codebook = _case(seed, 5, 4, 3, dtype=dtype)
        generator = torch.Generator().manual_seed(seed + 100)
        cotangent = torch.randn(5, 3, generator=generator, dtype=torch.float64).to(dtype)
        result = sub.quantize.call(z_e.clone().requires_grad_(True), codebook.clone().requires_grad_(True),
                                   grads=("z_e", "codebook"),
                                   grad_output=(cotangent, torch.zeros(5, dtype=torch.int64)))
        z_q, _ = _two(result, "z_q and indices")
        expect_tensor(z_q, requires_grad=True, what="z_q", call=result)
        expect_grad_close(result, "z_e", cotangent, source="the straight-through rule (the identity)",
                          hint="(z_q = z_e + detach(code - z_e): the gradient of z_q reaches z_e unchanged)")
        expect_grad_none(result, "codebook",
                         hint="(only the codebook loss trains the codebook: detach the code inside z_q)")


@check("gradients.codebook_loss", "The codebook loss trains only the chosen codebook rows, by 2 (e_k - z_e) / "
       "(N D), as the reference and finite differences say", clauses=["gradients.codebook_loss"])
def gradients_codebook_loss(sub, ref):
    z_e, codebook = _case(80, 6, 5, 2)
    indices = _indices([0, 2, 2, 4, 0, 2])  # row 1 and row 3 unused, row 2 chosen three times
    ones, zero = torch.tensor(1.0, dtype=torch.float64), torch.tensor(0.0, dtype=torch.float64)
    result = sub.vq_loss.call(z_e.clone().requires_grad_(True), codebook.clone().requires_grad_(True), indices,
                              0.25, grads=("z_e", "codebook"), grad_output=(ones, zero))
    expected = torch.zeros_like(codebook).index_add_(0, indices, 2 * (codebook[indices] - z_e) / z_e.numel())
    expect_grad_close(result, "codebook", expected, source="2 (e_k - z_e) / (N D), summed per row",
                      hint="(gradients of rows chosen several times add up; rows never chosen get 0)")
    expect_close(_grad(result, "z_e", z_e), torch.zeros_like(z_e), what="the gradient of codebook_loss into z_e",
                 call=result, rtol=0, atol=1e-12,
                 hint="(the codebook loss must not train the encoder: detach z_e in it)")
    numeric = central_differences(sub.vq_loss, (z_e, codebook, indices, 0.25), 1, grad_output=(ones, zero))
    expect_grad_close(result, "codebook", numeric, rtol=1e-5, atol=1e-8,
                      source="central finite differences of your function")


@check("gradients.commitment", "The commitment loss trains only z_e, by 2 beta (z_e - e_k) / (N D), as the "
       "reference and finite differences say", clauses=["gradients.commitment"])
def gradients_commitment(sub, ref):
    z_e, codebook = _case(90, 4, 3, 3)
    indices = _indices([2, 0, 0, 1])
    zero, ones = torch.tensor(0.0, dtype=torch.float64), torch.tensor(1.0, dtype=torch.float64)
    for beta in (0.25, 2):
        result = sub.vq_loss.call(z_e.clone().requires_grad_(True), codebook.clone().requires_grad_(True),
                                  indices, beta, grads=("z_e", "codebook"), grad_output=(zero, ones))
        expected = 2 * beta * (z_e - codebook[indices]) / z_e.numel()
        expect_grad_close(result, "z_e", expected, source=f"2 beta (z_e - e_k) / (N D) with beta = {beta}",
                          hint="(the commitment term is beta times the mean squared distance, with the code "
                               "detached)")
        expect_close(_grad(result, "codebook", codebook), torch.zeros_like(codebook),
                     what="the gradient of commitment_loss into the codebook", call=result, rtol=0, atol=1e-12,
                     hint="(the commitment loss must not move the codebook: detach the code in it)")
        numeric = central_differences(sub.vq_loss, (z_e, codebook, indices, beta), 0, grad_output=(zero, ones))
        expect_grad_close(result, "z_e", numeric, rtol=1e-5, atol=1e-8,
                          source="central finite differences of your function")


# ---------------------------------------------------------------------------------------------- contract


@check("contract.inputs_unchanged", "Inputs are left unchanged and results are new storage",
       clauses=["contract.result"])
def inputs_unchanged(sub, ref):
    z_e, codebook = _case(100, 4, 3, 2)
    indices = _nearest(z_e, codebook)
    for result in (sub.quantize.call(z_e, codebook), sub.quantize.call(codebook[:2].clone(), codebook),
                   sub.vq_loss.call(z_e, codebook, indices, 0.5)):
        expect_unchanged(result)
        expect_no_alias(result)


@check("contract.strided_inputs", "Transposed and sliced views are accepted and give the same results",
       clauses=["contract.result"])
def strided_inputs(sub, ref):
    z_e, codebook = _case(110, 5, 4, 3)
    z_view = z_e.t().contiguous().t()  # [5, 3] with strides (1, 5)
    wide = torch.zeros(codebook.shape[0], 2 * codebook.shape[1], dtype=codebook.dtype)
    wide[:, ::2] = codebook
    codebook_view = wide[:, ::2]  # the same rows, with a column stride of 2
    indices = _nearest(z_e, codebook)
    quantized = sub.quantize.call(z_view, codebook_view)
    z_q, got = _two(quantized, "z_q and indices")
    expect_equal(got, indices, what="indices", call=quantized,
                 hint="(views may have any strides: avoid .view(); .reshape() or plain indexing works)")
    expect_close(z_q, codebook[indices], what="z_q", call=quantized)
    losses = sub.vq_loss.call(z_view, codebook_view, indices, 0.25)
    want = ref.vq_loss(z_e, codebook, indices, 0.25)
    for value, expected, name in zip(_two(losses, "the two losses"), want, ("codebook_loss", "commitment_loss"),
                                     strict=True):
        expect_close(value, expected, what=name, call=losses)


@check("contract.types", "Wrong kinds of z_e, codebook, indices or beta raise TypeError",
       clauses=["contract.types"])
def bad_types(sub, ref):
    z_e, codebook = _case(120, 3, 2, 2)
    indices = _indices([0, 1, 1])
    expect_rejected("TypeError", sub.quantize, [
        (([[0.0, 1.0]], codebook), {}, "z_e is a list, not a tensor"),
        ((z_e, codebook.tolist()), {}, "codebook is a list, not a tensor"),
        ((z_e.to(torch.int64), codebook.to(torch.int64)), {}, "integer tensors are not float32 or float64"),
        ((z_e.half(), codebook.half()), {}, "float16 is not float32 or float64"),
        ((z_e.float(), codebook), {}, "z_e is float32 and codebook float64"),
    ])
    expect_rejected("TypeError", sub.vq_loss, [
        ((z_e, codebook, [0, 1, 1]), {}, "indices is a list, not a tensor"),
        ((z_e, codebook, indices.to(torch.int32)), {}, "indices is int32, not int64"),
        ((z_e, codebook, indices.double()), {}, "indices holds floats"),
        ((z_e, codebook.float(), indices), {}, "codebook is float32 and z_e float64"),
        ((z_e, codebook, indices, True), {}, "beta is a bool"),
        ((z_e, codebook, indices, torch.tensor(0.25)), {}, "beta is a tensor, not a Python number"),
        ((z_e, codebook, indices, "0.25"), {}, "beta is a string"),
    ])


@check("contract.values", "Bad shapes, values, devices, indices and betas raise ValueError",
       clauses=["contract.values"])
def bad_values(sub, ref):
    z_e, codebook = _case(130, 3, 2, 2)
    indices = _indices([0, 1, 1])
    nan_z, inf_codebook = z_e.clone(), codebook.clone()
    nan_z[1, 0], inf_codebook[0, 1] = float("nan"), float("inf")
    expect_rejected("ValueError", sub.quantize, [
        ((z_e[0], codebook), {}, "z_e is 1-D"),
        ((z_e, codebook[None]), {}, "codebook is 3-D"),
        ((z_e[:0], codebook), {}, "z_e has no rows (N = 0)"),
        ((z_e, codebook[:0]), {}, "the codebook has no rows (K = 0)"),
        ((z_e[:, :0], codebook[:, :0]), {}, "D = 0"),
        ((z_e, torch.ones(2, 3, dtype=torch.float64)), {}, "codebook rows have 3 entries but z_e rows 2"),
        ((nan_z, codebook), {}, "z_e holds a nan"),
        ((z_e, inf_codebook), {}, "the codebook holds an inf"),
        ((z_e, codebook.to("meta")), {}, "codebook is on another device (meta)"),
    ])
    expect_rejected("ValueError", sub.vq_loss, [
        ((z_e, codebook, _indices([0, 1])), {}, "two indices for three rows of z_e"),
        ((z_e, codebook, _indices([[0, 1, 1]])), {}, "indices is 2-D"),
        ((z_e, codebook, _indices([0, 2, 1])), {}, "index 2 is out of range for K = 2"),
        ((z_e, codebook, _indices([0, -1, 1])), {}, "index -1 is out of range (negative)"),
        ((z_e, codebook, indices, -0.25), {}, "beta is negative"),
        ((z_e, codebook, indices, float("inf")), {}, "beta is infinite"),
        ((z_e, codebook, indices, float("nan")), {}, "beta is nan"),
        ((nan_z, codebook, indices), {}, "z_e holds a nan"),
        ((z_e[:, :1], codebook, indices), {}, "codebook rows have 2 entries but z_e rows 1"),
        ((z_e, codebook, indices.to("meta")), {}, "indices is on another device (meta)"),
    ])


# -------------------------------------------------------------------------------------------- experiment

CLUSTERS = [[2.0, 2.0], [-2.0, 2.0], [-2.0, -2.0], [2.0, -2.0]]
TOY_POINTS, TOY_STEPS, TOY_LR = 64, 30, 1.0


@check("experiment.fit_a_codebook", "Fit a 4-code codebook to four clusters with your quantize and vq_loss",
       group="experiment", required=False)
def experiment(sub, ref, ctx):
    generator = torch.Generator().manual_seed(140)
    centres = torch.tensor(CLUSTERS, dtype=torch.float64)
    points = centres.repeat(TOY_POINTS // 4, 1) + 0.3 * torch.randn(TOY_POINTS, 2, generator=generator,
                                                                    dtype=torch.float64)
    codebook = 0.5 * torch.randn(4, 2, generator=generator, dtype=torch.float64)
    losses, in_use = [], []
    for _ in range(TOY_STEPS):
        quantized = sub.quantize.call(points, codebook)
        _, indices = _two(quantized, "z_q and indices")
        expect_tensor(indices, shape=(TOY_POINTS,), dtype=torch.int64, what="indices", call=quantized)
        result = sub.vq_loss.call(points, codebook.clone().requires_grad_(True), indices, 0.25,
                                  grads=("codebook",), grad_output=(torch.tensor(1.0, dtype=torch.float64),
                                                                    torch.tensor(0.0, dtype=torch.float64)))
        codebook_loss, _ = _two(result, "codebook_loss and commitment_loss")
        losses.append(float(codebook_loss.detach()))
        in_use.append(len(set(indices.tolist())))
        codebook = codebook - TOY_LR * _grad(result, "codebook", codebook)
    expect(all(torch.isfinite(torch.tensor(losses))), "the codebook loss became non-finite during the fit")
    ctx.record_experiment(series={"codebook_loss": losses, "codes_in_use": in_use},
                          steps=list(range(TOY_STEPS)))
