"""Check battery for lr_at (linear warmup + cosine decay).

Groups: `schedule` (values at every region and boundary), `result` (type, bounds, precision) and `contract`
(errors) are required; `experiment` is advisory (it records the learner's schedule for the notes). Random
configurations come from a seeded generator, so two runs give identical verdicts.
"""

import math

from grader.checks import check, expect, expect_close, expect_rejected, fail, legal_inputs

# Equivalent formulas (min + (base - min) c, base c + min (1 - c), cos^2 of the half angle) differ by a few ulps
# of base_lr; near the end of the decay 1 + cos(x) cancels, so the error is absolute in base_lr, not relative
# to the (tiny) result. Every mutant is off by at least 1e-3 relative somewhere.
RTOL = 1e-12
ATOL_PER_BASE = 1e-12


def _precision_hint(got, expected):
    """A value right to about seven digits only was computed in float32 somewhere."""
    if isinstance(got, float) and math.isclose(got, expected, rel_tol=1e-5) and got != expected:
        return (f"(your {got!r} agrees with {expected!r} to only about 7 digits: compute with Python floats "
                f"(float64), not float32 tensors)")
    return ""


# ------------------------------------------------------------------------------------------- comparisons


def _expect_float(result):
    got = result.unwrap()
    if isinstance(got, bool) or not isinstance(got, float):
        fail(f"{result.call} returned {type(got).__name__} {got!r}; return a Python float (convert with float(), "
             f"and compute with the math module rather than tensors)")
    return got


def _expect_rate(result, ref, step, base_lr, warmup_steps, total_steps, min_lr=0.0, *, hint=""):
    got = _expect_float(result)
    expected = ref.lr_at(step, base_lr, warmup_steps, total_steps, min_lr)
    tolerance = ATOL_PER_BASE * base_lr
    if not math.isclose(got, expected, rel_tol=RTOL, abs_tol=tolerance):
        hint = _precision_hint(got, expected) or hint
    expect_close(got, expected, call=result, rtol=RTOL, atol=tolerance, hint=hint)


def _map_steps(sub, steps, base_lr, warmup_steps, total_steps, min_lr):
    return sub.lr_at.map([((step, base_lr, warmup_steps, total_steps, min_lr), {}) for step in steps])


def _expect_schedule(sub, ref, steps, base_lr, warmup_steps, total_steps, min_lr, *, hint=""):
    results = _map_steps(sub, steps, base_lr, warmup_steps, total_steps, min_lr)
    for step, result in zip(steps, results, strict=True):
        _expect_rate(result, ref, step, base_lr, warmup_steps, total_steps, min_lr, hint=hint)


@legal_inputs("lr_at")
def _floor_below_peak(args, sizes):
    """min_lr is at most base_lr (a relation ranges cannot state)."""
    args["min_lr"] = min(args["min_lr"], args["base_lr"])
    return args


# ------------------------------------------------------------------------------------------------ values


@check("schedule.hand_example", "Hand example: base_lr 1, warmup 4, total 12, min_lr 0.1",
       clauses=["warmup.first_step", "warmup.linear", "decay.peak", "decay.cosine", "decay.floor"])
def hand_example(sub, ref):
    # Warmup in quarters (0.25, 0.5, 0.75, 1.0); the 8-step decay span starts at step 4 at the peak; step 8 is
    # halfway, where (1 + cos(pi / 2)) / 2 = 1/2 gives 0.1 + 0.9 / 2 = 0.55; step 6 is a quarter of the way,
    # 0.1 + 0.9 (1 + cos(pi / 4)) / 2; from step 12 on the floor 0.1.
    table = {0: 0.25, 1: 0.5, 2: 0.75, 3: 1.0, 4: 1.0, 6: 0.1 + 0.9 * (1 + math.cos(math.pi / 4)) / 2, 8: 0.55,
             12: 0.1, 20: 0.1}
    results = _map_steps(sub, list(table), 1.0, 4, 12, 0.1)
    for expected, result in zip(table.values(), results, strict=True):
        got = _expect_float(result)
        hint = _precision_hint(got, expected) or "(see the statement's table: quarters during warmup, 0.55 " \
            "halfway through the decay, 0.1 from step 12 on)"
        expect_close(got, expected, call=result, rtol=1e-12, atol=1e-12, hint=hint)


@check("schedule.first_step", "Step 0 already has rate base_lr / warmup_steps, never 0",
       clauses=["warmup.first_step"])
def first_step(sub, ref):
    cases = [(3e-4, 2000), (0.1, 1), (1.0, 3), (6e-4, 700)]
    results = sub.lr_at.map([((0, base_lr, warmup, warmup + 100, 0.0), {}) for base_lr, warmup in cases])
    for (base_lr, warmup), result in zip(cases, results, strict=True):
        _expect_rate(result, ref, 0, base_lr, warmup, warmup + 100, hint="(step s is the (s + 1)-th warmup step)")


@check("schedule.warmup_linear", "Warmup climbs linearly: base_lr * (step + 1) / warmup_steps",
       clauses=["warmup.linear"])
def warmup_linear(sub, ref):
    _expect_schedule(sub, ref, list(range(0, 10)), 2e-3, 10, 50, 1e-4)
    _expect_schedule(sub, ref, [0, 1, 499, 998, 999], 0.5, 1000, 5000, 0.05)


@check("schedule.warmup_boundary", "The last warmup step and the first decay step are both at base_lr",
       clauses=["decay.peak", "warmup.linear"])
def warmup_boundary(sub, ref):
    for base_lr, warmup, total, min_lr in [(1.0, 4, 12, 0.1), (3e-4, 1, 2, 0.0), (0.02, 100, 101, 0.01),
                                           (5.0, 7, 1000, 5.0)]:
        _expect_schedule(sub, ref, [warmup - 1, warmup, warmup + 1], base_lr, warmup, total, min_lr,
                         hint=f"(steps {warmup - 1} and {warmup} both use base_lr = {base_lr})")


@check("schedule.no_warmup", "warmup_steps = 0: the cosine starts at step 0 at base_lr",
       clauses=["warmup.none", "decay.cosine"])
def no_warmup(sub, ref):
    _expect_schedule(sub, ref, [0, 1, 5, 9, 10, 11], 0.1, 0, 10, 0.0,
                     hint="(with warmup_steps = 0 there is no warmup: do not divide by warmup_steps)")
    _expect_schedule(sub, ref, [0, 1], 1.0, 0, 1, 0.5)


@check("schedule.cosine", "Between warmup_steps and total_steps: half a cosine over the decay span",
       clauses=["decay.cosine"])
def cosine(sub, ref):
    # A long warmup (30 of 40 steps) makes measuring the cosine from step 0 instead of warmup_steps obvious.
    _expect_schedule(sub, ref, list(range(30, 41)), 1.0, 30, 40, 0.2)
    _expect_schedule(sub, ref, list(range(0, 101, 5)), 3e-4, 0, 100, 3e-5)


@check("schedule.floor", "From total_steps on the rate is min_lr, however far past the end",
       clauses=["decay.floor"])
def floor(sub, ref):
    for base_lr, warmup, total, min_lr in [(1.0, 4, 12, 0.1), (6e-4, 100, 1000, 6e-5), (0.3, 0, 5, 0.0)]:
        steps = [total - 1, total, total + 1, total + 3, 2 * total - warmup, 10 * total, total + 10**12]
        _expect_schedule(sub, ref, steps, base_lr, warmup, total, min_lr,
                         hint=f"(hold min_lr = {min_lr} from step {total} on; do not let the cosine run past pi)")



# ------------------------------------------------------------------------------------------------ result



@check("result.shape", "The rate is in (0, base_lr], above min_lr after warmup, rising in warmup and never after",
       clauses=["result.bounded"])
def shape(sub, ref):
    for base_lr, warmup, total, min_lr in [(1.0, 20, 100, 0.1), (3e-4, 0, 60, 0.0), (2.0, 30, 31, 1.0)]:
        steps = list(range(0, total + 10))
        rates = [_expect_float(result) for result in _map_steps(sub, steps, base_lr, warmup, total, min_lr)]
        config = f"base_lr={base_lr}, warmup_steps={warmup}, total_steps={total}, min_lr={min_lr}"
        for step, rate in zip(steps, rates, strict=True):
            low = min_lr if step >= warmup else 0.0  # the warmup starts below the floor, at base_lr / warmup_steps
            expect(low < rate <= base_lr or (step >= warmup and low == rate),
                   f"lr_at({step}, {config}) = {rate!r} is outside {'[min_lr' if step >= warmup else '(0'}, "
                   f"base_lr] = [{low}, {base_lr}]")
        for step in range(1, len(steps)):
            before, now = rates[step - 1], rates[step]
            if step < warmup:
                expect(now >= before, f"the rate falls during warmup with {config}: step {step - 1} has "
                       f"{before!r}, step {step} has {now!r}")
            elif step > warmup:
                expect(now <= before, f"the rate rises after warmup with {config}: step {step - 1} has "
                       f"{before!r}, step {step} has {now!r} (hold min_lr after total_steps; the cosine must "
                       f"not run past pi)")


@check("result.huge_steps", "Exact for step counts up to 10**18 (beyond float64's exact integers), at any rate",
       clauses=["result.precision", "result.bounded"])
def huge_steps(sub, ref):
    total = 10**18
    configs = [  # (base_lr, warmup_steps, total_steps, min_lr, steps)
        (0.1, 10**17, total, 0.001, [0, 10**17 - 1, 10**17, 55 * 10**16, total, total + 1]),
        (0.1, 3, total, 0.001, [3, 10**9, 5 * 10**17, total - 1]),
        # Short decay spans placed at 10**18, where floats are 128 apart: only exact int steps tell them apart
        # (step 10**18 + 5 is halfway through the first, 10**18 + 5 two thirds of the way through the second).
        (1.0, total, total + 10, 0.0, [total - 1, total, total + 1, total + 5, total + 9, total + 10]),
        (2.0, total + 3, total + 6, 0.5, [total + 2, total + 3, total + 4, total + 5, total + 6]),
        # Huge steps with extreme rates: (step + 1) * 1e300 overflows and 1e-300 / 10**18 underflows, while
        # the rate itself, between base_lr / 10**18 and base_lr, does neither.
        (1e300, total, 2 * total, 1e299, [0, 10**17, total - 1, total, 15 * 10**17, 2 * total]),
        (1e300, 10**17, total, 0.0, [7 * 10**16, 10**17 - 1, 10**17, 5 * 10**17]),
        (1e-300, total, 2 * total, 1e-301, [10**17, 7 * 10**17, total - 1, 15 * 10**17, 2 * total + 1]),
    ]
    cases = [(step, base_lr, warmup, total_steps, min_lr)
             for base_lr, warmup, total_steps, min_lr, steps in configs for step in steps]
    results = sub.lr_at.map([(case, {}) for case in cases])
    for case, result in zip(cases, results, strict=True):
        _expect_rate(result, ref, *case,
                     hint="(Python ints are exact at any size: keep the step arithmetic in ints, never float(step) "
                     "or int32/float32 tensors, and form (step + 1) / warmup_steps before multiplying by base_lr, "
                     "which may be 1e300)")


@check("result.extreme_rates", "Rates of 1e-300 and 1e300 keep float64 precision (no overflow, no underflow)",
       clauses=["result.precision"])
def extreme_rates(sub, ref):
    for base_lr, min_lr in [(1e-300, 1e-301), (1e-300, 0.0), (1e300, 1e299), (1e300, 0.0)]:
        _expect_schedule(sub, ref, [0, 3, 9, 10, 15, 20, 25], base_lr, 10, 20, min_lr,
                         hint="(compute with Python floats; a float32 tensor overflows above 3.4e38 and "
                         "underflows below 1.4e-45)")


@check("result.float64_precision", "Values are correct to float64 precision, not float32",
       clauses=["result.precision"])
def float64_precision(sub, ref):
    # float32 arithmetic is off by ~1e-7 relative, 10^5 times the tolerance.
    _expect_schedule(sub, ref, [0, 1, 2, 3, 4, 17, 333, 500, 700, 999], 1.0, 3, 1000, 0.1,
                     hint="(compute in Python floats (float64); float32 tensors lose 7 digits)")


# ---------------------------------------------------------------------------------------------- contract



@check("contract.floor_above_peak", "A floor min_lr above base_lr raises ValueError", clauses=["contract.floor"])
def floor_above_peak(sub, ref):
    expect_rejected("ValueError", sub.lr_at, [((0, 1.0, 4, 12, 1.5), {}, "min_lr is above base_lr")])


# -------------------------------------------------------------------------------------------- experiment


@check("experiment.schedule", "Experiment: your schedule over 120 steps", clauses=["decay.cosine"])
def schedule_experiment(sub, ref, ctx):
    steps = list(range(0, 121))
    with_warmup = _map_steps(sub, steps, 1.0, 10, 100, 0.1)
    without_warmup = _map_steps(sub, steps, 1.0, 0, 100, 0.0)
    ctx.record_experiment(
        steps=steps,
        series={
            "lr": [_expect_float(result) for result in with_warmup],  # warmup 10, decay to 0.1 at step 100
            "lr_no_warmup": [_expect_float(result) for result in without_warmup],  # cosine from step 0 to 0
        },
    )
