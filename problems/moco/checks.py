"""The MoCo check battery: moco_loss, momentum_update, enqueue, and the 12-step CPU experiment.

Every input is built from fixed seeds or literals, so two runs give the same verdict. Expected values come
from the reference (`ref`), from closed forms, or, for the experiment, from an independent plain-Python
trajectory that uses no torch at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Any

import torch

from grader.checks import (
    CallResult,
    CheckFailed,
    WorkerLost,
    check,
    describe,
    expect_close,
    expect_equal,
    expect_grad_close,
    expect_no_alias,
    expect_tensor,
    fail,
    hint,
    same_bits,
    tolerance,
)
from helpers import experiment_loss_arguments, experiment_rows, experiment_sgd_step

F32, F64 = torch.float32, torch.float64


# ================================================================================================ helpers


def randn(*shape: int, seed: int, dtype: torch.dtype = F64) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=F64).to(dtype)


def rows_of_varied_norm(rows: int, columns: int, *, seed: int, dtype: torch.dtype = F64) -> torch.Tensor:
    """Random rows whose norms range from about 0.3 to 3, so skipping a normalisation shows."""
    directions = randn(rows, columns, seed=seed)
    scales = torch.linspace(0.3, 3.0, rows, dtype=F64).unsqueeze(1)  # [rows, 1]
    return (directions * scales).to(dtype)


def loss_tolerance(dtype: torch.dtype, temperature: float) -> tuple[float, float]:
    """(rtol, atol) for a loss: the dtype's usual tolerance, with atol scaled by the largest logit, 1/T,
    because rounding errors in the similarities are multiplied by 1/T."""
    rtol, atol = tolerance(dtype)
    return rtol, atol * max(1.0, 1.0 / temperature)


def call_value(result: CallResult) -> Any:
    return result.unwrap()


def expect_works(result: CallResult, purpose: str) -> None:
    """Checks of valid extremes (huge entries, extreme temperatures) first make sure the input is accepted:
    refusing it is the failure to report, not a value that differs."""
    if result.raised is not None:
        fail(
            f"{result.call} raised {result.raised.summary()}, but its input is valid; {purpose} "
            "is tested only once valid input is accepted"
        )


def reference_loss_gradient(
    ref: Any, query: torch.Tensor, key: torch.Tensor, queue: torch.Tensor, temperature: float
) -> torch.Tensor:
    leaf = query.detach().clone().requires_grad_(True)
    ref.moco_loss(leaf, key, queue, temperature).backward()
    assert leaf.grad is not None
    return leaf.grad


def hand_example_inputs(dtype: torch.dtype = F64) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    query = torch.tensor([[1.0, 0.0]], dtype=dtype)
    queue = torch.tensor([[-1.0, 0.0], [0.0, 1.0]], dtype=dtype)
    return query, query.clone(), queue


def hand_example_value(temperature: float) -> float:
    return math.log(1 + math.exp(-2 / temperature) + math.exp(-1 / temperature))


def random_loss_inputs(
    batch: int, size: int, dim: int, *, seed: int, dtype: torch.dtype = F64
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    query = rows_of_varied_norm(batch, dim, seed=seed, dtype=dtype)
    key = (query.to(F64) + 0.5 * randn(batch, dim, seed=seed + 1)).to(dtype)  # near, but not equal, to query
    queue = rows_of_varied_norm(size, dim, seed=seed + 2, dtype=dtype)
    return query, key, queue


def compare_losses(results: list[CallResult], expectations: list[tuple[float, torch.Tensor]], hint_text: str) -> None:
    for result, (temperature, expected) in zip(results, expectations, strict=True):
        got = call_value(result)
        rtol, atol = loss_tolerance(expected.dtype, temperature)
        expect_close(got, expected, what="the loss", call=result, rtol=rtol, atol=atol, hint=hint_text)


# ============================================================================================= moco_loss


@check("moco_loss.hand_example", "Hand example: q = k = [1, 0], queue = [[-1, 0], [0, 1]]",
       clauses=["loss.hand_values", "loss.temperature", "loss.positive_in_denominator"])
def loss_hand_example(sub: Any, ref: Any) -> None:
    cases = [(F64, 1), (F64, 2), (F64, 0.5), (F64, 0.2), (F64, 0.07), (F32, 0.5), (F32, 1)]
    results = sub.moco_loss.map([(hand_example_inputs(dtype) + (t,), {}) for dtype, t in cases])
    for result, (dtype, temperature) in zip(results, cases, strict=True):
        expected = torch.tensor(hand_example_value(temperature), dtype=dtype)
        rtol, atol = loss_tolerance(dtype, temperature)
        expect_close(
            call_value(result),
            expected,
            what=f"the loss at T = {temperature}",
            call=result,
            rtol=rtol,
            atol=atol,
            hint=f"Here the positive logit is 1/T and the negatives are -1/T and 0, so the loss is "
            f"log(1 + exp(-2/T) + exp(-1/T)) = {hand_example_value(temperature):.6g}.",
        )


@check("moco_loss.identical_representations", "Identical representations give log(K + 1)",
       clauses=["loss.hand_values", "loss.normalise"])
def loss_identical_representations(sub: Any, ref: Any) -> None:
    direction = torch.tensor([0.6, -0.8, 0.0], dtype=F64)
    calls, expectations = [], []
    for size, temperature in ((1, 0.5), (4, 0.07), (9, 2)):
        query = direction * torch.tensor([[1.0], [2.5]], dtype=F64)  # [2, 3], same direction, other norms
        key = direction * torch.tensor([[0.5], [4.0]], dtype=F64)
        queue = direction * torch.linspace(0.2, 3.0, size, dtype=F64).unsqueeze(1)  # [K, 3]
        calls.append(((query, key, queue, temperature), {}))
        expectations.append((temperature, torch.tensor(math.log(size + 1), dtype=F64)))
    compare_losses(
        sub.moco_loss.map(calls),
        expectations,
        "When every row points the same way, all 1 + K logits are equal and the loss is log(K + 1) at any T.",
    )


@check("moco_loss.batch_keys_are_not_negatives", "Other keys of the batch are not negatives",
       clauses=["loss.positive"])
def loss_batch_keys_are_not_negatives(sub: Any, ref: Any) -> None:
    # Each query is close to every key of the batch, far from the single queue row: if the other keys were
    # negatives the loss would be near log(B); with the queue alone it is small.
    query = torch.tensor([[1.0, 0.0, 0.1], [0.9, 0.1, 0.0], [1.0, 0.2, 0.0]], dtype=F64)
    key = torch.tensor([[1.0, 0.05, 0.1], [0.95, 0.1, 0.05], [1.0, 0.15, 0.0]], dtype=F64)
    queue = torch.tensor([[-1.0, 0.0, 0.0]], dtype=F64)
    result = sub.moco_loss.call(query, key, queue, 0.1)
    with hint(
        "Only the K queue rows are negatives: key j (j != i) must not appear in query i's denominator "
        "(that would be SimCLR-style in-batch negatives)."
    ):
        rtol, atol = loss_tolerance(F64, 0.1)
        expect_close(
            call_value(result),
            ref.moco_loss(query, key, queue, 0.1),
            what="the loss",
            call=result,
            rtol=rtol,
            atol=atol,
        )


@check("moco_loss.batch_mean", "The loss is the mean over the batch, not the sum", clauses=["loss.batch_mean"])
def loss_batch_mean(sub: Any, ref: Any) -> None:
    query, key, queue = random_loss_inputs(2, 5, 3, seed=11)
    single = (query[:1], key[:1], queue, 0.3)
    repeated = (query[:1].repeat(4, 1), key[:1].repeat(4, 1), queue, 0.3)  # four copies of one row
    both = (query, key, queue, 0.3)
    results = sub.moco_loss.map([(single, {}), (repeated, {}), (both, {})])
    with hint("Average the per-row losses over the batch (four copies of one row have that row's loss)."):
        expected_single = ref.moco_loss(*single)
        expect_close(call_value(results[0]), expected_single, what="the loss", call=results[0])
        expect_close(call_value(results[1]), expected_single, what="the loss", call=results[1])
        expect_close(call_value(results[2]), ref.moco_loss(*both), what="the loss", call=results[2])


@check("moco_loss.norm_floor", "Rows are divided by max(norm, 1e-12), not norm + eps", clauses=["loss.normalise"])
def loss_norm_floor(sub: Any, ref: Any) -> None:
    # A row of norm 1e-13 becomes a row of norm 0.1, a row of norm 1e-9 a unit row. Adding eps to the norm,
    # or flooring at 1e-8, gives visibly different similarities.
    query, key, queue = random_loss_inputs(2, 3, 2, seed=31)
    unit = torch.tensor([0.6, 0.8], dtype=F64)
    tiny = torch.stack([unit * 1e-13, unit * 1e-9])  # [2, 2]
    variants = {
        "query": (tiny, key, queue, 0.1),
        "key": (query, tiny.flip(1), queue, 0.1),
        "queue": (query, key, torch.cat([tiny, queue[:1]]), 0.1),
    }
    results = sub.moco_loss.map([(args, {}) for args in variants.values()])
    for name, result, args in zip(variants, results, variants.values(), strict=True):
        with hint(
            f"Rows of {name} here have norms 1e-13 and 1e-9. Divide by max(norm, 1e-12) "
            "(torch.clamp_min, or F.normalize's default eps), not by norm + eps, and with exactly 1e-12."
        ):
            expect_close(call_value(result), ref.moco_loss(*args), what="the loss", call=result)


@check("moco_loss.zero_rows", "Zero rows have similarity 0 and the loss stays finite", clauses=["loss.normalise"])
def loss_zero_rows(sub: Any, ref: Any) -> None:
    query, key, queue = random_loss_inputs(3, 4, 3, seed=41)
    variants = {
        "query": (torch.cat([torch.zeros(1, 3, dtype=F64), query[1:]]), key, queue, 0.5),
        "key": (query, torch.cat([key[:2], torch.zeros(1, 3, dtype=F64)]), queue, 0.5),
        "queue": (query, key, torch.cat([queue[:1], torch.zeros(2, 3, dtype=F64), queue[1:]]), 0.5),
    }
    results = sub.moco_loss.map([(args, {}) for args in variants.values()])
    for name, result, args in zip(variants, results, variants.values(), strict=True):
        got = call_value(result)
        expect_tensor(got, shape=(), call=result)
        with hint(
            f"A zero row of {name} must stay zero after normalisation (0 / max(0, 1e-12) = 0), so its "
            "similarities are 0, not nan."
        ):
            if not bool(torch.isfinite(got)):
                fail(f"{result.call}: expected a finite loss, got {float(got)}.")
            expect_close(got, ref.moco_loss(*args), what="the loss", call=result)


def low_temperature_cases() -> tuple[tuple[torch.Tensor, ...], tuple[torch.Tensor, ...]]:
    """(query, key, queue) in float32 where the positive is the largest logit, and where a negative beats it."""
    winner = (
        torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),  # the positive is the largest logit
        torch.tensor([[1.0, 0.01, 0.0], [0.0, 1.0, 0.02]]),
        torch.tensor([[0.0, 0.0, 1.0], [0.8, 0.6, 0.0], [-1.0, 0.0, 0.0]]),
    )
    loser = (
        torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),  # a negative beats the positive
        torch.tensor([[0.8, 0.6, 0.0], [0.6, 0.0, 0.8]]),
        torch.tensor([[1.0, 0.05, 0.0], [0.1, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    )
    return winner, loser


def extreme_temperature_cases(dtype: torch.dtype) -> list[tuple[tuple[Any, ...], float, str]]:
    """(arguments, closed-form loss, what the rows are) with 1/T as large as 10,000, K = 3.

    All rows aligned: every logit is +1/T and exp overflows; all anti-aligned (key and queue opposite to the
    query): every logit is -1/T and exp underflows to 0. Both give log(K + 1). Positive opposite, negatives
    aligned: s+ = -1/T, s- = +1/T, so L = 2/T + log(K + exp(-2/T)): both directions at once."""
    direction = torch.tensor([[0.6, 0.0, -0.8]], dtype=dtype)
    query = direction * torch.tensor([[1.0], [3.0]], dtype=dtype)  # [2, 3]
    queue = direction * torch.tensor([[0.5], [2.0], [7.0]], dtype=dtype)  # [3, 3]
    size = 3
    cases = []
    for temperature in (1e-3, 1e-4):
        cases.append(((query, query * 2, queue, temperature), math.log(size + 1), "every row aligned"))
        cases.append(((query, -query, -queue, temperature), math.log(size + 1), "key and queue opposite to query"))
        anti = 2 / temperature + math.log(size + math.exp(-2 / temperature))
        cases.append(((query, -query, queue, temperature), anti, "the positive opposite, negatives aligned"))
    return cases


@check("moco_loss.extreme_temperatures", "Overflow and underflow at T = 1e-3 and 1e-4, aligned and opposite rows",
       clauses=["loss.stable"])
def loss_extreme_temperatures(sub: Any, ref: Any) -> None:
    cases = [(dtype, case) for dtype in (F32, F64) for case in extreme_temperature_cases(dtype)]
    results = sub.moco_loss.map([(case[0], {}) for _, case in cases])
    for result, (dtype, (args, exact, rows)) in zip(results, cases, strict=True):
        got = expect_tensor(call_value(result), shape=(), dtype=dtype, call=result)
        rtol, atol = loss_tolerance(dtype, args[3])
        expect_close(
            got,
            torch.tensor(exact, dtype=dtype),
            what=f"the loss ({rows}, closed form)",
            call=result,
            rtol=rtol,
            atol=atol,
            hint="Logits of +-1/T overflow exp in one direction and underflow it in the other: take the "
            "log-sum-exp after subtracting each row's largest logit, whichever logit that is.",
        )


def gradient_edge_cases() -> list[tuple[str, tuple[Any, ...]]]:
    """Inputs whose loss value another check tests, for the query gradient: zero and tiny rows, tiny T."""
    query, key, queue = random_loss_inputs(3, 4, 3, seed=141)
    unit = torch.tensor([0.6, 0.0, 0.8], dtype=F64)
    zero = torch.zeros(1, 3, dtype=F64)
    tiny = torch.stack([unit * 1e-13, unit * 1e-9])  # below and above the 1e-12 floor
    winner, loser = (tuple(t.to(F64) for t in case) for case in low_temperature_cases())
    extremes = [(args, rows) for args, _, rows in extreme_temperature_cases(F64) if args[3] == 1e-4]
    large = (query * 1e150, key * 1e-150, queue * 1e140, 0.2)
    return [(f"T = 1e-4, {rows}", args) for args, rows in extremes] + [
        ("entries of 1e150 and 1e-150", large),
        ("a zero query row", (torch.cat([zero, query[1:]]), key, queue, 0.5)),
        ("query rows of norm 1e-13 and 1e-9", (torch.cat([tiny, query[:1]]), key, queue, 0.1)),
        ("a zero key row", (query, torch.cat([key[:2], zero]), queue, 0.5)),
        ("zero queue rows", (query, key, torch.cat([queue[:1], zero, zero, queue[1:]]), 0.5)),
        ("T = 1e-3 with the positive winning", winner + (1e-3,)),
        ("T = 1e-3 with a negative winning", loser + (1e-3,)),
    ]


@cache
def edge_case_gradients(ref: Any) -> tuple[torch.Tensor, ...]:
    """The reference's query gradients for gradient_edge_cases(), once per judge process (nine backward
    passes that every grading would otherwise repeat)."""
    return tuple(reference_loss_gradient(ref, *args) for _, args in gradient_edge_cases())


@check("moco_loss.edge_case_gradients", "Zero rows, tiny rows and T = 1e-3: finite query gradients, as expected",
       clauses=["loss.query_gradient", "loss.normalise"])
def loss_edge_case_gradients(sub: Any, ref: Any) -> None:
    cases = gradient_edge_cases()
    calls = [((args[0].clone().requires_grad_(True), *args[1:]), {}) for _, args in cases]
    results = sub.moco_loss.map(calls, grads=("query",))
    for result, (rows, _), expected in zip(results, cases, edge_case_gradients(ref), strict=True):
        gradient = result.grads.get("query") if result.raised is None else None
        if isinstance(gradient, torch.Tensor) and not bool(torch.isfinite(gradient).all()):
            fail(
                f"after backward() on {result.call} ({rows}), query.grad has nan or inf entries; every "
                "entry should be finite. Divide by the floored norm (clamp_min of the norm from "
                "torch.linalg.vector_norm or F.normalize): sqrt of a zero sum has an infinite derivative, "
                "and log(softmax) an infinite one where a probability underflows to 0."
            )
        expect_grad_close(result, "query", expected, hint=f"Here: {rows}.")


@check("moco_loss.valid_extremes", "Large entries, norms next to the floor and extreme temperatures are accepted",
       clauses=["loss.stable"])
def loss_valid_extremes(sub: Any, ref: Any) -> None:
    # Entries stay where a squared norm is finite in the dtype (about 1e19 in float32): beyond it torch's own
    # vector_norm and F.normalize overflow, and the statement leaves that range untested.
    query, key, queue = random_loss_inputs(2, 3, 3, seed=151)
    unit = torch.tensor([[0.0, 0.6, -0.8]], dtype=F64)
    cases = [
        (query.float() * 1e18, key.float() * 3e17, queue.float() * 1e18, 0.2),
        (query * 1e150, key * 1e-150, queue * 1e140, 0.2),
        (torch.cat([unit * 2e-12, query[1:]]), torch.cat([unit * 5e-13, key[1:]]), queue, 0.3),
        (query, key, queue, 1e6),
        (query, key, queue, 10**6),
        (query, key, queue, 1e-6),
    ]
    results = sub.moco_loss.map([(args, {}) for args in cases])
    for result, args in zip(results, cases, strict=True):
        expect_works(result, "the value for valid extremes")
        rtol, atol = loss_tolerance(args[0].dtype, float(args[3]))
        expect_close(
            call_value(result),
            ref.moco_loss(*args),
            what="the loss",
            call=result,
            rtol=rtol,
            atol=atol,
            hint="Every finite entry and every positive finite temperature is valid input; normalise before "
            "the dot products so that large entries cannot overflow them.",
        )


LossCase = tuple[torch.Tensor, torch.Tensor, torch.Tensor, float]


@cache
def paper_sized_dictionary_case(ref: Any) -> tuple[LossCase, torch.Tensor]:
    """Inputs and the reference loss, computed once per judge process.

    The dictionary is the paper's (K = 65,536 keys of D = 128), which is what the check is about: a loss that
    handles it handles any batch. The batch is 8 rather than the paper's 256 because every submission pays for
    this advisory check: with a vectorised loss it costs about 25 ms of a grading slot (the passes over the
    dictionary), where B = 32 cost 40 ms and B = 256 about a second. The work per query is the same."""
    generator = torch.Generator().manual_seed(121)
    query = torch.randn(8, 128, generator=generator)
    key = query + 0.3 * torch.randn(8, 128, generator=generator)
    # Row r of the queue is the window signal[r : r + 128] of one long random signal: 65,536 distinct rows
    # that cost 256 KB to send to the worker instead of 33.5 MB (the work in the loss is the same).
    signal = torch.randn(65_536 + 127, generator=generator)
    queue = signal.as_strided((65_536, 128), (1, 1))  # [K, D], overlapping rows
    inputs = (query, key, queue, 0.07)
    return inputs, ref.moco_loss(*inputs)


@check(
    "moco_loss.paper_sized_dictionary",
    "Paper-sized dictionary: K = 65,536 keys of D = 128, batch of 8",
    required=False,
)
def loss_paper_sized_dictionary(sub: Any, ref: Any) -> None:
    inputs, expected = paper_sized_dictionary_case(ref)
    result = sub.moco_loss.call(*inputs)
    with hint("This check is advisory: it does not decide 'solved'. A vectorised loss takes well under a second."):
        rtol, atol = loss_tolerance(F32, 0.07)
        expect_close(call_value(result), expected, what="the loss", call=result, rtol=rtol * 4, atol=atol * 4)


# ======================================================================================= momentum_update


def parameter_pair(*shape: int, seed: int, dtype: torch.dtype = F64) -> tuple[torch.Tensor, torch.Tensor]:
    return randn(*shape, seed=seed, dtype=dtype), randn(*shape, seed=seed + 1, dtype=dtype)


def expected_ema(query: torch.Tensor, key: torch.Tensor, momentum: float) -> torch.Tensor:
    """m * key + (1 - m) * query in float64, cast to the inputs' dtype (independent of the reference)."""
    exact = momentum * key.detach().to(F64) + (1 - momentum) * query.detach().to(F64)
    return exact.to(query.dtype)


EMA_HINT = "The update is theta_k_new = m * theta_k + (1 - m) * theta_q, where query is theta_q and key is theta_k."


@check("momentum_update.formula", "theta_k_new = m theta_k + (1 - m) theta_q for m in {0, 0.2, 0.8, 0.999, 1}",
       clauses=["ema.formula"])
def ema_formula(sub: Any, ref: Any) -> None:
    calls, expectations = [], []
    for dtype in (F32, F64):
        query, key = parameter_pair(3, 4, seed=201, dtype=dtype)
        for momentum in (0.0, 0.2, 0.8, 0.999, 1.0, 0, 1):
            calls.append(((query, key, momentum), {}))
            expectations.append(expected_ema(query, key, momentum))
    for result, expected in zip(sub.momentum_update.map(calls), expectations, strict=True):
        expect_close(call_value(result), expected, call=result, hint=EMA_HINT)


@check("momentum_update.endpoints", "m = 0 equals query and m = 1 equals key exactly, in every dtype and shape",
       clauses=["ema.endpoints"])
def ema_endpoints(sub: Any, ref: Any) -> None:
    calls = []
    for dtype in (F32, F64):
        for shape in ((4, 3), (), (0, 2)):
            query, key = parameter_pair(*shape, seed=211, dtype=dtype)
            calls += [((query, key, momentum), {}) for momentum in (0.0, 0, 1.0, 1)]
    query, key = parameter_pair(2, 3, seed=213)
    calls += [((torch.nn.Parameter(query), torch.nn.Parameter(key), momentum), {}) for momentum in (0, 1)]
    for result, (args, _) in zip(sub.momentum_update.map(calls), calls, strict=True):
        query, key, momentum = args
        name, wanted = ("query", query) if momentum == 0 else ("key", key)
        expect_equal(
            call_value(result),
            wanted.detach(),
            call=result,
            hint=f"At m = {momentum} the result is {name} itself, value for value (in new storage). Written "
            "as key + (1 - m) * (query - key), m = 0 gives key + (query - key), which rounds away from query; "
            "m * key + (1 - m) * query is exact at both ends.",
        )


@check("momentum_update.large_entries", "Entries near the float32 and float64 maxima give the exact average",
       clauses=["ema.formula"])
def ema_large_entries(sub: Any, ref: Any) -> None:
    largest32 = torch.finfo(F32).max  # about 3.4e38
    cases = [
        (torch.tensor([3.0e38, -1.0e38, 1.5e38]), torch.tensor([3.3e38, 1.0e38, -1.5e38]), 0.3),
        (torch.tensor([largest32, -largest32]), torch.tensor([largest32, -largest32]), 0.999),
        (torch.tensor([1.7e308, -1.0e308], dtype=F64), torch.tensor([1.6e308, -1.7e308], dtype=F64), 0.5),
    ]
    results = sub.momentum_update.map([(args, {}) for args in cases])
    for result, (query, key, momentum) in zip(results, cases, strict=True):
        expect_works(result, "the value for large entries")
        expect_close(
            call_value(result),
            expected_ema(query, key, momentum),
            call=result,
            hint="Finite parameters have a finite average, even next to the dtype's maximum: compute "
            "m * key + (1 - m) * query in the parameters' own dtype, without scaling them up on the way.",
        )


# ================================================================================================ enqueue


def distinct_keys(batch: int, dim: int, *, seed: int, dtype: torch.dtype = F64) -> torch.Tensor:
    return rows_of_varied_norm(batch, dim, seed=seed, dtype=dtype) if batch else torch.zeros(0, dim, dtype=dtype)


def old_queue(size: int, dim: int, *, seed: int, dtype: torch.dtype = F64) -> torch.Tensor:
    """Rows that are deliberately not unit-norm, so re-normalising old entries shows."""
    return (randn(size, dim, seed=seed) * 5.0).to(dtype)


def expect_enqueued(
    result: CallResult,
    expected: tuple[torch.Tensor, int],
    hint_text: str,
    rtol: float | None = None,
    atol: float | None = None,
) -> None:
    got = call_value(result)
    if not isinstance(got, tuple | list) or len(got) != 2:
        fail(f"{result.call}: expected a pair (new_queue, new_pointer), got {describe(got)}")
    queue, pointer = got
    expect_equal(
        pointer,
        expected[1],
        what="the returned pointer",
        call=result,
        hint="The new pointer is (pointer + B) % K, a Python int.",
    )
    expect_close(queue, expected[0], what="the returned queue", call=result, rtol=rtol, atol=atol, hint=hint_text)


WRAP_HINT = (
    "Key j of the batch goes to slot (pointer + j) % K, in order, after normalisation; every other row "
    "keeps its old value."
)


@check("enqueue.normalises_incoming", "Incoming rows are normalised; old rows are left exactly as they were",
       clauses=["queue.normalise", "queue.writes"])
def enqueue_normalises_incoming(sub: Any, ref: Any) -> None:
    queue = old_queue(6, 3, seed=401)
    keys = distinct_keys(2, 3, seed=402) * torch.tensor([[3.0], [0.1]], dtype=F64)
    result = sub.enqueue.call(queue, keys, 1)
    expect_enqueued(
        result,
        ref.enqueue(queue, keys, 1),
        "Normalise each incoming key (divide by max(norm, 1e-12)) before writing it.",
    )
    new_queue = call_value(result)[0]
    untouched = [0, 3, 4, 5]
    expect_equal(
        new_queue[untouched],
        queue[untouched],
        what="rows 0, 3, 4, 5 of the returned queue",
        call=result,
        hint="Only the written slots change; do not re-normalise or rescale the old rows.",
    )


@check("enqueue.wraparound", "Sequential writes from the pointer, wrapping around the end",
       clauses=["queue.writes", "queue.pointer"])
def enqueue_wraparound(sub: Any, ref: Any) -> None:
    cases = [(5, 2, 0), (5, 2, 4), (5, 4, 3), (7, 3, 5), (6, 4, 2), (5, 3, 1)]  # (K, B, pointer)
    calls = []
    for index, (size, batch, pointer) in enumerate(cases):
        calls.append(((old_queue(size, 3, seed=411 + index), distinct_keys(batch, 3, seed=421 + index), pointer), {}))
    for result, (args, _) in zip(sub.enqueue.map(calls), calls, strict=True):
        expect_enqueued(result, ref.enqueue(*args), WRAP_HINT + " K need not be a multiple of B.")


@check("enqueue.empty_batch", "B = 0 returns an equal copy in new storage and the same pointer",
       clauses=["queue.empty_batch"])
def enqueue_empty_batch(sub: Any, ref: Any) -> None:
    queue = old_queue(4, 3, seed=441)
    result = sub.enqueue.call(queue, torch.zeros(0, 3, dtype=F64), 2)
    expect_enqueued(result, (queue, 2), "With no keys nothing is written.")
    with hint("Even with nothing to write, return a copy (queue.detach().clone()), not the queue itself."):
        expect_no_alias(result)


@check("enqueue.oversized_batch", "B > K, one or several wraps: the last K writes survive in their slots",
       clauses=["queue.writes"])
def enqueue_oversized_batch(sub: Any, ref: Any) -> None:
    cases = [(4, 6, 1), (4, 11, 3), (3, 6, 0), (4, 9, 2), (5, 13, 4), (2, 5, 1)]  # (K, B, pointer)
    calls = [
        ((old_queue(size, 2, seed=461 + index), distinct_keys(batch, 2, seed=471 + index), pointer), {})
        for index, (size, batch, pointer) in enumerate(cases)
    ]
    for result, (args, _) in zip(sub.enqueue.map(calls), calls, strict=True):
        expect_enqueued(
            result,
            ref.enqueue(*args),
            "Think of B sequential writes: key j lands in slot (pointer + j) % K, later writes overwrite "
            "earlier ones, so only the last K keys survive, each in the slot it was written to.",
        )


@check("enqueue.zero_rows", "Zero key rows are written as zero rows", clauses=["queue.normalise"])
def enqueue_zero_rows(sub: Any, ref: Any) -> None:
    queue = old_queue(5, 3, seed=491, dtype=F32)
    keys = torch.tensor([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0], [0.0, 0.0, 0.0]])
    result = sub.enqueue.call(queue, keys, 3)
    expect_enqueued(
        result,
        ref.enqueue(queue, keys, 3),
        "A zero row stays zero: divide by max(norm, 1e-12), which never produces nan.",
    )


def expected_half_rows(keys: torch.Tensor) -> torch.Tensor:
    """Normalised rows computed in float64 and rounded once to the keys' dtype (independent of the reference)."""
    exact = keys.to(F64)
    norms = torch.linalg.vector_norm(exact, dim=1, keepdim=True).clamp_min(1e-12)  # [B, 1]
    return (exact / norms).to(keys.dtype)


HALF_EDGE_ROWS = {
    # float16: 1e-12 is 0 there, squares of 1e-4 are 1e-8 (below its smallest step) and squares of 1000 pass
    # its maximum, 65,504. bfloat16 holds 1e-12, so a row of norm 5e-13 is divided by the floor.
    torch.float16: ((0, 0, 0, 0), (1e-4, 2e-4, 0, -2e-4), (1e3, -2e3, 500, 0), (0.3, 0.4, 0, 1.2)),
    torch.bfloat16: ((0, 0, 0, 0), (3e-13, 4e-13, 0, 0), (1e-30, 0, -2e-30, 0), (3e18, -4e18, 0, 1e18)),
}


@check("enqueue.half_precision_edge_rows", "float16 and bfloat16: zero rows stay zero, tiny and large rows are right",
       clauses=["queue.normalise"])
def enqueue_half_precision_edge_rows(sub: Any, ref: Any) -> None:
    calls = [
        ((old_queue(6, 4, seed=513, dtype=dtype), torch.tensor(rows, dtype=dtype), 5), {})
        for dtype, rows in HALF_EDGE_ROWS.items()
    ]
    for result, (args, _) in zip(sub.enqueue.map(calls), calls, strict=True):
        queue, keys, pointer = args
        expected = queue.clone()
        expected[[5, 0, 1, 2]] = expected_half_rows(keys)  # four keys from slot 5, wrapping to 0
        got = call_value(result)
        if isinstance(got, tuple | list) and len(got) == 2 and isinstance(got[0], torch.Tensor):
            if not bool(torch.isfinite(got[0].float()).all()):
                fail(
                    f"{result.call}: the returned queue has nan or inf entries, where keys rows of zeros, of "
                    f"tiny and of large entries were written. Normalise in float32 and round each row back to "
                    f"{keys.dtype} once: in float16 the floor 1e-12 itself rounds to 0 (a zero row becomes "
                    "0 / 0 = nan), and squares of entries below about 2e-4 or above 256 leave its range."
                )
        expect_enqueued(
            result,
            (expected, 3),
            f"In {keys.dtype}, normalise in float32 and round the result once to {keys.dtype}: zero rows stay "
            "zero, tiny rows become unit rows (or rows divided by 1e-12), large rows do not overflow.",
        )


# ============================================================================================= experiment
#
# The seed's CPU experiment: six fixed pairs of 4-D features (two views of each example), a linear query
# encoder W_q (4 x 3, 12 trainable numbers), a key encoder W_k that starts equal to it, and a dictionary of
# five 3-D entries. Each step takes two pairs (steps cycle through pairs 0-1, 2-3, 4-5):
#   q = x_q W_q, k = x_k W_k (cached) -> loss(q, k, queue) -> W_q -= lr dL/dW_q -> W_k EMA -> enqueue(k).

EXPERIMENT_QUERY_VIEWS = (
    (1.0, 0.2, -0.3, 0.5),
    (-0.4, 1.1, 0.6, -0.2),
    (0.3, -0.7, 1.2, 0.4),
    (0.9, 0.5, 0.1, -1.0),
    (-1.2, -0.3, 0.4, 0.8),
    (0.2, 0.9, -1.1, 0.3),
)
EXPERIMENT_KEY_VIEWS = (
    (0.9, 0.3, -0.2, 0.6),
    (-0.5, 1.0, 0.7, -0.1),
    (0.4, -0.6, 1.1, 0.3),
    (1.0, 0.4, 0.2, -0.9),
    (-1.1, -0.4, 0.3, 0.9),
    (0.1, 1.0, -1.0, 0.2),
)
EXPERIMENT_ENCODER = ((0.5, -0.2, 0.1), (0.3, 0.4, -0.5), (-0.1, 0.6, 0.2), (0.2, -0.3, 0.7))  # 4 x 3
EXPERIMENT_DICTIONARY = (
    (1.0, 0.0, 0.0),
    (0.0, 1.0, 0.0),
    (0.0, 0.0, 1.0),
    (0.6, -0.8, 0.0),
    (0.0, 0.6, -0.8),
)
EXPERIMENT_STEPS, EXPERIMENT_BATCH, EXPERIMENT_LR, EXPERIMENT_MOMENTUM, EXPERIMENT_TEMPERATURE = (
    12,
    2,
    0.05,
    0.8,
    0.3,
)
FINITE_DIFFERENCE_STEP = 1e-6

Matrix = tuple[tuple[float, ...], ...]


def experiment_batch(step: int) -> tuple[int, ...]:
    """Rows used at `step` (1-based): (0, 1), (2, 3), (4, 5), (0, 1), ..."""
    return tuple(experiment_rows(step, EXPERIMENT_BATCH, len(EXPERIMENT_QUERY_VIEWS)))


# --- the independent trajectory: plain Python floats, no torch ---------------------------------------------


def _encode(row: Sequence[float], weights: Matrix) -> tuple[float, ...]:
    return tuple(sum(row[i] * weights[i][j] for i in range(len(row))) for j in range(len(weights[0])))


def _unit(vector: Sequence[float]) -> tuple[float, ...]:
    norm = max(math.sqrt(sum(v * v for v in vector)), 1e-12)
    return tuple(v / norm for v in vector)


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _objective(weights: Matrix, keys: Sequence[Sequence[float]], dictionary: Matrix, rows: Sequence[int]) -> float:
    """The batch loss as a function of the query encoder alone (keys are constants)."""
    total = 0.0
    for row, key in zip(rows, keys, strict=True):
        query = _unit(_encode(EXPERIMENT_QUERY_VIEWS[row], weights))
        logits = [_dot(query, _unit(key)) / EXPERIMENT_TEMPERATURE]
        logits += [_dot(query, _unit(entry)) / EXPERIMENT_TEMPERATURE for entry in dictionary]
        top = max(logits)
        total += top + math.log(sum(math.exp(v - top) for v in logits)) - logits[0]
    return total / len(rows)


def _shifted(weights: Matrix, i: int, j: int, delta: float) -> Matrix:
    return tuple(tuple(w + delta if (a, b) == (i, j) else w for b, w in enumerate(r)) for a, r in enumerate(weights))


def _finite_difference_gradient(weights: Matrix, keys: Sequence[Sequence[float]], dictionary: Matrix,
                                rows: Sequence[int]) -> list[list[float]]:
    h = FINITE_DIFFERENCE_STEP
    return [
        [
            (_objective(_shifted(weights, i, j, h), keys, dictionary, rows)
             - _objective(_shifted(weights, i, j, -h), keys, dictionary, rows)) / (2 * h)
            for j in range(len(weights[0]))
        ]
        for i in range(len(weights))
    ]


@cache
def independent_trajectory() -> tuple[dict[str, Any], ...]:
    """The state before the first step and after each of the twelve (13 states), from a scalar objective and
    central finite differences. A state's "loss" is the batch loss it gives the batch of the step that starts
    from it, so state s - 1 carries the loss step s trains on, and state 12 the loss a thirteenth step would
    see: every series of the chart then has a value at step 0, the initial state."""
    query_weights: Matrix = EXPERIMENT_ENCODER
    key_weights: Matrix = EXPERIMENT_ENCODER
    dictionary: Matrix = EXPERIMENT_DICTIONARY
    pointer = 0
    states = []
    for step in range(1, EXPERIMENT_STEPS + 2):
        rows = experiment_batch(step)
        keys = [_encode(EXPERIMENT_KEY_VIEWS[row], key_weights) for row in rows]  # cached before any update
        states.append(
            {
                "query encoder": query_weights,
                "key encoder": key_weights,
                "dictionary": dictionary,
                "pointer": pointer,
                "loss": _objective(query_weights, keys, dictionary, rows),
            }
        )
        if step > EXPERIMENT_STEPS:
            break
        gradient = _finite_difference_gradient(query_weights, keys, dictionary, rows)
        query_weights = tuple(
            tuple(w - EXPERIMENT_LR * g for w, g in zip(r, gr, strict=True))
            for r, gr in zip(query_weights, gradient, strict=True)
        )
        m = EXPERIMENT_MOMENTUM
        key_weights = tuple(
            tuple(m * wk + (1 - m) * wq for wk, wq in zip(rk, rq, strict=True))
            for rk, rq in zip(key_weights, query_weights, strict=True)
        )
        slots = list(dictionary)
        for key in keys:  # a ring buffer: one write per key, the oldest entry goes as the newest comes
            slots[pointer] = _unit(key)
            pointer = (pointer + 1) % len(slots)
        dictionary = tuple(slots)
    return tuple(states)


# --- the learner's functions, one step at a time ------------------------------------------------------------
#
# A state is a dict with the names below: tensors for the encoders and the dictionary (float64), an int for
# the pointer, and the loss the state gives its next batch.

STATE_NAMES = ("query encoder", "key encoder", "dictionary", "pointer", "loss")
STATE_HINTS = {
    "loss": "the batch loss comes from your moco_loss",
    "query encoder": "the query encoder is updated with the gradient your moco_loss gives for query",
    "key encoder": "the key encoder is updated by your momentum_update(W_q, W_k, 0.8)",
    "dictionary": "the dictionary is updated by your enqueue(queue, k, pointer)",
    "pointer": "the pointer comes from your enqueue",
}
QUERY_VIEWS = torch.tensor(EXPERIMENT_QUERY_VIEWS, dtype=F64)  # [6, 4]
KEY_VIEWS = torch.tensor(EXPERIMENT_KEY_VIEWS, dtype=F64)  # [6, 4]


def as_tensor(matrix: Matrix) -> torch.Tensor:
    return torch.tensor(matrix, dtype=F64)


def tensor_state(state: dict[str, Any]) -> dict[str, Any]:
    """A trajectory state with its matrices as float64 tensors."""
    return {name: as_tensor(value) if name in ("query encoder", "key encoder", "dictionary") else value
            for name, value in state.items()}


def loss_call(state: dict[str, Any], step: int) -> tuple[tuple[Any, ...], torch.Tensor]:
    """The arguments of step `step`'s moco_loss call from `state`, and the cached keys [2, 3] (computed before
    either encoder moves). The same code as the worker's run (helpers.experiment_run), so both reach the same bits."""
    query, key = experiment_loss_arguments(QUERY_VIEWS, KEY_VIEWS, state["query encoder"], state["key encoder"],
                                           list(experiment_batch(step)))
    return (query, key, state["dictionary"], EXPERIMENT_TEMPERATURE), key


def value_at(result: CallResult, where: str) -> Any:
    """The call's value; if it raised, a failure that says at which step of the experiment."""
    if result.raised is not None:
        fail(f"{where}: {result.call} raised {result.raised.summary()}")
    return result.value


def read_loss(result: CallResult, where: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The loss (0-d) and query.grad ([2, 3]) of one experiment call of moco_loss."""
    loss = expect_tensor(value_at(result, where), shape=(), what=f"the loss {where}", call=result).detach()
    gradient = result.grads.get("query")
    if gradient is None:
        fail(f"{where}: after backward() on {result.call}, query.grad is None; the loss must be "
             "differentiable in query")
    gradient = expect_tensor(gradient, shape=(2, 3), what=f"query.grad {where}", call=result)
    return loss.to(F64), gradient.to(F64)


def sgd_step(query_weights: torch.Tensor, step: int, gradient: torch.Tensor) -> torch.Tensor:
    """W_q - lr dL/dW_q, with dL/dW_q = x_q^T dL/dq because q = x_q W_q (helpers.experiment_sgd_step)."""
    return experiment_sgd_step(QUERY_VIEWS, query_weights, gradient, list(experiment_batch(step)), EXPERIMENT_LR)


def read_key_encoder(result: CallResult, where: str) -> torch.Tensor:
    got = value_at(result, where)
    return expect_tensor(got, shape=(4, 3), dtype=F64, what=f"the key encoder {where}", call=result).detach()


def read_enqueued(result: CallResult, where: str) -> tuple[torch.Tensor, int]:
    pair = value_at(result, where)
    if not isinstance(pair, tuple | list) or len(pair) != 2 or type(pair[1]) is not int:
        fail(f"{where}: {result.call} should return (new_queue, new_pointer as int), got {describe(pair)}")
    dictionary = expect_tensor(pair[0], shape=(5, 3), dtype=F64, what=f"the dictionary {where}", call=result)
    return dictionary.detach(), pair[1]


def state_gaps(got: dict[str, Any], expected: dict[str, Any]) -> dict[str, float]:
    """The largest absolute difference of each tensor entry of a state (and the pointer's) from the trajectory.
    The chart's gap leaves the pointer out: it has its own chart, and its unit is a slot, not a value."""
    gaps = {}
    for name in STATE_NAMES:
        if name not in got:
            continue
        if name == "pointer":
            gaps[name] = float(abs(got[name] - expected[name]))
            continue
        difference = (got[name].to(F64) - torch.tensor(expected[name], dtype=F64)).abs()
        gaps[name] = float(difference.max()) if bool(torch.isfinite(difference).all()) else math.inf
    return gaps


def first_departure(got: dict[str, Any], expected: dict[str, Any]) -> tuple[str, str] | None:
    """The first state entry (in STATE_NAMES order) that is off the trajectory and how; None if none."""
    for name in STATE_NAMES:
        if name not in got:
            continue
        if name == "pointer":
            if got[name] != expected[name]:
                return name, f"expected {expected[name]}, got {got[name]}"
            continue
        wanted = torch.tensor(expected[name], dtype=F64)
        difference = (got[name].to(F64) - wanted).abs()
        allowed = 1e-7 + 1e-6 * wanted.abs()
        if not bool((difference <= allowed).all()):  # nan never passes
            return name, f"largest difference {float(difference.max()):.3g}"
    return None


def chained_run(sub: Any, states: list[dict[str, Any]]) -> None:
    """The learner's own run: each step's calls take the states the previous step's calls produced. Appends
    state 0 to 12 to `states` as they are reached (so a failure part-way leaves the states before it). Every
    number is compared in the judge; the worker only evaluates the three functions."""
    trajectory = independent_trajectory()
    state = tensor_state(trajectory[0])  # the initial state is given, not computed
    state.pop("loss")
    for step in range(1, EXPERIMENT_STEPS + 2):
        arguments, key = loss_call(state, step)
        where = f"at step {step - 1} of your run (the loss of the state step {step} starts from)"
        loss, gradient = read_loss(sub.moco_loss.call(*arguments, grads=("query",)), where)
        states.append(dict(state, loss=loss))
        if step > EXPERIMENT_STEPS:
            return
        where = f"at step {step} of your run"
        query_weights = sgd_step(state["query encoder"], step, gradient)
        ema = sub.momentum_update.call(query_weights, state["key encoder"], EXPERIMENT_MOMENTUM)
        enqueued = sub.enqueue.call(state["dictionary"], key, state["pointer"])
        dictionary, pointer = read_enqueued(enqueued, where)
        state = {
            "query encoder": query_weights.detach(),
            "key encoder": read_key_encoder(ema, where),
            "dictionary": dictionary,
            "pointer": pointer,
        }


def teacher_forced_departure(sub: Any) -> tuple[int, str, str] | None:
    """The diagnosis: every step replayed from the trajectory's own state before it, so the first step and
    function that depart are named even when the run has compounded the error since. Its calls are known in
    advance, so they go to the worker in three batches. Returns (state index, entry, how), numbered like the
    chart: the loss that step t trains on belongs to state t - 1, what step t computes to state t."""
    trajectory = [tensor_state(state) for state in independent_trajectory()]
    loss_calls, keys = [], []
    for step, before in enumerate(trajectory, start=1):
        arguments, key = loss_call(before, step)
        loss_calls.append((arguments, {}))
        keys.append(key)
    ema_calls, enqueue_calls = [], []
    for step in range(1, EXPERIMENT_STEPS + 1):
        before, after = trajectory[step - 1], trajectory[step]
        ema_calls.append(((after["query encoder"], before["key encoder"], EXPERIMENT_MOMENTUM), {}))
        enqueue_calls.append(((before["dictionary"], keys[step - 1], before["pointer"]), {}))
    losses = sub.moco_loss.map(loss_calls, grads=("query",))
    key_encoders = sub.momentum_update.map(ema_calls)
    enqueued = sub.enqueue.map(enqueue_calls)
    expected_states = independent_trajectory()
    for step in range(1, EXPERIMENT_STEPS + 2):
        where = f"at step {min(step, EXPERIMENT_STEPS)} of the replay"
        loss, gradient = read_loss(losses[step - 1], where)
        found = first_departure({"loss": loss}, expected_states[step - 1])
        if found is not None:
            return step - 1, *found
        if step <= EXPERIMENT_STEPS:
            dictionary, pointer = read_enqueued(enqueued[step - 1], where)
            got = {
                "query encoder": sgd_step(trajectory[step - 1]["query encoder"], step, gradient),
                "key encoder": read_key_encoder(key_encoders[step - 1], where),
                "dictionary": dictionary,
                "pointer": pointer,
            }
            found = first_departure(got, expected_states[step])
            if found is not None:
                return step, *found
    return None


GAP_FLOOR = 1e-16  # gaps below float64 rounding are drawn at -16 (and an exact 0 has no logarithm)


def gap_log10(gaps: dict[str, float]) -> float:
    """log10 of the largest gap of the loss, encoders and dictionary (the pointer has its own chart and its
    unit is a slot). A logarithm because a right run sits near 1e-11 and a wrong one near 1: on a linear axis
    the right run is a flat line labelled 0."""
    largest = max(gap for name, gap in gaps.items() if name != "pointer")
    return math.log10(max(largest, GAP_FLOOR)) if math.isfinite(largest) else math.inf


def chart_of(states: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's series from step 0, up to (not including) the first state with a non-finite number."""
    trajectory = independent_trajectory()
    series: dict[str, list[float]] = {"loss": [], "param_distance": [], "pointer": [],
                                      "trajectory_gap_log10": []}
    for state, expected in zip(states, trajectory, strict=False):
        point = {
            "loss": float(state["loss"]),
            "param_distance": float(torch.linalg.vector_norm(state["query encoder"] - state["key encoder"])),
            "pointer": float(state["pointer"]),
            "trajectory_gap_log10": gap_log10(state_gaps(state, expected)),
        }
        if not all(math.isfinite(value) for value in point.values()):
            break
        for name, value in point.items():
            series[name].append(value)
    return {"steps": list(range(len(series["loss"]))), "series": series}


EXPERIMENT_FUNCTIONS = ("moco_loss", "momentum_update", "enqueue")


def run_in_one_request(sub: Any) -> list[dict[str, Any]] | None:
    """The learner's run as chained_run reaches it, in four requests instead of 37, or None.

    The worker runs the whole chain (helpers.experiment_run, the same glue as chained_run's) and returns every
    call's result. The judge rebuilds the states from them and replays each step's calls from those states, each
    function's steps in one request, exactly as chained_run would make them. Only when every replayed result is
    bit for bit the one the run returned, and every state is on the trajectory, are these chained_run's states:
    by induction from the given state 0, each of its calls would get the same input and give the same answer.
    Anything else (a run that raised or broke a limit, a result of the wrong form, a function that answers the
    same input differently, a departure) returns None and chained_run grades the run as before, message and
    chart included."""
    initial = tensor_state(independent_trajectory()[0])
    try:
        run = sub.from_helpers("experiment_run", uses=EXPERIMENT_FUNCTIONS).call(
            QUERY_VIEWS, KEY_VIEWS, initial["query encoder"], initial["key encoder"], initial["dictionary"],
            initial["pointer"], EXPERIMENT_STEPS, EXPERIMENT_BATCH, EXPERIMENT_LR, EXPERIMENT_MOMENTUM,
            EXPERIMENT_TEMPERATURE)
        records = run.value if run.raised is None else None
        if not (isinstance(records, list) and len(records) == EXPERIMENT_STEPS + 1):
            return None
        states = states_of(records, initial)
        if states is None or not replay_agrees(sub, states, records):
            return None
    except (CheckFailed, WorkerLost):
        return None
    trajectory = independent_trajectory()
    if any(first_departure(state, expected) is not None for state, expected in zip(states, trajectory, strict=True)):
        return None
    return states



def _tensor(value: Any, shape: tuple[int, ...], dtype: torch.dtype | None = None) -> bool:
    return type(value) is torch.Tensor and value.shape == shape and (dtype is None or value.dtype == dtype)


def states_of(records: list[Any], initial: dict[str, Any]) -> list[dict[str, Any]] | None:
    """States 0 to 12 from the run's records, built as chained_run builds them (None: a record of another form,
    which chained_run reports in its own words)."""
    state = {name: value for name, value in initial.items() if name != "loss"}
    states: list[dict[str, Any]] = []
    for step, record in enumerate(records, start=1):
        last = step > EXPERIMENT_STEPS
        if not (isinstance(record, tuple) and len(record) == (2 if last else 4)):
            return None
        loss, gradient = record[0], record[1]
        if not (_tensor(loss, ()) and _tensor(gradient, (2, 3))):
            return None
        states.append(dict(state, loss=loss.to(F64)))
        if last:
            return states
        key_encoder, enqueued = record[2], record[3]
        if not (_tensor(key_encoder, (4, 3), F64) and isinstance(enqueued, tuple | list) and len(enqueued) == 2
                and _tensor(enqueued[0], (5, 3), F64) and type(enqueued[1]) is int):
            return None
        state = {"query encoder": sgd_step(state["query encoder"], step, gradient.to(F64)).detach(),
                 "key encoder": key_encoder, "dictionary": enqueued[0], "pointer": enqueued[1]}
    return None


def replay_agrees(sub: Any, states: list[dict[str, Any]], records: list[Any]) -> bool:
    """Each step's calls made again from the rebuilt states, as chained_run makes them, give exactly the run's
    results: moco_loss at every state (13 calls, one request), momentum_update and enqueue at every step."""
    loss_calls, enqueue_calls, ema_calls = [], [], []
    for step in range(1, EXPERIMENT_STEPS + 2):
        arguments, key = loss_call(states[step - 1], step)
        loss_calls.append((arguments, {}))
        if step <= EXPERIMENT_STEPS:
            before, after = states[step - 1], states[step]
            ema_calls.append(((after["query encoder"], before["key encoder"], EXPERIMENT_MOMENTUM), {}))
            enqueue_calls.append(((before["dictionary"], key, before["pointer"]), {}))
    losses = sub.moco_loss.map(loss_calls, grads=("query",))
    if not all(result.raised is None and same_bits(result.value, record[0])
               and same_bits(result.grads.get("query"), record[1])
               for result, record in zip(losses, records, strict=True)):
        return False
    key_encoders = sub.momentum_update.map(ema_calls)
    enqueued = sub.enqueue.map(enqueue_calls)
    return all(
        ema.raised is None and enq.raised is None and same_bits(ema.value, record[2])
        and isinstance(enq.value, tuple | list) and len(enq.value) == 2
        and same_bits(enq.value[0], record[3][0]) and same_bits(enq.value[1], record[3][1])
        for ema, enq, record in zip(key_encoders, enqueued, records, strict=False))


@check("experiment.trajectory", "Your own 12-step run follows an independent trajectory at every step",
       clauses=["experiment.trajectory"])
def experiment_trajectory(sub: Any, ref: Any, ctx: Any) -> None:
    """The learner's chained run, compared state by state with the independent trajectory; the charts show
    it from step 0. Only when it departs does a teacher-forced replay name the first step and function. A run
    that stays on the trajectory takes four requests (run_in_one_request); any other is graded step by step."""
    fast = run_in_one_request(sub)
    if fast is not None:
        ctx.record_experiment(**chart_of(fast))
        return
    states: list[dict[str, Any]] = []
    try:
        chained_run(sub, states)
    finally:
        chart = chart_of(states)
        if chart["steps"]:
            ctx.record_experiment(**chart)
    for step, (state, expected) in enumerate(zip(states, independent_trajectory(), strict=True)):
        found = first_departure(state, expected)
        if found is not None:
            fail(departure_message(step, *found, teacher_forced_departure(sub)))


def departure_message(step: int, name: str, how: str, diagnosis: tuple[int, str, str] | None) -> str:
    run = (
        f"Your own run of {EXPERIMENT_STEPS} steps leaves the independent trajectory at step {step}, in the "
        f"{name} ({how}); the charts show your run."
    )
    if diagnosis is None:
        return (
            f"{run} Replayed one step at a time from the trajectory's own states, every step matches within "
            "tolerance, so small differences add up over the run: keep the whole computation in the inputs' "
            "dtype (float64 here)."
        )
    first_step, first_name, first_how = diagnosis
    if (first_step, first_name) == (step, name):
        return f"{run} Replayed from the trajectory's own states, it is also the first step to depart: " + (
            f"{STATE_HINTS[name]}."
        )
    return (
        f"{run} Replayed one step at a time from the trajectory's own states, your functions first depart at "
        f"step {first_step}, in the {first_name} ({first_how}): {STATE_HINTS[first_name]}."
    )
