"""Check battery for the selective scan problem (Gu & Dao, 2023, Mamba).

Groups `discretize`, `scan` (the sequential selective_scan), `parallel` (selective_scan_parallel) and the generic
`contract` battery are required; `experiment` is advisory (it records the impulse responses of the notes). The
declared contract in problem.toml covers shapes (empty batches and sequences included), dtypes, layouts, inputs
left unchanged, new storage, requires_grad, gradients against the reference and against central differences,
the refused arguments (A >= 0, delta < 0, nan, mixed dtypes, ...) and a property search. The checks here hold
what a declaration cannot say: hand examples, the convention for B_bar, the order "update, then read", the skip
term, the final state and scanning in pieces, independent batch rows, delta = 0 and huge delta * |A|, every length
for the parallel form, its stability under a long strongly decaying prefix, and gradients through both results.

Expected values come from `_oracle`, a float64 loop over time written here independently of the reference.
Tolerances: float64 results are compared at 1e-9 relative and 1e-10 absolute (every A_bar is in [0, 1], so the
recurrence is well conditioned and any correct order of operations lands far inside); float32 results are
compared with the exact float64 answer at 1e-5 relative and 1e-5 of the result's largest magnitude absolute, a
few float32 epsilons (1.2e-7) times the log2(L) + L roundings a scan of these lengths makes.
"""

import math

import torch

from grader.checks import check, expect, expect_close, expect_grad_close, fail, reference_grads

F64, F32 = torch.float64, torch.float32
LN2 = math.log(2.0)


def _t(values, dtype=F64):
    return torch.tensor(values, dtype=dtype)


def _tolerances(expected):
    """(rtol, atol) for comparing a result of this dtype with the exact answer (see the module docstring)."""
    if expected.dtype == F32:
        scale = float(expected.detach().abs().max()) if expected.numel() else 1.0
        return 1e-5, 1e-5 * max(scale, 1e-3)
    return 1e-9, 1e-10


# ----------------------------------------------------------------------------- an independent oracle


def _oracle(x, delta, A, B, C, D=None, h0=None):
    """(y, h_L) in float64 by the recurrence, one step at a time, cast back to x's dtype."""
    x64, dt, a, b, c = (t.detach().to(F64) for t in (x, delta, A, B, C))
    batch, length, channels = x64.shape
    n = a.shape[1]
    h = torch.zeros(batch, channels, n, dtype=F64) if h0 is None else h0.detach().to(F64).clone()
    y = torch.zeros(batch, length, channels, dtype=F64)
    for t in range(length):
        decay = torch.exp(dt[:, t, :, None] * a[None, :, :])  # [batch, D, N]
        h = decay * h + dt[:, t, :, None] * b[:, t, None, :] * x64[:, t, :, None]
        y[:, t] = torch.einsum("bdn,bn->bd", h, c[:, t])
    if D is not None:
        y = y + D.detach().to(F64) * x64
    return y.to(x.dtype), h.to(x.dtype)


def _inputs(seed, batch, length, channels, n, dtype=F64, *, skip=False, state=False, delta_scale=1.0):
    """Seeded legal inputs: x, B, C, D, h0 standard normal; delta = delta_scale * exp(N(0, 0.5^2)); A < 0."""
    generator = torch.Generator().manual_seed(seed)

    def randn(*shape):
        return torch.randn(*shape, generator=generator, dtype=F64)

    x = randn(batch, length, channels)
    delta = delta_scale * torch.exp(0.5 * randn(batch, length, channels))
    A = -torch.exp(0.5 * randn(channels, n))
    B, C = randn(batch, length, n), randn(batch, length, n)
    D = randn(channels) if skip else None
    h0 = randn(batch, channels, n) if state else None
    return [t if t is None else t.to(dtype) for t in (x, delta, A, B, C, D, h0)]


def _pair(result):
    """The (y, h_last) a scan returned, after checking it is a tuple of two tensors."""
    value = result.unwrap()
    if not (isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, torch.Tensor) for v in value)):
        fail(
            f"{result.call} returned {type(value).__name__}"
            + (f" of {len(value)} items" if isinstance(value, tuple | list) else "")
            + "; the contract says a tuple (y, h_last) of two tensors: y [batch, L, D] and the final state "
            "[batch, D, N]"
        )
    return value


def _expect_scan(result, expected, *, hint="", state_hint=""):
    """y and h_last of a call against (y, h_last) expected, each at its dtype's tolerance."""
    y, h = _pair(result)
    expected_y, expected_h = expected
    rtol, atol = _tolerances(expected_y)
    finite = bool(torch.isfinite(y.detach()).all()) if y.dtype.is_floating_point else True
    expect(finite, f"{result.call}: y has nan or inf entries, but every legal input has a finite result. {hint}")
    expect_close(y, expected_y, what="y (the first result)", call=result, rtol=rtol, atol=atol, hint=hint)
    rtol, atol = _tolerances(expected_h)
    expect_close(
        h, expected_h, what="h_last (the second result)", call=result, rtol=rtol, atol=atol, hint=state_hint or hint
    )


def _scan(sub, name):
    return getattr(sub, name)


# ------------------------------------------------------------------------------------------- discretize


def _discretize_hand_inputs():
    # channel 0: A = [-ln 2, -2 ln 2]; channel 1: A = [-1, -3]. Step 1: delta = [1, 0]; step 2: delta = [2, 1].
    delta = _t([[[1.0, 0.0], [2.0, 1.0]]])
    A = _t([[-LN2, -2 * LN2], [-1.0, -3.0]])
    B = _t([[[1.0, -2.0], [3.0, 0.5]]])
    return delta, A, B


@check(
    "discretize.hand_example",
    "Hand example: A_bar = exp(delta A), B_bar = delta B, delta used as given",
    clauses=["discretize.zoh_a", "discretize.simplified_b", "scan.delta_as_given", "scan.delta_edges"],
)
def discretize_hand_example(sub, ref):
    delta, A, B = _discretize_hand_inputs()
    result = sub.discretize.call(delta, A, B)
    value = result.unwrap()
    if not (isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, torch.Tensor) for v in value)):
        fail(
            f"{result.call} returned {type(value).__name__}; the contract says a tuple (A_bar, B_bar) of two "
            "tensors of shape [batch, L, D, N]"
        )
    A_bar, B_bar = value
    e = math.exp
    expected_a = _t([[[[0.5, 0.25], [1.0, 1.0]], [[0.25, 0.0625], [e(-1.0), e(-3.0)]]]])
    expected_b = _t([[[[1.0, -2.0], [0.0, 0.0]], [[6.0, 1.0], [3.0, 0.5]]]])
    expect_close(
        A_bar,
        expected_a,
        what="A_bar (the first result)",
        call=result,
        hint="(A_bar[b, t, d, n] = exp(delta[b, t, d] * A[d, n]): step 1, channel 0 has delta = 1, so "
        "exp(-ln 2) = 0.5 and exp(-2 ln 2) = 0.25; channel 1 has delta = 0, so A_bar = 1, an identity "
        "step; delta is used as given, with no softplus)",
    )
    expect_close(
        B_bar,
        expected_b,
        what="B_bar (the second result)",
        call=result,
        hint="(B_bar[b, t, d, n] = delta[b, t, d] * B[b, t, n], Mamba's simplification: step 2, channel 0 "
        "has delta = 2 and B = [3, 0.5], so [6, 1]; a channel with delta = 0 receives nothing. Not the "
        "exact zero-order hold (exp(delta A) - 1) / A * B, and not exp(delta B))",
    )


@check(
    "discretize.extremes",
    "delta = 0 gives (1, 0); delta * |A| = 1e4 gives A_bar = 0 and B_bar = delta B, float32 and float64",
    clauses=["discretize.zoh_a", "discretize.simplified_b", "scan.delta_edges"],
)
def discretize_extremes(sub, ref):
    # One step, one channel with delta = 0 and one with delta = 100 against A = -100: exp(-1e4) underflows to 0
    # in both dtypes. The simplified B_bar keeps growing with delta (100 * B), where the exact zero-order hold
    # would saturate at B / |A| (0.01 * B).
    delta = _t([[[0.0, 100.0]]])
    A = _t([[-1.0, -0.5], [-100.0, -100.0]])
    B = _t([[[2.0, -3.0]]])
    expected_a = _t([[[[1.0, 1.0], [0.0, 0.0]]]])
    expected_b = _t([[[[0.0, 0.0], [200.0, -300.0]]]])
    for dtype in (F64, F32):
        result = sub.discretize.call(delta.to(dtype), A.to(dtype), B.to(dtype))
        A_bar, B_bar = result.unwrap()
        expect(
            bool(torch.isfinite(A_bar.detach()).all() and torch.isfinite(B_bar.detach()).all()),
            f"{result.call} returned nan or inf: exp(delta * A) of a very negative product underflows to 0, "
            "which is the right answer (the state is forgotten); never exponentiate a positive number here",
        )
        expect_close(
            A_bar,
            expected_a.to(dtype),
            what="A_bar (the first result)",
            call=result,
            hint="(delta = 0 gives exp(0) = 1, an identity step; delta * A = -1e4 gives exp(-1e4) = 0)",
        )
        expect_close(
            B_bar,
            expected_b.to(dtype),
            what="B_bar (the second result)",
            call=result,
            hint="(B_bar = delta * B: 0 for delta = 0 and 100 * [2, -3] = [200, -300] for delta = 100; "
            "the exact zero-order hold would give (exp(-1e4) - 1) / -100 * B = 0.01 * B, which is "
            "the other convention, not this problem's)",
        )


# ------------------------------------------------------------------------------------------- the scans


def _scan_hand_inputs():
    # D = 1 channel, N = 2: A = [-ln 2, -2 ln 2], so delta = 1 gives A_bar = [1/2, 1/4] and delta = 2 gives
    # [1/4, 1/16]; B_bar = delta * B.
    x = _t([[[1.0], [2.0], [-1.0]]])
    delta = _t([[[1.0], [2.0], [1.0]]])
    A = _t([[-LN2, -2 * LN2]])
    B = _t([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]])
    C = _t([[[1.0, 1.0], [2.0, 0.0], [1.0, -1.0]]])
    return x, delta, A, B, C


HAND_HINT = (
    "(h_1 = [1, 0] so y_1 = 1; h_2 = [1/4, 1/16] * h_1 + 2 * [0, 1] * 2 = [0.25, 4] so y_2 = 2 * 0.25 = "
    "0.5; h_3 = [1/2, 1/4] * h_2 - [1, 1] = [-0.875, 0] so y_3 = -0.875. Update the state first, then "
    "read y_t = C_t . h_t; B_bar = delta * B; delta is used as given)"
)
SKIP_HINT = (
    "(from h0 = [2, -4]: h_1 = [2, -1], h_2 = [0.5, 3.9375], h_3 = [-0.75, -0.015625], so C_t . h_t = "
    "[1, 1, -0.734375], plus D * x_t = 0.5 * [1, 2, -1]: y = [1.5, 2, -1.234375]; h0 is the state before "
    "step 1, decayed by A_bar_1 like any state)"
)


def _hand_example(sub, name):
    x, delta, A, B, C = _scan_hand_inputs()
    function = _scan(sub, name)
    plain = function.call(x, delta, A, B, C)
    _expect_scan(
        plain,
        (_t([[[1.0], [0.5], [-0.875]]]), _t([[[-0.875, 0.0]]])),
        hint=HAND_HINT,
        state_hint="(h_last is the state after the last step, h_3 = [-0.875, 0])",
    )
    D, h0 = _t([0.5]), _t([[[2.0, -4.0]]])
    full = function.call(x, delta, A, B, C, D, h0)
    _expect_scan(
        full,
        (_t([[[1.5], [2.0], [-1.234375]]]), _t([[[-0.75, -0.015625]]])),
        hint=SKIP_HINT,
        state_hint="(h_last = h_3 = [-0.75, -0.015625], the state after the last step, from h0 = [2, -4])",
    )


def _random_cases(sub, name):
    shapes = [
        (1, 5, 3, 2, F64, False, False),
        (2, 7, 2, 3, F64, True, True),
        (3, 1, 4, 1, F64, True, False),
        (2, 6, 3, 4, F32, True, True),
        (1, 9, 2, 2, F32, False, True),
        (2, 4, 1, 5, F64, False, True),
    ]
    cases = [
        _inputs(11 + i, batch, length, d, n, dtype, skip=skip, state=state)
        for i, (batch, length, d, n, dtype, skip, state) in enumerate(shapes)
    ]
    results = _scan(sub, name).map([(tuple(args), {}) for args in cases])
    for result, args in zip(results, cases, strict=True):
        _expect_scan(
            result,
            _oracle(*args),
            hint="(h_t = exp(delta_t A) * h_{t-1} + delta_t B_t x_t elementwise over [D, N], from h0 or "
            "zeros; y_t[d] = sum_n C_t[n] h_t[d, n] + D[d] x_t[d] when D is given)",
        )


def _batch_rows(sub, name):
    # Three rows, each with its own h0: the batch gives what each row gives alone, and reversing the batch
    # reverses the results.
    x, delta, A, B, C, D, h0 = _inputs(31, 3, 5, 2, 3, skip=True, state=True)
    calls = [((x, delta, A, B, C, D, h0), {})]
    calls += [
        (
            (
                x[i : i + 1].clone(),
                delta[i : i + 1].clone(),
                A,
                B[i : i + 1].clone(),
                C[i : i + 1].clone(),
                D,
                h0[i : i + 1].clone(),
            ),
            {},
        )
        for i in range(3)
    ]
    flip = [t.flip(0) for t in (x, delta, B, C, h0)]
    calls.append(((flip[0], flip[1], A, flip[2], flip[3], D, flip[4]), {}))
    results = _scan(sub, name).map(calls)
    whole = results[0]
    _expect_scan(
        whole,
        _oracle(x, delta, A, B, C, D, h0),
        hint="(each batch row is its own sequence, starting from its own row of h0)",
    )
    y, h = _pair(whole)
    for i, alone in enumerate(results[1:4]):
        y_i, h_i = _pair(alone)
        _expect_scan(
            alone,
            (y[i : i + 1].detach(), h[i : i + 1].detach()),
            hint=f"(row {i} scanned alone must give row {i} of {whole.call}: a state that carries from "
            "one row to the next, or is shared across the batch, mixes sequences)",
        )
    _expect_scan(
        results[4],
        (y.detach().flip(0), h.detach().flip(0)),
        hint="(reversing the batch must reverse the results and change nothing else)",
    )


def _pieces(sub, name):
    # Scanning steps 0..k-1, then k..L-1 from the first piece's h_last, gives the whole scan: h_last is the
    # state after the last step, and h0 is used as the state before the first.
    x, delta, A, B, C, D, h0 = _inputs(41, 2, 7, 3, 2, skip=True, state=True)
    function = _scan(sub, name)
    splits = (3, 1, 6)

    def piece(k0, k1, start):
        return (x[:, k0:k1].clone(), delta[:, k0:k1].clone(), A, B[:, k0:k1].clone(), C[:, k0:k1].clone(), D, start)

    results = function.map(
        [((x, delta, A, B, C, D, h0), {}), (piece(0, 0, h0), {})] + [(piece(0, k, h0), {}) for k in splits]
    )
    whole, empty, firsts = results[0], results[1], results[2:]
    _expect_scan(whole, _oracle(x, delta, A, B, C, D, h0))
    y, h = _pair(whole)
    y0, h_empty = _pair(empty)
    expect_close(y0, y[:, :0].detach(), what="y (the first result)", call=empty)
    expect_close(
        h_empty,
        h0,
        what="h_last (the second result)",
        call=empty,
        hint="(with L = 0 no step is taken: h_last is h0, returned as a new tensor)",
    )
    for k, first in zip(splits, firsts, strict=True):
        _expect_scan(
            first,
            _oracle(*piece(0, k, h0)),
            state_hint=f"(h_last of the first {k} steps is the state after step {k}, h_{k}: the state "
            "the next step starts from)",
        )
    seconds = function.map(
        [(piece(k, 7, _pair(first)[1].detach().clone()), {}) for k, first in zip(splits, firsts, strict=True)]
    )
    for k, second in zip(splits, seconds, strict=True):
        _expect_scan(
            second,
            (y[:, k:].detach(), h.detach()),
            hint=f"(steps {k + 1} to 7 scanned from the first piece's h_last must continue the whole scan "
            f"{whole.call} exactly: h0 is the state before the first step, decayed by A_bar_1 and "
            "then updated like any state)",
        )


def _delta_edges(sub, name):
    # Channel 0 has delta = 0 at steps 2 and 4 (identity steps: the state passes unchanged and x is ignored);
    # channel 1 has delta = 50 against A <= -40 at step 3 (exp(-2000) = 0: the state is forgotten, h_3 = 50 B_3 x_3).
    generator = torch.Generator().manual_seed(51)
    x = torch.randn(2, 6, 2, generator=generator, dtype=F64)
    delta = 0.5 + torch.rand(2, 6, 2, generator=generator, dtype=F64)
    delta[:, 2, 0] = 0.0
    delta[:, 4, 0] = 0.0
    delta[:, 3, 1] = 50.0
    A = _t([[-0.7, -1.3], [-40.0, -90.0]])
    B = torch.randn(2, 6, 2, generator=generator, dtype=F64)
    C = torch.randn(2, 6, 2, generator=generator, dtype=F64)
    h0 = torch.randn(2, 2, 2, generator=generator, dtype=F64)
    results = _scan(sub, name).map(
        [(tuple(t.to(dtype) for t in (x, delta, A, B, C)) + (None, h0.to(dtype)), {}) for dtype in (F64, F32)]
    )
    for result, dtype in zip(results, (F64, F32), strict=True):
        args = [t.to(dtype) for t in (x, delta, A, B, C)]
        _expect_scan(
            result,
            _oracle(*args, None, h0.to(dtype)),
            hint="(delta = 0 is an identity step: A_bar = 1 and B_bar = 0, so h_t = h_{t-1} and x_t is "
            "ignored; delta * |A| = 2000 gives A_bar = exp(-2000) = 0, so the old state is forgotten "
            "and h_t = delta_t B_t x_t, finite: no nan from 0 * inf, no division by a product of "
            "A_bar)",
        )


def _gradients(sub, ref, name):
    # Gradients of both results at once, and of h_last alone (its gradient must not be dropped), against the
    # reference's float64 autograd, with delta = 0 in one place.
    x, delta, A, B, C, D, h0 = _inputs(61, 2, 5, 2, 3, skip=True, state=True)
    delta[0, 2, 1] = 0.0
    generator = torch.Generator().manual_seed(62)
    cotangent_y = torch.randn(2, 5, 2, generator=generator, dtype=F64)
    cotangent_h = torch.randn(2, 2, 3, generator=generator, dtype=F64)
    names = ("x", "delta", "A", "B", "C", "D", "h0")
    args = (x, delta, A, B, C, D, h0)
    outputs = [(cotangent_y, cotangent_h), (torch.zeros_like(cotangent_y), cotangent_h)]
    results = _scan(sub, name).map(
        [(tuple(t.clone().requires_grad_(True) for t in args), {})] * 2, grads=names, grad_outputs=outputs
    )
    for result, grad_output, what in zip(results, outputs, ("y and h_last", "h_last alone"), strict=True):
        _pair(result)
        expected = reference_grads(getattr(ref, name), args, names, grad_output=grad_output)
        for arg_name in names:
            if what == "h_last alone" and arg_name in ("C", "D"):
                continue  # h_last does not depend on C or D: a zero or absent gradient are both right
            expect_grad_close(
                result,
                arg_name,
                expected[arg_name],
                rtol=1e-7,
                atol=1e-9,
                hint=f"(the gradient of a weighted sum of {what}: every tensor argument reaches "
                "both results through the recurrence, and the final state is part of the "
                "graph like y; do not detach it or h0)",
            )


@check(
    "scan.hand_example",
    "Hand example: three steps of one channel, then with a skip D and a start state h0",
    clauses=["scan.recurrence", "scan.delta_as_given", "scan.skip", "scan.final_state"],
)
def scan_hand_example(sub, ref):
    _hand_example(sub, "selective_scan")


@check(
    "scan.random",
    "Random inputs of several shapes, float32 and float64, with and without D and h0",
    clauses=["scan.recurrence", "scan.skip"],
)
def scan_random(sub, ref):
    _random_cases(sub, "selective_scan")


@check(
    "scan.batch",
    "Batch rows are independent sequences: alone, together or reordered, each gives the same",
    clauses=["scan.batch"],
)
def scan_batch(sub, ref):
    _batch_rows(sub, "selective_scan")


@check(
    "scan.pieces",
    "Scanning in two pieces, the second from the first's h_last, gives the whole scan; L = 0 returns h0",
    clauses=["scan.final_state"],
)
def scan_pieces(sub, ref):
    _pieces(sub, "selective_scan")


@check(
    "scan.delta_edges",
    "delta = 0 is an identity step; delta * |A| = 2000 forgets the state, with no nan",
    clauses=["scan.delta_edges"],
)
def scan_delta_edges(sub, ref):
    _delta_edges(sub, "selective_scan")


@check(
    "scan.gradients",
    "Gradients to x, delta, A, B, C, D and h0 through y and through h_last",
    clauses=["scan.gradients"],
)
def scan_gradients(sub, ref):
    _gradients(sub, ref, "selective_scan")


@check(
    "parallel.hand_example",
    "Hand example: the parallel form gives the three steps of the sequential one",
    clauses=["parallel.equal", "scan.recurrence", "scan.skip", "scan.final_state"],
)
def parallel_hand_example(sub, ref):
    _hand_example(sub, "selective_scan_parallel")


@check(
    "parallel.every_length",
    "Every length from 1 to 17, powers of two or not, equals the recurrence",
    clauses=["parallel.equal", "scan.final_state"],
)
def parallel_every_length(sub, ref):
    lengths = list(range(1, 10)) + [12, 16, 17]
    cases = [_inputs(70 + length, 2, length, 2, 2, skip=length % 2 == 0, state=length % 3 != 0) for length in lengths]
    results = sub.selective_scan_parallel.map([(tuple(args), {}) for args in cases])
    for result, args, length in zip(results, cases, lengths, strict=True):
        _expect_scan(
            result,
            _oracle(*args),
            hint=f"(L = {length}: position t must combine exactly the steps 1..t, whatever L is; when "
            "padding to a power of two, pad after the sequence with identity steps (A_bar = 1, no "
            "input) and read h_last at position L, not at the end of the padding)",
        )


@check(
    "parallel.random",
    "Random inputs of several shapes, float32 and float64, with and without D and h0",
    clauses=["parallel.equal", "scan.skip"],
)
def parallel_random(sub, ref):
    _random_cases(sub, "selective_scan_parallel")


@check("parallel.batch", "Batch rows are independent sequences in the parallel form too", clauses=["scan.batch"])
def parallel_batch(sub, ref):
    _batch_rows(sub, "selective_scan_parallel")


@check(
    "parallel.pieces",
    "The parallel form's h_last continues the scan exactly; L = 0 returns h0",
    clauses=["scan.final_state", "parallel.equal"],
)
def parallel_pieces(sub, ref):
    _pieces(sub, "selective_scan_parallel")


@check(
    "parallel.delta_edges",
    "delta = 0 and delta * |A| = 2000 in the parallel form: exact, no nan",
    clauses=["scan.delta_edges", "parallel.stable"],
)
def parallel_delta_edges(sub, ref):
    _delta_edges(sub, "selective_scan_parallel")


def _long_decay_inputs(dtype):
    # Eight steps with delta = 1000 push the running sum of delta * A to -8000 * |A| (down to -24000), then 16
    # steps with delta near 0.05. exp(-running sum) overflows; the difference of two running sums near -24000
    # keeps only ~3 significant digits in float32 (its spacing there is 0.002), where the true segment sums
    # are -0.05 * |A| * (t - s). The last step of the prefix has x = 0, so the state leaves it empty and the
    # later outputs (of order 0.1) come from the small steps alone.
    generator = torch.Generator().manual_seed(81)
    x = torch.randn(2, 24, 2, generator=generator, dtype=F64)
    x[:, 7] = 0.0
    delta = 0.05 * (1 + 0.2 * torch.rand(2, 24, 2, generator=generator, dtype=F64))
    delta[:, :8] = 1000.0
    A = _t([[-1.0, -2.0], [-0.5, -3.0]])
    B = torch.randn(2, 24, 2, generator=generator, dtype=F64)
    C = torch.randn(2, 24, 2, generator=generator, dtype=F64)
    h0 = torch.randn(2, 2, 2, generator=generator, dtype=F64)
    return [t.to(dtype) for t in (x, delta, A, B, C)] + [None, h0.to(dtype)]


@check(
    "parallel.long_decay",
    "A long strongly decaying prefix (cumulative delta * A down to -24000): finite and float32-accurate",
    clauses=["parallel.stable", "parallel.equal"],
)
def parallel_long_decay(sub, ref):
    cases = [_long_decay_inputs(dtype) for dtype in (F32, F64)]
    results = sub.selective_scan_parallel.map([(tuple(args), {}) for args in cases])
    for result, args in zip(results, cases, strict=True):
        y, h = _pair(result)
        expected_y, expected_h = _oracle(*args)
        expect(
            bool(torch.isfinite(y.detach()).all() and torch.isfinite(h.detach()).all()),
            f"{result.call} returned nan or inf. The running sum of delta * A reaches -24000 here: exp of minus "
            "that sum overflows (so P_t * cumsum(b / P_t), with P_t the running product of A_bar, gives inf * 0 = "
            "nan). Combine steps by multiplying values of A_bar, which are in [0, 1], and never divide by them",
        )
        # the steps after the prefix hold values of order 0.1; the prefix itself near 1000
        late = slice(8, None)
        rtol, atol = _tolerances(expected_y[:, late])
        expect_close(
            y[:, late],
            expected_y[:, late],
            what="y at steps 9 to 24 (after the decaying prefix)",
            call=result,
            rtol=rtol,
            atol=atol,
            hint="(a segment sum computed as the difference of two running sums, S_t - S_s, loses its "
            "digits when both are near -24000 in float32 (their spacing there is 0.002); sum only "
            "the delta * A of the steps between s and t, or multiply A_bar values step by step)",
        )
        _expect_scan(result, (expected_y, expected_h))


@check(
    "parallel.gradients",
    "Gradients through y and h_last of the parallel form, also after the long decaying prefix",
    clauses=["scan.gradients", "parallel.stable"],
)
def parallel_gradients(sub, ref):
    _gradients(sub, ref, "selective_scan_parallel")
    args = _long_decay_inputs(F64)
    names = ("x", "delta", "A", "B", "C", "h0")
    generator = torch.Generator().manual_seed(82)
    grad_output = (
        torch.randn(2, 24, 2, generator=generator, dtype=F64),
        torch.randn(2, 2, 2, generator=generator, dtype=F64),
    )
    leaves = [t if t is None else t.clone().requires_grad_(True) for t in args]
    result = sub.selective_scan_parallel.call(*leaves, grads=names, grad_output=grad_output)
    _pair(result)
    expected = reference_grads(ref.selective_scan, tuple(args), names, grad_output=grad_output)
    for arg_name in names:
        grad = result.grads.get(arg_name)
        if grad is not None:
            expect(
                bool(torch.isfinite(grad).all()),
                f"after backward() on {result.call}, {arg_name}.grad has nan or inf entries: the backward pass "
                "of an overflowing exp (or of 0 * inf) poisons every gradient; keep every exponent <= 0",
            )
        expect_grad_close(
            result,
            arg_name,
            expected[arg_name],
            rtol=1e-7,
            atol=1e-9,
            hint="(the same gradients the recurrence gives, after a prefix whose A_bar values are 0)",
        )


# -------------------------------------------------------------------------------------------- experiment

STEPS = 40
PATTERNS = {
    "fixed_delta": {},  # delta = 0.1 everywhere: a time-invariant system
    "reset_at_15": {15: 10.0},  # one large step: the state is forgotten
    "ignore_at_25": {25: 0.0},  # a zero step on the second impulse: it never enters
}


@check(
    "experiment.impulse",
    "Your parallel scan's response to two impulses when delta is fixed, when one large "
    "delta resets the state, and when delta = 0 ignores an input",
    group="experiment",
    required=False,
)
def experiment(sub, ref, ctx):
    x = torch.zeros(1, STEPS, 1, dtype=F64)
    x[0, 0, 0] = 1.0
    x[0, 25, 0] = 1.0
    A = _t([[-1.0]])
    B = torch.ones(1, STEPS, 1, dtype=F64)
    C = torch.ones(1, STEPS, 1, dtype=F64)
    calls = []
    for changes in PATTERNS.values():
        delta = torch.full((1, STEPS, 1), 0.1, dtype=F64)
        for step, value in changes.items():
            delta[0, step, 0] = value
        calls.append(((x, delta, A, B, C), {}))
    series = {}
    for name, result in zip(PATTERNS, sub.selective_scan_parallel.map(calls), strict=True):
        y, _ = _pair(result)
        series[name] = [float(v) for v in y.detach().reshape(-1)]
    ctx.record_experiment(steps=list(range(STEPS)), series=series, x_label="time step t")
