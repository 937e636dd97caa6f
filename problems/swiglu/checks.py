"""Check battery for the SwiGLU problem (Shazeer, 2020; LLaMA's hidden size, Touvron et al., 2023).

Groups `silu`, `ffn`, `hidden` and `contract` are required; `experiment` is advisory (it records the chart of the
notes). The declared contract in problem.toml covers shapes, dtypes, layouts, inputs left unchanged, new
storage, requires_grad, gradients against the reference and central differences, the refused arguments
(mismatched weight shapes among them) and a property search; the checks here hold what a declaration cannot
say: the hand examples, which branch carries the SiLU, the weight layout, the closed-form derivatives, stability
at pre-activations of 1e4, vectors transformed independently, and LLaMA's published sizes.

Tolerances: float64 results are compared with the exact value at (1e-9, 1e-10) relative/absolute; float32
results with the exact value rounded to float32 at (1e-5, 1e-5) relative to a value scale of at most 1e4, where
a correct float32 computation is within a few float32 epsilons (1.2e-7) of it.
"""

import torch

from grader.checks import check, expect, expect_close, expect_equal, expect_grad_close, expect_tensor, seeded_randn

F64 = torch.float64
F32 = torch.float32
HAND_X = [[1.0, 2.0]]
HAND_GATE = [[1.0, -1.0], [0.0, 1.0]]
HAND_UP = [[2.0, 0.0], [1.0, 1.0]]
HAND_DOWN = [[1.0, 1.0], [0.0, 2.0]]
# Extremes of the activation: float32's exp overflows beyond 88.7, float64's beyond 709.8.
EXTREMES = [-1e4, -1000.0, -100.0, -89.0, -30.0, -1.0, 0.0, 1.0, 30.0, 89.0, 100.0, 1000.0, 1e4]


def _t(values, dtype=F64):
    return torch.tensor(values, dtype=dtype)


def _tolerances(dtype):
    return (1e-5, 1e-5) if dtype == F32 else (1e-9, 1e-10)


# -------------------------------------------------------------- an independent float64 oracle for the checks


def _sigmoid(x):
    """sigmoid in float64 from exp of a non-positive number only: never overflows."""
    z = torch.exp(-x.abs())
    return torch.where(x >= 0, 1.0 / (1.0 + z), z / (1.0 + z))


def _silu(x):
    return x * _sigmoid(x)


def _silu_derivative(x):
    s = _sigmoid(x)
    return s * (1.0 + x * (1.0 - s))


def _ffn(x, w_gate, w_up, w_down):
    x, w_gate, w_up, w_down = (t.detach().to(F64) for t in (x, w_gate, w_up, w_down))
    return (_silu(x @ w_gate.T) * (x @ w_up.T)) @ w_down.T


def _ffn_grads(x, w_gate, w_up, w_down, cotangent):
    """The exact vector-Jacobian products of swiglu_ffn with `cotangent`, by the chain rule written out."""
    x, w_gate, w_up, w_down, c = (t.detach().to(F64) for t in (x, w_gate, w_up, w_down, cotangent))
    gate, up = x @ w_gate.T, x @ w_up.T
    hidden = _silu(gate) * up
    d_hidden = c @ w_down  # [..., d_ff]
    d_up = d_hidden * _silu(gate)
    d_gate = d_hidden * up * _silu_derivative(gate)
    flat = x.reshape(-1, x.shape[-1])

    def rows(t):
        return t.reshape(-1, t.shape[-1])

    return {
        "x": d_up @ w_up + d_gate @ w_gate,
        "w_gate": rows(d_gate).T @ flat,
        "w_up": rows(d_up).T @ flat,
        "w_down": rows(c).T @ rows(hidden),
    }


def _expect_ffn(result, x, w_gate, w_up, w_down, *, hint=""):
    got = result.unwrap()
    expect_tensor(got, shape=tuple(x.shape), dtype=x.dtype, call=result)
    rtol, atol = _tolerances(x.dtype)
    expect_close(got, _ffn(x, w_gate, w_up, w_down).to(x.dtype), call=result, rtol=rtol, atol=atol, hint=hint)


def _hand(dtype=F64):
    return _t(HAND_X, dtype), _t(HAND_GATE, dtype), _t(HAND_UP, dtype), _t(HAND_DOWN, dtype)


# ---------------------------------------------------------------------------------------------------- silu


@check("silu.hand_example", "SiLU at 0, +-1, +-2, 0.5 and 4: x * sigmoid(x)", clauses=["silu.formula"])
def silu_hand_example(sub, ref):
    # silu(1) = 1 / (1 + e^-1) = 0.731059, silu(-1) = -0.268941, silu(2) = 1.761594, silu(-2) = -0.238406,
    # silu(0.5) = 0.311230, silu(4) = 3.928055
    x = _t([[0.0, 1.0, -1.0], [2.0, -2.0, 0.5], [4.0, -4.0, 3.0]])
    result = sub.silu.call(x)
    got = result.unwrap()
    expect_tensor(got, shape=(3, 3), dtype=F64, call=result)
    expect_close(got, _silu(x), call=result, hint="(silu(x) = x * sigmoid(x): silu(1) = 0.731059, silu(-1) = "
                 "-0.268941, silu(2) = 1.761594; Swish with beta = 1, not the sigmoid alone, not GELU)")


@check("silu.gradient", "The derivative sigmoid(x) (1 + x (1 - sigmoid(x))): 0.5 at 0, about 1.0998 at x = 2.4",
       clauses=["silu.gradient"])
def silu_gradient(sub, ref):
    x = torch.linspace(-8.0, 8.0, 33, dtype=F64).reshape(3, 11)
    cotangent = seeded_randn(11, 3, 11)
    result = sub.silu.call(x.clone().requires_grad_(True), grads=("x",), grad_output=cotangent)
    expect_grad_close(result, "x", cotangent * _silu_derivative(x), source="sigmoid(x) (1 + x (1 - sigmoid(x)))",
                      hint="(the derivative of x * sigmoid(x) is sigmoid(x) + x sigmoid(x) (1 - sigmoid(x)); a "
                           "gradient that stops at the sigmoid, or treats it as a constant, misses the second term)")


@check("silu.stable", "Value and gradient finite and correct at |x| up to 1e4, in float32 and float64",
       clauses=["silu.stable", "silu.gradient"])
def silu_stable(sub, ref):
    exact = _t(EXTREMES)
    inputs = [exact.to(dtype) for dtype in (F32, F64)]
    results = sub.silu.map([((x.clone().requires_grad_(True),), {}) for x in inputs], grads=("x",),
                           grad_outputs=[torch.ones_like(x) for x in inputs])
    for result, x in zip(results, inputs, strict=True):
        dtype = x.dtype
        got = result.unwrap()
        expect_tensor(got, shape=(len(EXTREMES),), dtype=dtype, call=result)
        rtol, atol = _tolerances(dtype)
        expect(bool(torch.isfinite(got.detach()).all()),
               f"{result.call} returned {got.detach().tolist()}: not finite. exp(x) overflows for x beyond 88.7 in "
               "float32 (709.8 in float64): a sigmoid written as exp(x) / (1 + exp(x)) gives inf / inf")
        expect_close(got, _silu(x.to(F64)).to(dtype), call=result, rtol=rtol, atol=atol,
                     hint="(silu(1e4) = 1e4 and silu(-1e4) = 0: the sigmoid must saturate to exactly 1 and 0)")
        grad = result.grads.get("x")
        expect(grad is None or bool(torch.isfinite(grad).all()),
               f"after backward() on {result.call}, x.grad = {None if grad is None else grad.tolist()} is not "
               "finite: an exp inside your SiLU overflowed. The value of x / (1 + exp(-x)) survives it (x / inf = "
               "-0), but its gradient is inf / inf = nan; and a torch.where between two formulas still computes the "
               "branch it discards, whose nan reaches the gradient as 0 * nan. Compute the sigmoid so that exp only "
               "ever sees a non-positive number (or use torch.sigmoid)")
        expect_grad_close(result, "x", _silu_derivative(x.to(F64)).to(dtype), rtol=rtol, atol=atol,
                          source="sigmoid(x) (1 + x (1 - sigmoid(x)))",
                          hint="(the derivative is 1 at x = 1e4 and 0 at x = -1e4)")


# ----------------------------------------------------------------------------------------------------- ffn


@check("ffn.hand_example", "Hand example: d_model = d_ff = 2, x = [1, 2], weights stored [out, in]",
       clauses=["ffn.formula", "ffn.layout"])
def ffn_hand_example(sub, ref):
    # gate x W_gate^T = [-1, 2], SiLU -> [-0.268941, 1.761594]; up x W_up^T = [2, 3]; product
    # [-0.537883, 5.284782]; down [-0.537883 + 5.284782, 2 * 5.284782] = [4.746900, 10.569565]
    result = sub.swiglu_ffn.call(*_hand())
    _expect_ffn(result, *_hand(), hint="(gate x W_gate^T = [-1, 2] and up x W_up^T = [2, 3], so the hidden "
                "vector is [silu(-1) * 2, silu(2) * 3] = [-0.537883, 5.284782] and the output [4.746900, 10.569565]; "
                "weights are [out_features, in_features], as nn.Linear stores them: multiply by their transpose)")


@check("ffn.which_branch", "The SiLU is on the gate branch: the output is linear in w_up and in w_down, not in "
       "w_gate; a zero gate gives exactly 0", clauses=["ffn.formula"])
def ffn_which_branch(sub, ref):
    x = seeded_randn(21, 3, 4)
    w_gate, w_up, w_down = seeded_randn(22, 5, 4), seeded_randn(23, 5, 4), seeded_randn(24, 4, 5)
    base, up_doubled, gate_zero = sub.swiglu_ffn.map([
        ((x, w_gate, w_up, w_down), {}),
        ((x, w_gate, 2.0 * w_up, w_down), {}),
        ((x, torch.zeros(5, 4, dtype=F64), w_up, w_down), {}),
    ])
    _expect_ffn(base, x, w_gate, w_up, w_down)
    expect_close(up_doubled.unwrap(), 2.0 * base.unwrap(), call=up_doubled,
                 hint=f"(doubling w_up must double the output of {base.call}: the up branch is linear, the SiLU "
                      "belongs on the gate branch x W_gate^T and nowhere else)")
    expect_close(gate_zero.unwrap(), torch.zeros(3, 4, dtype=F64), call=gate_zero,
                 hint="(with w_gate = 0 every gate pre-activation is 0 and silu(0) = 0: the output must be exactly "
                      "0; a sigmoid gate would give 0.5 there)")


@check("ffn.layout", "Weights are [out_features, in_features]: d_model = 3, d_ff = 5, and a square case that "
       "tells W from W^T", clauses=["ffn.layout", "ffn.formula"])
def ffn_layout(sub, ref):
    x = seeded_randn(31, 2, 3)
    rectangular = (x, seeded_randn(32, 5, 3), seeded_randn(33, 5, 3), seeded_randn(34, 3, 5))
    x4 = seeded_randn(35, 2, 4)
    square = (x4, seeded_randn(36, 4, 4), seeded_randn(37, 4, 4), seeded_randn(38, 4, 4))
    for result, args in zip(sub.swiglu_ffn.map([(rectangular, {}), (square, {})]), (rectangular, square),
                            strict=True):
        _expect_ffn(result, *args, hint="(w_gate and w_up are [d_ff, d_model] and w_down is [d_model, d_ff]: "
                    "x @ w_gate.T, x @ w_up.T, then hidden @ w_down.T)")


@check("ffn.rows", "Every vector is transformed on its own: no leading dimension, several, and an empty batch",
       clauses=["ffn.rows"])
def ffn_rows(sub, ref):
    weights = (seeded_randn(41, 6, 4), seeded_randn(42, 6, 4), seeded_randn(43, 4, 6))
    batch = seeded_randn(44, 2, 3, 4)
    cases = [batch, batch[1, 2], batch.reshape(6, 4), torch.zeros(0, 4, dtype=F64), torch.zeros(2, 0, 4, dtype=F64)]
    results = sub.swiglu_ffn.map([((x, *weights), {}) for x in cases])
    for result, x in zip(results, cases, strict=True):
        _expect_ffn(result, x, *weights, hint=f"(x has shape {list(x.shape)}: the block acts on the last axis, "
                    "vector by vector, and the result keeps x's shape, whatever the leading dimensions; an empty "
                    "batch gives an empty result)")
    whole, single = results[0].unwrap(), results[1].unwrap()
    expect_close(single, whole[1, 2], call=results[1],
                 hint=f"(one vector alone must give what it gives inside the batch of {results[0].call})")


@check("ffn.gradient", "Gradients to x and to all three weights: the chain rule through both branches",
       clauses=["ffn.gradient"])
def ffn_gradient(sub, ref):
    x = seeded_randn(51, 3, 4)
    w_gate, w_up, w_down = seeded_randn(52, 5, 4), seeded_randn(53, 5, 4), seeded_randn(54, 4, 5)
    cotangent = seeded_randn(55, 3, 4)
    names = ("x", "w_gate", "w_up", "w_down")
    args = [t.clone().requires_grad_(True) for t in (x, w_gate, w_up, w_down)]
    result = sub.swiglu_ffn.call(*args, grads=names, grad_output=cotangent)
    expected = _ffn_grads(x, w_gate, w_up, w_down, cotangent)
    hints = {
        "x": "(x feeds both branches: its gradient is d_up W_up + d_gate W_gate)",
        "w_gate": "(the gate branch must be trained: d_gate = (c W_down) * up * silu'(gate), and d W_gate = "
                  "d_gate^T x; a detached gate gets no gradient)",
        "w_up": "(d_up = (c W_down) * silu(gate), and d W_up = d_up^T x)",
        "w_down": "(d W_down = c^T hidden, with hidden = silu(gate) * up)",
    }
    for name in ("w_gate", "w_up", "w_down", "x"):  # the weights first: each names the branch it belongs to
        expect_grad_close(result, name, expected[name], source="the chain rule through both branches",
                          hint=hints[name])


@check("ffn.stable", "Gate pre-activations of +-1e4 (and +-100): finite, correct outputs and gradients in float32 "
       "and float64", clauses=["ffn.stable"])
def ffn_stable(sub, ref):
    # x W_gate^T = [1e4, -1e4, 100, -100]: silu = [1e4, 0, 100, ~0]; the up branch is [0.5, -0.75, 1, 2]
    x = _t([[1.0, -1.0]])
    w_gate = _t([[1e4, 0.0], [0.0, 1e4], [100.0, 0.0], [0.0, 100.0]])
    w_up = _t([[1.0, 0.5], [0.25, 1.0], [1.0, 0.0], [0.0, -2.0]])
    w_down = _t([[1.0, 2.0, 0.5, -1.0], [3.0, 4.0, -0.5, 1.0]])
    cotangent = _t([[1.0, -2.0]])
    names = ("x", "w_gate", "w_up", "w_down")
    expected_grads = _ffn_grads(x, w_gate, w_up, w_down, cotangent)
    calls = [(tuple(t.to(dtype).requires_grad_(True) for t in (x, w_gate, w_up, w_down)), {}) for dtype in (F32, F64)]
    results = sub.swiglu_ffn.map(calls, grads=names, grad_outputs=[cotangent.to(F32), cotangent])
    for result, dtype in zip(results, (F32, F64), strict=True):
        got = result.unwrap()
        expect(bool(torch.isfinite(got.detach()).all()),
               f"{result.call} returned {got.detach().tolist()}: not finite. A gate pre-activation of 1e4 must give "
               "silu = 1e4 (the sigmoid saturates at 1), and -1e4 must give 0")
        _expect_ffn(result, *(t.detach().to(dtype) for t in (x, w_gate, w_up, w_down)),
                    hint="(silu(1e4) = 1e4, silu(-1e4) = 0, silu(100) = 100)")
        rtol, atol = _tolerances(dtype)
        for name in names:
            grad = result.grads.get(name)
            expect(grad is None or bool(torch.isfinite(grad).all()),
                   f"after backward() on {result.call}, {name}.grad has nan or inf: the SiLU's gradient overflowed "
                   "(x / (1 + exp(-x)) differentiates into inf / inf at x = -1e4; a torch.where's discarded branch "
                   "leaks its nan as 0 * nan)")
            expect_grad_close(result, name, expected_grads[name].to(dtype), rtol=rtol, atol=atol,
                              source="the chain rule through both branches",
                              hint="(silu'(1e4) = 1 and silu'(-1e4) = 0)")


# -------------------------------------------------------------------------------------------------- hidden

LLAMA_SIZES = [
    # (d_model, multiple_of, ffn_dim_multiplier) -> d_ff, from the released configurations
    ((4096,), 11008, "LLaMA 7B: floor(32768 / 3) = 10922, rounded up to a multiple of 256"),
    ((5120,), 13824, "LLaMA 13B: floor(40960 / 3) = 13653 -> 13824"),
    ((6656,), 17920, "LLaMA 33B: floor(53248 / 3) = 17749 -> 17920"),
    ((8192,), 22016, "LLaMA 65B: floor(65536 / 3) = 21845 -> 22016"),
    ((8192, 4096, 1.3), 28672, "LLaMA 2 70B: h = 21845, int(1.3 * 21845) = 28398, rounded up to 7 * 4096"),
    ((4096, 1024, 1.3), 14336, "LLaMA 3 8B: h = 10922, int(1.3 * 10922) = 14198, rounded up to 14 * 1024"),
    ((16384, 4096, 1.2), 53248, "LLaMA 3.1 405B: h = 43690, int(1.2 * 43690) = 52428, rounded up to 13 * 4096"),
]


@check("hidden.llama", "LLaMA's published hidden sizes: 7B to 65B, LLaMA 2 70B, LLaMA 3 8B and 405B",
       clauses=["hidden.llama", "hidden.formula"])
def hidden_llama(sub, ref):
    results = sub.llama_hidden_dim.map([(args, {}) for args, _, _ in LLAMA_SIZES])
    for result, (_, expected, why) in zip(results, LLAMA_SIZES, strict=True):
        expect_equal(result.unwrap(), expected, call=result, hint=f"({why})")


HIDDEN_CASES = [
    ((3, 1), 8, "floor(8 * 3 / 3) = 8; every size is a multiple of 1"),
    ((3, 8), 8, "h = 8 already is a multiple of 8: it stays 8, rounding up adds nothing"),
    ((3, 5), 10, "h = 8, rounded up to the next multiple of 5"),
    ((4, 10), 10, "floor(32 / 3) = 10, a multiple of 10: take the floor of 8 d / 3 before rounding up"),
    ((1, 256), 256, "h = floor(8 / 3) = 2, rounded up to 256"),
    ((10, 1, 1.3), 33, "h = floor(80 / 3) = 26, then int(1.3 * 26) = 33: the multiplier comes after the 2/3 "
                       "(before it, int(2 * int(1.3 * 40) / 3) = 34)"),
    ((10, 4, 2), 52, "h = 26, int(2 * 26) = 52, a multiple of 4: an int multiplier is a number like any other"),
    ((10, 1, 0.5), 13, "h = 26, int(0.5 * 26) = 13"),
    ((1, 4, 0.1), 0, "h = 2, int(0.1 * 2) = 0, and 0 is a multiple of 4"),
]


@check("hidden.rounding", "Small sizes: the floor of 8 d / 3, the multiplier after it, then up to a multiple",
       clauses=["hidden.formula"])
def hidden_rounding(sub, ref):
    results = sub.llama_hidden_dim.map([(args, {}) for args, _, _ in HIDDEN_CASES])
    for result, (_, expected, why) in zip(results, HIDDEN_CASES, strict=True):
        expect_equal(result.unwrap(), expected, call=result, hint=f"({why})")
    default = sub.llama_hidden_dim.call(12)
    expect_equal(default.unwrap(), 256, call=default,
                 hint="(multiple_of defaults to 256 and ffn_dim_multiplier to None: floor(96 / 3) = 32 -> 256)")


# ---------------------------------------------------------------------------------------------- experiment

D_MODEL, D_FF, SAMPLES, STEPS, LEARNING_RATE = 4, 8, 128, 24, 0.1
RELU_WIDTH = 3 * D_FF // 2  # 2 * d_model * 12 = 3 * d_model * 8 = 96 weights in either block
TASKS = {
    "product": lambda x: x * x.roll(1, dims=1),  # y_i = x_i x_{i-1}: pairwise products
    "sine": lambda x: x * torch.sin(x.roll(1, dims=1)),  # a smooth target with no product structure to find
}


def _adam(params, grads, state, step):
    """One Adam step (betas 0.9, 0.999), in the judge."""
    updated = []
    for index, (p, g) in enumerate(zip(params, grads, strict=True)):
        m, v = state.get(index, (torch.zeros_like(p), torch.zeros_like(p)))
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        state[index] = (m, v)
        updated.append(p - LEARNING_RATE * (m / (1 - 0.9**step)) / ((v / (1 - 0.999**step)).sqrt() + 1e-8))
    return updated


@check("experiment.training", "Your SwiGLU block against a ReLU block of the same 96 weights, trained with Adam "
       "on two regression tasks", group="experiment", required=False)
def experiment(sub, ref, ctx):
    generator = torch.Generator().manual_seed(61)
    x = torch.randn(SAMPLES, D_MODEL, generator=generator, dtype=F64)

    def init(*shape):
        return torch.randn(*shape, generator=generator, dtype=F64) / shape[-1] ** 0.5

    swiglu = {name: [init(D_FF, D_MODEL), init(D_FF, D_MODEL), init(D_MODEL, D_FF)] for name in TASKS}
    relu = {name: [init(RELU_WIDTH, D_MODEL), init(D_MODEL, RELU_WIDTH)] for name in TASKS}
    targets = {name: task(x) for name, task in TASKS.items()}
    states = {(kind, name): {} for kind in ("swiglu", "relu") for name in TASKS}
    series = {f"{kind}_{name}": [] for name in TASKS for kind in ("swiglu", "relu")}
    grads = ("w_gate", "w_up", "w_down")
    for step in range(1, STEPS + 1):
        # d mean-squared error / d out = 2 (out - y) / n, from the exact forward on the same weights (a solved
        # block's own output), so that one call per step returns both your output and your gradients
        cotangents = [2.0 * (_ffn(x, *swiglu[name]) - targets[name]) / x.numel() for name in TASKS]
        results = sub.swiglu_ffn.map(
            [((x, *(w.clone().requires_grad_(True) for w in swiglu[name])), {}) for name in TASKS],
            grads=grads, grad_outputs=cotangents)
        gradients = {}
        for result, name in zip(results, TASKS, strict=True):
            out = result.unwrap()
            expect(isinstance(out, torch.Tensor) and out.shape == x.shape, f"{result.call} returned another shape")
            series[f"swiglu_{name}"].append(float(((out.detach() - targets[name]) ** 2).mean()))
            gradients[name] = [result.grads.get(g) for g in grads]
        if any(g is None for values in gradients.values() for g in values):
            break  # a weight your block gives no gradient to (a detached branch): the chart stops here
        for name in TASKS:
            swiglu[name] = _adam(swiglu[name], gradients[name], states[("swiglu", name)], step)
        for name in TASKS:
            w_in, w_out = (w.clone().requires_grad_(True) for w in relu[name])
            loss = ((torch.relu(x @ w_in.T) @ w_out.T - targets[name]) ** 2).mean()
            series[f"relu_{name}"].append(float(loss.detach()))
            relu[name] = _adam(relu[name], torch.autograd.grad(loss, (w_in, w_out)), states[("relu", name)], step)
    steps = list(range(1, len(series["relu_product"]) + 1))  # the SwiGLU series may hold one more value
    ctx.record_experiment(steps=steps, series={name: values[: len(steps)] for name, values in series.items()})
