"""Check battery for the VQ-VAE problem: quantize and vq_loss (van den Oord et al., 2017).

The contract of problem.toml (shapes, dtypes, layouts, storage, the straight-through and stop-gradient
gradients against the reference, refusals, random values) is checked by the generic battery (`contract.*`); the
checks here are the hand examples, ties, far inputs, beta and the mean's invariance, and the experiment. Groups:
`quantize`, `loss` and `contract` are required; `experiment` is advisory (it records the chart of the notes).
Every check names the contract clauses of problem.toml it tests. Every random input comes from a seeded
generator, so two runs give identical verdicts.

Random codebooks have rows of very different lengths (so the dot product ranks them differently from the
distance), and every random input is checked here to have a clear nearest row (a margin far above rounding),
so any correct way of computing the distance picks the same rows.
"""

import torch

from grader.checks import (
    CheckFailed,
    WorkerLost,
    check,
    expect,
    expect_close,
    expect_equal,
    expect_tensor,
    fail,
    same_bits,
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


@check("loss.hand_example", "Hand example: codebook loss 0.0925 and commitment loss 0.023125 (beta = 0.25); "
       "with the indices of two far codes, 14.2425 and 3.560625", clauses=["loss.codebook", "loss.commitment",
                                                                           "loss.given_indices"])
def loss_hand_example(sub, ref):
    z_e, codebook = torch.tensor(Z_E, dtype=torch.float64), torch.tensor(CODEBOOK, dtype=torch.float64)
    nearest, far = sub.vq_loss.map([((z_e, codebook, _indices([0, 1])), {}),
                                    ((z_e, codebook, _indices([3, 4])), {})])
    codebook_loss, commitment_loss = _two(nearest, "codebook_loss and commitment_loss")
    expect_close(codebook_loss, torch.tensor(0.0925, dtype=torch.float64), what="codebook_loss", call=nearest,
                 hint="(squared errors 0.2 + 0.17 over N * D = 4 entries, not scaled by beta)")
    expect_close(commitment_loss, torch.tensor(0.023125, dtype=torch.float64), what="commitment_loss",
                 call=nearest, hint="(beta = 0.25 times the same mean, 0.0925)")
    # Rows 3 and 4 are [3, 3] and [-4, -4], at squared distances 13.6 and 43.37: (13.6 + 43.37) / 4 = 14.2425.
    codebook_loss, commitment_loss = _two(far, "codebook_loss and commitment_loss")
    hint = "(the rows named by indices, [3, 3] and [-4, -4], at squared distances 13.6 and 43.37, even though " \
           "they are not the nearest)"
    expect_close(codebook_loss, torch.tensor(14.2425, dtype=torch.float64), what="codebook_loss", call=far,
                 hint=hint)
    expect_close(commitment_loss, torch.tensor(3.560625, dtype=torch.float64), what="commitment_loss", call=far,
                 hint=hint)


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


# -------------------------------------------------------------------------------------------- experiment

CLUSTERS = [[2.0, 2.0], [-2.0, 2.0], [-2.0, -2.0], [2.0, -2.0]]
TOY_POINTS, TOY_STEPS, TOY_LR = 64, 30, 1.0


TOY_BETA = 0.25
CODEBOOK_LOSS_ONLY = (torch.tensor(1.0, dtype=torch.float64), torch.tensor(0.0, dtype=torch.float64))


def _toy():
    """The points (four noisy clusters) and the codebook the fit starts from."""
    generator = torch.Generator().manual_seed(140)
    centres = torch.tensor(CLUSTERS, dtype=torch.float64)
    points = centres.repeat(TOY_POINTS // 4, 1) + 0.3 * torch.randn(TOY_POINTS, 2, generator=generator,
                                                                    dtype=torch.float64)
    return points, 0.5 * torch.randn(4, 2, generator=generator, dtype=torch.float64)



def _pair_of_tensors(value):
    return isinstance(value, tuple) and len(value) == 2 and all(type(t) is torch.Tensor for t in value)


def fit_in_one_request(sub):
    """The chart's series as the step-by-step fit below would draw them, in three requests instead of 60, or None.

    The worker fits the codebook (helpers.experiment_fit, the same steps as the fit's) and returns every answer of
    the learner's functions. The judge fits again from those answers and makes every call again from the
    codebooks it reaches, each function's calls in one request. Only when every answer is bit for bit the run's
    are these the fit's series: by induction, each of its calls would get the same input and give the same
    answer. Anything else (a fit that raised or broke a limit, an answer of another form, a loss that is not
    finite, a function that answers the same input differently) returns None, and the fit runs as before."""
    points, codebook = _toy()
    try:
        run = sub.from_helpers("experiment_fit", uses=("quantize", "vq_loss")).call(
            points, codebook, TOY_STEPS, TOY_LR, TOY_BETA)
        records = run.value if run.raised is None else None
        if not (isinstance(records, list) and len(records) == TOY_STEPS):
            return None
        losses, in_use, quantize_calls, loss_calls = [], [], [], []
        for record in records:
            if not (isinstance(record, tuple) and len(record) == 3 and _pair_of_tensors(record[0])
                    and _pair_of_tensors(record[1]) and (record[2] is None or type(record[2]) is torch.Tensor)):
                return None
            indices = record[0][1]
            if indices.shape != (TOY_POINTS,) or indices.dtype != torch.int64:
                return None
            quantize_calls.append(((points, codebook), {}))
            loss_calls.append(((points, codebook.clone().requires_grad_(True), indices, TOY_BETA), {}))
            losses.append(float(record[1][0].detach()))
            in_use.append(len(set(indices.tolist())))
            codebook = codebook - TOY_LR * (torch.zeros_like(codebook) if record[2] is None else record[2])
        if not all(torch.isfinite(torch.tensor(losses))):
            return None
        quantized = sub.quantize.map(quantize_calls)
        results = sub.vq_loss.map(loss_calls, grads=("codebook",), grad_outputs=[CODEBOOK_LOSS_ONLY] * TOY_STEPS)
    except (CheckFailed, WorkerLost):
        return None
    agree = all(
        q.raised is None and r.raised is None and isinstance(q.value, tuple | list) and len(q.value) == 2
        and isinstance(r.value, tuple | list) and len(r.value) == 2
        and all(same_bits(got, expected) for got, expected in zip(q.value, record[0], strict=True))
        and all(same_bits(got, expected) for got, expected in zip(r.value, record[1], strict=True))
        and same_bits(r.grads.get("codebook"), record[2])
        for q, r, record in zip(quantized, results, records, strict=True))
    return {"codebook_loss": losses, "codes_in_use": in_use} if agree else None


@check("experiment.fit_a_codebook", "Fit a 4-code codebook to four clusters with your quantize and vq_loss",
       group="experiment", required=False)
def experiment(sub, ref, ctx):
    """The fit step by step; a fit that goes through takes three requests (fit_in_one_request)."""
    fast = fit_in_one_request(sub)
    if fast is not None:
        ctx.record_experiment(series=fast, steps=list(range(TOY_STEPS)))
        return
    points, codebook = _toy()
    losses, in_use = [], []
    for _ in range(TOY_STEPS):
        quantized = sub.quantize.call(points, codebook)
        _, indices = _two(quantized, "z_q and indices")
        expect_tensor(indices, shape=(TOY_POINTS,), dtype=torch.int64, what="indices", call=quantized)
        result = sub.vq_loss.call(points, codebook.clone().requires_grad_(True), indices, TOY_BETA,
                                  grads=("codebook",), grad_output=CODEBOOK_LOSS_ONLY)
        codebook_loss, _ = _two(result, "codebook_loss and commitment_loss")
        losses.append(float(codebook_loss.detach()))
        in_use.append(len(set(indices.tolist())))
        codebook = codebook - TOY_LR * _grad(result, "codebook", codebook)
    expect(all(torch.isfinite(torch.tensor(losses))), "the codebook loss became non-finite during the fit")
    ctx.record_experiment(series={"codebook_loss": losses, "codes_in_use": in_use},
                          steps=list(range(TOY_STEPS)))
