"""Check battery for DINO's loss and centre update (Caron et al., 2021).

Groups: `loss`, `center`, `gradients` and `contract` are required; `experiment` is advisory (a toy training run
for the notes). The contracts declared in problem.toml make the generic checks: values against the reference,
float32, layouts, inputs left unchanged, results in new storage, no gradient into the centre, refusals. Every
hand check names the clauses of problem.toml it tests; every random input comes from a seeded generator, so two
runs give identical verdicts.

Gradients. The grader computes gradients for tensors passed directly as arguments, and the views arrive in
lists, so the student's gradients are checked by hand in two parts: every student view must be connected to the
result (a loss computed with only that view requiring grad must require grad), and the derivative of your
function, by central finite differences of its values, must equal the reference's autograd gradient. The
teacher must be disconnected: with only the teacher views and the centre requiring grad, the result must not
require grad. The centre, a direct argument, gets the generic gradient check.
"""

import math

import torch

from grader.checks import check, expect, expect_close, expect_rejected, expect_tensor, fail, legal_inputs

FLOAT32_EPS = torch.finfo(torch.float32).eps
LN2, LN3 = math.log(2.0), math.log(3.0)

# ------------------------------------------------------------------------------------------------ inputs


def _views(generator, count, n, k, dtype=torch.float64, scale=1.0):
    return [(scale * torch.randn(n, k, generator=generator, dtype=torch.float64)).to(dtype) for _ in range(count)]


def _case(seed, v, n, k, dtype=torch.float64, *, scale=1.0):
    """(student views, teacher views, centre). The teacher's crops are the student's first two, so the teacher
    views are those two with a little noise (a momentum teacher is close to its student)."""
    generator = torch.Generator().manual_seed(seed)
    student = _views(generator, v, n, k, dtype, scale)
    teacher = [(s.double() + 0.3 * scale * torch.randn(n, k, generator=generator, dtype=torch.float64)).to(dtype)
               for s in student[:2]]
    center = (0.5 * scale * torch.randn(k, generator=generator, dtype=torch.float64)).to(dtype)
    return student, teacher, center


def _exact_loss(ref, student, teacher, center, *temperatures):
    dtype = center.dtype
    return ref.dino_loss([s.detach().double() for s in student], [t.detach().double() for t in teacher],
                         center.detach().double(), *temperatures).to(dtype)


def _loss_tolerances(dtype, temperatures):
    """float32: logits (t - c) / tau carry a rounding error of eps32 * |logit|, about eps32 * 4 / 0.04 here;
    64 times eps32 / tau_min admits any order of operations, while every mutant is off by > 1e-2."""
    if dtype == torch.float64:
        return 1e-7, 1e-9
    tau = min(temperatures) if temperatures else 0.04
    return 1e-5, 64 * FLOAT32_EPS / tau


def _expect_loss(result, ref, student, teacher, center, *temperatures, hint=""):
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=center.dtype, call=result)
    if not torch.isfinite(got.detach()).all():
        fail(f"{result.call} returned {float(got)} where the loss is finite: use log_softmax for the student "
             f"(log(softmax(...)) is log 0 = -inf once a probability underflows)")
    rtol, atol = _loss_tolerances(center.dtype, temperatures)
    expect_close(got, _exact_loss(ref, student, teacher, center, *temperatures), call=result, rtol=rtol,
                 atol=atol, hint=hint)


HAND_CENTER = torch.tensor([0.5, -0.5, 0.0], dtype=torch.float64)
HAND_TEACHER = [HAND_CENTER.unsqueeze(0) + torch.tensor([[0.04 * LN2, 0.0, 0.0]], dtype=torch.float64),
                HAND_CENTER.unsqueeze(0).clone()]
HAND_STUDENT = [torch.tensor([[0.0, 0.0, 0.0]], dtype=torch.float64),
                torch.tensor([[0.1 * LN2, 0.0, 0.0]], dtype=torch.float64),
                torch.tensor([[0.0, 0.0, 0.1 * LN2]], dtype=torch.float64)]


# -------------------------------------------------------------------------------------------------- loss


@check("loss.hand_example", "Hand example, two global views: (1.5 ln 2 + ln 3) / 2 = 1.069167",
       clauses=["loss.teacher", "loss.student", "loss.pairs"])
def loss_hand_example(sub, ref):
    # P0 = [1/2, 1/4, 1/4], P1 = [1/3, 1/3, 1/3] after centring and sharpening; Q0 = [1/3, 1/3, 1/3] and
    # Q1 = [1/2, 1/4, 1/4]. Pairs (0, 1) and (1, 0): H(P0, Q1) = 1.5 ln 2 and H(P1, Q0) = ln 3.
    result = sub.dino_loss.call(HAND_STUDENT[:2], HAND_TEACHER, HAND_CENTER)
    got = result.unwrap()
    expect_tensor(got, shape=(), dtype=torch.float64, call=result)
    expect_close(got, torch.tensor((1.5 * LN2 + LN3) / 2, dtype=torch.float64), call=result,
                 hint="(teacher 0 gives [1/2, 1/4, 1/4] and teacher 1 [1/3, 1/3, 1/3] once the centre is subtracted "
                 "and the result divided by 0.04; each is paired only with the OTHER student view)")


@check("loss.local_views", "Hand example with a local view: the mean over the 4 pairs is 1.126647",
       clauses=["loss.pairs"])
def loss_local_views(sub, ref):
    # Q2 = [1/4, 1/4, 1/2] adds H(P0, Q2) = 1.75 ln 2 and H(P1, Q2) = (5/3) ln 2 to the two pairs above
    result = sub.dino_loss.call(HAND_STUDENT, HAND_TEACHER, HAND_CENTER)
    expected = (1.5 * LN2 + LN3 + 1.75 * LN2 + 5 / 3 * LN2) / 4
    expect_close(result.unwrap(), torch.tensor(expected, dtype=torch.float64), call=result,
                 hint="(with V = 3 there are 2 (V - 1) = 4 pairs: each teacher view with both student views that "
                 "are not its own crop, the local one included; average over those 4)")


@check("loss.large_outputs", "Outputs of magnitude 500 (teacher logits 1.25e4) give a finite, exact loss; K = 1 "
       "gives 0", clauses=["loss.stable"])
def loss_large_outputs(sub, ref):
    # Student logits of 5e3 and teacher logits of 1.25e4: every exp overflows, softmax probabilities underflow to
    # exactly 0, and log(softmax) is -inf; a log-softmax stays exact.
    calls = []
    for dtype in (torch.float32, torch.float64):
        student, teacher, center = _case(40, 3, 3, 4, dtype, scale=1.0)
        student = [(s.double() * 500 / s.double().abs().max()).to(dtype) for s in student]
        teacher = [(t.double() * 500 / t.double().abs().max()).to(dtype) for t in teacher]
        calls.append(((student, teacher, torch.zeros(4, dtype=dtype)), {}))
    one = _case(41, 3, 4, 1)
    calls.append((one, {}))
    results = sub.dino_loss.map(calls)
    for result, (args, _) in zip(results, calls, strict=True):
        _expect_loss(result, ref, *args)


# ------------------------------------------------------------------------------------------------ center


@check("center.hand_example", "Hand example: 0.9 [1, 0] + 0.1 [1, 3] = [1, 0.3]", clauses=["center.update"])
def center_hand_example(sub, ref):
    center = torch.tensor([1.0, 0.0], dtype=torch.float64)
    teacher = [torch.tensor([[2.0, 2.0]], dtype=torch.float64), torch.tensor([[0.0, 4.0]], dtype=torch.float64)]
    result = sub.update_center.call(center, teacher, 0.9)
    got = result.unwrap()
    expect_tensor(got, shape=(2,), dtype=torch.float64, call=result)
    expect_close(got, torch.tensor([1.0, 0.3], dtype=torch.float64), call=result,
                 hint="(the batch mean over both teacher views is [1, 3]; the momentum 0.9 weighs the OLD centre)")


# ---------------------------------------------------------------------------------------------- gradients


def _reference_student_grads(ref, student, teacher, center):
    leaves = [s.detach().double().requires_grad_() for s in student]
    ref.dino_loss(leaves, [t.double() for t in teacher], center.double()).backward()
    return [leaf.grad for leaf in leaves]


@check("gradients.student_views", "Every student view is connected to the loss, and the derivative of your "
       "function equals the formula's", clauses=["gradients.student"])
def gradients_student_views(sub, ref):
    student, teacher, center = _case(70, 3, 1, 3)  # 9 elements, 18 calls in one round trip
    expected = _reference_student_grads(ref, student, teacher, center)
    # connected: with only view j requiring grad, the loss must require grad, and backward() through your graph
    # must give view j the formula's gradient (a loss rebuilt as a new leaf requires grad but trains nothing)
    connected = sub.dino_loss.map([(([s.clone().requires_grad_(i == j) for i, s in enumerate(student)], teacher,
                                     center), {}) for j in range(len(student))], grads=("student_outputs",))
    for j, result in enumerate(connected):
        got = expect_tensor(result.unwrap(), shape=(), call=result)
        expect(got.requires_grad, f"{result.call} with only student_outputs[{j}] requiring grad returned a loss that "
               f"does not require grad: the student is trained through every view, so keep student_outputs[{j}] "
               f"in the graph (no .detach(), no torch.no_grad(), no .item())")
        views = result.grads.get("student_outputs")
        grad = views[j] if isinstance(views, list) and j < len(views) else None
        if grad is None:
            fail(f"after backward() on {result.call}, with only student_outputs[{j}] requiring grad, "
                 f"student_outputs[{j}].grad is None: the loss requires grad but is not computed from the view "
                 f"through autograd (was it rebuilt as a new tensor from a Python number, or detached and then "
                 f"set to require grad?)" + (f" ({result.backward_error})" if result.backward_error else ""))
        expect_close(grad, expected[j], what=f"student_outputs[{j}].grad after backward()", call=result.call,
                     rtol=1e-6, atol=1e-9, hint="the derivative with respect to a student logit is (Q - P) / tau_s "
                     "averaged over the pairs that use that view")
    # derivative: central differences of your function, element by element of every view (step 1e-6, float64)
    eps, calls, where = 1e-6, [], []
    for j, view in enumerate(student):
        for flat in range(view.numel()):
            for sign in (1.0, -1.0):
                shifted = [s.clone() for s in student]
                shifted[j].view(-1)[flat] += sign * eps
                calls.append(((shifted, teacher, center), {}))
            where.append((j, flat))
    values = [float(expect_tensor(r.unwrap(), shape=(), call=r)) for r in sub.dino_loss.map(calls)]
    for index, (j, flat) in enumerate(where):
        numeric = (values[2 * index] - values[2 * index + 1]) / (2 * eps)
        exact = float(expected[j].view(-1)[flat])
        if not math.isclose(numeric, exact, rel_tol=1e-5, abs_tol=1e-7):
            fail(f"d loss / d student_outputs[{j}] at flat index {flat}, by central differences of your dino_loss "
                 f"on {connected[0].call}: expected {exact:.8g}, got {numeric:.8g}; the derivative with respect to "
                 f"a student logit is (Q - P) / tau_s averaged over the pairs that use that view")


@check("gradients.teacher_detached", "With only the teacher views and the centre requiring grad, the loss does not",
       clauses=["gradients.detached"])
def gradients_teacher_detached(sub, ref):
    student, teacher, center = _case(80, 3, 2, 3)
    only_teacher = sub.dino_loss.call(student, [t.clone().requires_grad_() for t in teacher],
                                      center.clone().requires_grad_())
    got = expect_tensor(only_teacher.unwrap(), shape=(), call=only_teacher)
    expect(not got.requires_grad, f"{only_teacher.call}, with only the teacher views and the centre requiring grad, "
           f"returned a loss that requires grad: the teacher's softmax is a target, so compute it from "
           f"teacher_outputs[i].detach() and center.detach()")


# ----------------------------------------------------------------------------------------------- contract


@legal_inputs("update_center")
def _teacher_views_of_one_shape(args, sizes):
    """The two teacher views are crops of one batch, [N, K] each with one N. update_center's contract names N in
    the views only, so the battery draws it anew for each view: the second view takes the first one's rows."""
    first, second = args["teacher_outputs"]
    rows = second.repeat(first.shape[0] // second.shape[0] + 1, 1)[: first.shape[0]]  # (N, K), second's values
    args["teacher_outputs"] = [first, rows.clone()]
    return args


@check("center.views_of_one_shape", "Teacher views of different shapes raise ValueError", clauses=["center.views"])
def center_views_of_one_shape(sub, ref):
    _, teacher, center = _case(93, 2, 3, 4)
    expect_rejected("ValueError", sub.update_center, [
        ((center, [teacher[0], teacher[1][:2]]), {}, "the second teacher view has 2 rows, the first 3"),
        ((center, [teacher[0][:1], teacher[1]]), {}, "the first teacher view has 1 row, the second 3"),
    ])


# --------------------------------------------------------------------------------------------- experiment

TOY_STEPS, TOY_N, TOY_K, TOY_VIEWS, TOY_LR = 15, 32, 4, 4, 5.0


def _diversity(teacher_logits, center):
    """Entropy (nats) of the batch's mean teacher distribution: ln K when images use every output, 0 when all
    images put their mass on one output (collapse)."""
    mean = torch.softmax((teacher_logits - center) / 0.04, dim=-1).mean(dim=0)
    return float(-(mean * mean.clamp_min(1e-300).log()).sum())


@check("experiment.collapse", "Experiment: a toy DINO run with and without centring, through your loss and centre")
def experiment_collapse(sub, ref, ctx):
    # 32 "images" are free logit vectors over K = 4 outputs, all biased towards output 0; the student's crops are
    # the logits plus small noise, the teacher is an exponential moving average of the student (momentum 0.9).
    # The values come from your dino_loss and the centre from your update_center; the student steps along the
    # reference's gradient, because the grader cannot return gradients of tensors inside a list of views.
    generator = torch.Generator().manual_seed(100)
    initial = 0.3 * torch.randn(TOY_N, TOY_K, generator=generator, dtype=torch.float64)
    initial[:, 0] += 1.0  # a common preference for output 0, which sharpening alone locks in
    runs = {centred: {"logits": initial.clone(), "teacher": initial.clone(), "center": torch.zeros(TOY_K).double(),
                      "loss": [], "diversity": []} for centred in (True, False)}
    noise_generator = torch.Generator().manual_seed(101)
    loss_calls = {True: [], False: []}  # the runs' dynamics need only your centre, so the losses go in one batch
    for _ in range(TOY_STEPS):
        noise = [0.05 * torch.randn(TOY_N, TOY_K, generator=noise_generator, dtype=torch.float64)
                 for _ in range(TOY_VIEWS)]
        for centred, run in runs.items():
            center = run["center"] if centred else torch.zeros(TOY_K).double()
            student = [run["logits"] + n for n in noise]
            run["views"] = (student, [run["teacher"] + noise[0], run["teacher"] + noise[1]])
            loss_calls[centred].append(((student, run["views"][1], center), {}))
            run["diversity"].append(_diversity(run["teacher"], center))
        centred_run = runs[True]
        update = sub.update_center.call(centred_run["center"], centred_run["views"][1], 0.9)
        new_center = expect_tensor(update.unwrap(), shape=(TOY_K,), call=update).double()
        for centred, run in runs.items():
            student, teacher = run["views"]
            center = run["center"] if centred else torch.zeros(TOY_K).double()
            run["logits"] = run["logits"] - TOY_LR * sum(_reference_student_grads(ref, student, teacher, center))
            run["teacher"] = 0.9 * run["teacher"] + 0.1 * run["logits"]
        centred_run["center"] = new_center
    results = sub.dino_loss.map(loss_calls[True] + loss_calls[False])
    losses = [float(expect_tensor(result.unwrap(), shape=(), call=result)) for result in results]
    runs[True]["loss"], runs[False]["loss"] = losses[:TOY_STEPS], losses[TOY_STEPS:]
    ctx.record_experiment(steps=list(range(TOY_STEPS)), series={
        "diversity_with_centring": runs[True]["diversity"],
        "diversity_without_centring": runs[False]["diversity"],
        "loss_with_centring": runs[True]["loss"],
        "loss_without_centring": runs[False]["loss"],
    })
