"""Fast in-process tests of the MoCo reference and of the experiment's independent trajectory."""

import importlib.util
import math
from pathlib import Path
from types import ModuleType

import pytest
import torch

from grader.helpers_import import importable_as_helpers
from grader.problems import load_problem

FOLDER = Path(__file__).resolve().parents[2] / "problems" / "moco"


def load(name: str, module_name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, FOLDER / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("moco").reference  # it imports helpers.py: load_problem makes that work


@pytest.fixture(scope="module")
def checks() -> ModuleType:
    with importable_as_helpers(load_problem("moco").helpers_module):  # the experiment's glue is in helpers.py
        return load("checks.py", "moco_checks_under_test")


def hand_inputs(dtype: torch.dtype = torch.float64) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    query = torch.tensor([[1.0, 0.0]], dtype=dtype)
    return query, query.clone(), torch.tensor([[-1.0, 0.0], [0.0, 1.0]], dtype=dtype)


# --------------------------------------------------------------------------------------------- moco_loss


@pytest.mark.parametrize("temperature", [1, 2, 0.5, 0.2, 0.07, 0.01])
def test_hand_example(ref: ModuleType, temperature: float) -> None:
    loss = ref.moco_loss(*hand_inputs(), temperature)
    expected = math.log(1 + math.exp(-2 / temperature) + math.exp(-1 / temperature))
    assert loss.shape == () and loss.dtype == torch.float64
    assert loss.item() == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("size", "temperature", "dtype"),
    [
        pytest.param(1, 0.5, torch.float64, id="K=1"),
        pytest.param(5, 0.07, torch.float32, id="K=5-float32"),
        pytest.param(64, 3, torch.float64, id="K=64-int-T"),
    ],
)
def test_identical_representations_give_log_k_plus_one(
    ref: ModuleType, size: int, temperature: float, dtype: torch.dtype
) -> None:
    direction = torch.tensor([0.6, -0.8, 0.0], dtype=dtype)
    query = direction * torch.tensor([[1.0], [4.0]], dtype=dtype)
    queue = direction * torch.linspace(0.1, 2.0, size, dtype=dtype).unsqueeze(1)
    loss = ref.moco_loss(query, query * 3, queue, temperature)
    assert loss.dtype == dtype
    assert loss.item() == pytest.approx(math.log(size + 1), rel=1e-5)


def test_gradient_reaches_query_only(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(0)
    query, key, queue = (
        torch.randn(*shape, generator=generator, dtype=torch.float64, requires_grad=True)
        for shape in ((3, 4), (3, 4), (5, 4))
    )
    ref.moco_loss(query, key, queue, 0.3).backward()
    assert query.grad is not None and key.grad is None and queue.grad is None
    numeric = torch.zeros_like(query)
    for index in range(query.numel()):  # central differences through the normalisation
        step = torch.zeros_like(query).view(-1).index_fill(0, torch.tensor(index), 1e-6).view_as(query)
        plus = ref.moco_loss(query + step, key, queue, 0.3)
        minus = ref.moco_loss(query - step, key, queue, 0.3)
        numeric.view(-1)[index] = (plus - minus).item() / 2e-6
    torch.testing.assert_close(query.grad, numeric, rtol=1e-6, atol=1e-8)


def test_zero_rows_and_low_temperature_stay_finite(ref: ModuleType) -> None:
    query = torch.tensor([[0.0, 0.0], [1.0, 0.0]])
    key = torch.tensor([[1.0, 0.0], [0.0, 0.0]])
    queue = torch.tensor([[0.0, 0.0], [0.8, 0.6]])
    for temperature in (1.0, 1e-3, 1e-4):
        assert torch.isfinite(ref.moco_loss(query, key, queue, temperature))


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        pytest.param({"temperature": True}, TypeError, id="bool-T"),
        pytest.param({"temperature": torch.tensor(0.5)}, TypeError, id="tensor-T"),
        pytest.param({"temperature": 0}, ValueError, id="zero-T"),
        pytest.param({"temperature": math.nan}, ValueError, id="nan-T"),
        pytest.param({"query": torch.zeros(0, 2)}, ValueError, id="B=0"),
        pytest.param({"queue": torch.ones(2, 2, dtype=torch.float64)}, TypeError, id="mixed-dtype"),
        pytest.param({"key": torch.tensor([[math.inf, 0.0]])}, ValueError, id="inf-key"),
    ],
)
def test_loss_rejects_contract_violations(
    ref: ModuleType, arguments: dict[str, object], error: type[Exception]
) -> None:
    query, key, queue = hand_inputs(torch.float32)
    values = {"query": query, "key": key, "queue": queue, "temperature": 0.5} | arguments
    with pytest.raises(error):
        ref.moco_loss(**values)



@pytest.mark.parametrize(
    ("scale", "dtype"),
    [
        pytest.param(3e38, torch.float32, id="float32-near-max"),
        pytest.param(1e19, torch.float32, id="float32-squares-overflow"),
        pytest.param(1e300, torch.float64, id="float64-near-max"),
    ],
)
def test_rows_with_huge_entries_are_normalised_exactly(ref: ModuleType, scale: float, dtype: torch.dtype) -> None:
    """A row's norm may not be representable even though its entries are: normalising must not overflow."""
    generator = torch.Generator().manual_seed(3)
    query, key, queue = (torch.rand(*shape, generator=generator, dtype=torch.float64) - 0.5
                         for shape in ((2, 3), (2, 3), (4, 3)))
    exact = ref.moco_loss(query, key, queue, 0.5)
    huge = (query * scale).to(dtype).requires_grad_(True)
    loss = ref.moco_loss(huge, (key * scale).to(dtype), (queue * scale).to(dtype), 0.5)
    assert loss.dtype == dtype
    assert loss.item() == pytest.approx(exact.item(), rel=1e-5)
    loss.backward()
    assert huge.grad is not None
    assert torch.isfinite(huge.grad).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_query_gradient_at_a_zero_row_is_the_gradient_of_x_over_the_floor(
    ref: ModuleType, dtype: torch.dtype
) -> None:
    query = torch.zeros(1, 3, dtype=dtype, requires_grad=True)
    key, queue = torch.tensor([[1.0, 0.0, 0.0]], dtype=dtype), torch.tensor([[0.0, 1.0, 0.0]], dtype=dtype)
    ref.moco_loss(query, key, queue, 0.5).backward()
    # At q = 0 the row is q / 1e-12, the logits q.k / (1e-12 T): dL/dq = (p - onehot) . [k; n] / (1e-12 T),
    # with p = (1/2, 1/2) at equal logits.
    expected = torch.tensor([[-0.5, 0.5, 0.0]], dtype=dtype) / (1e-12 * 0.5)
    torch.testing.assert_close(query.grad, expected)


# --------------------------------------------------------------------------------------- momentum_update


@pytest.mark.parametrize("momentum", [0.0, 0, 0.2, 0.999, 1.0, 1])
def test_momentum_formula_and_endpoints(ref: ModuleType, momentum: float) -> None:
    query = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))
    key = torch.nn.Parameter(torch.tensor([0.3, 4.0, -2.0]))
    new = ref.momentum_update(query, key, momentum)
    assert not new.requires_grad and new.dtype == torch.float32
    inputs = {query.untyped_storage().data_ptr(), key.untyped_storage().data_ptr()}
    assert new.untyped_storage().data_ptr() not in inputs
    torch.testing.assert_close(new, (momentum * key + (1 - momentum) * query).detach())
    if momentum == 0:
        assert torch.equal(new, query.detach())
    if momentum == 1:
        assert torch.equal(new, key.detach())


def test_momentum_worked_example(ref: ModuleType) -> None:
    theta_q, theta_k = torch.tensor(0.50, dtype=torch.float64), torch.tensor(0.30, dtype=torch.float64)
    new = ref.momentum_update(theta_q, theta_k)
    assert new.shape == () and new.item() == pytest.approx(0.3002, abs=1e-12)


@pytest.mark.parametrize(
    ("query", "key", "momentum", "error"),
    [
        pytest.param(torch.ones(3), torch.ones(2, 3), 0.5, ValueError, id="broadcastable-shapes"),
        pytest.param(torch.ones(2), torch.ones(2), True, TypeError, id="bool-m"),
        pytest.param(torch.ones(2), torch.ones(2), 1.5, ValueError, id="m>1"),
        pytest.param(torch.ones(2), torch.ones(2).half(), 0.5, TypeError, id="float16"),
    ],
)
def test_momentum_rejects_contract_violations(
    ref: ModuleType, query: torch.Tensor, key: torch.Tensor, momentum: float, error: type[Exception]
) -> None:
    with pytest.raises(error):
        ref.momentum_update(query, key, momentum)



@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("momentum", [0, 1])
def test_momentum_endpoints_are_exact_where_a_difference_form_rounds(
    ref: ModuleType, dtype: torch.dtype, momentum: int
) -> None:
    generator = torch.Generator().manual_seed(5)
    query, key = (torch.randn(50, generator=generator, dtype=dtype) for _ in range(2))
    new = ref.momentum_update(query, key, momentum)
    assert torch.equal(new, query if momentum == 0 else key)
    difference_form = key + (1 - momentum) * (query - key)
    if momentum == 0:
        assert not torch.equal(difference_form, query)  # why the checks compare the endpoints exactly


# ------------------------------------------------------------------------------------------------ enqueue


@pytest.mark.parametrize(
    ("size", "batch", "pointer"),
    [
        pytest.param(5, 0, 3, id="empty"),
        pytest.param(5, 2, 4, id="wrap-inside-batch"),
        pytest.param(4, 4, 1, id="B=K"),
        pytest.param(4, 6, 1, id="one-wrap"),
        pytest.param(3, 10, 2, id="several-wraps"),
        pytest.param(1, 3, 0, id="K=1"),
    ],
)
def test_enqueue_keeps_the_last_k_sequential_writes(ref: ModuleType, size: int, batch: int, pointer: int) -> None:
    queue = torch.full((size, 2), 7.0)  # not unit rows: untouched rows must stay exactly 7
    keys = torch.tensor([[j + 1.0, (-1.0) ** j] for j in range(batch)]).reshape(batch, 2)  # distinct rows
    new_queue, new_pointer = ref.enqueue(queue, keys, pointer)
    expected, slot = queue.clone(), pointer
    for j in range(batch):  # the definition: one write at a time
        expected[slot] = keys[j] / keys[j].norm()
        slot = (slot + 1) % size
    assert torch.equal(new_queue, expected)
    assert type(new_pointer) is int and new_pointer == (pointer + batch) % size
    assert new_queue.untyped_storage().data_ptr() != queue.untyped_storage().data_ptr()
    assert torch.equal(queue, torch.full((size, 2), 7.0))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_enqueue_preserves_dtype_and_keeps_zero_rows_zero(ref: ModuleType, dtype: torch.dtype) -> None:
    keys = torch.tensor([[0.0, 0.0], [3.0, 4.0]], dtype=dtype, requires_grad=True)
    new_queue, _ = ref.enqueue(torch.ones(3, 2, dtype=dtype), keys, 2)
    assert new_queue.dtype == dtype and not new_queue.requires_grad
    assert torch.equal(new_queue[2], torch.zeros(2, dtype=dtype))
    torch.testing.assert_close(new_queue[0].float(), torch.tensor([0.6, 0.8]), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize(
    ("pointer", "error"),
    [
        pytest.param(True, TypeError, id="bool"),
        pytest.param(1.0, TypeError, id="float"),
        pytest.param(torch.tensor(1), TypeError, id="tensor"),
        pytest.param(-1, ValueError, id="negative"),
        pytest.param(3, ValueError, id="K"),
    ],
)
def test_enqueue_rejects_bad_pointers(ref: ModuleType, pointer: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        ref.enqueue(torch.ones(3, 2), torch.ones(1, 2), pointer)


# --------------------------------------------------------------------------------------------- experiment


def test_independent_trajectory_matches_an_autograd_run_of_the_reference(checks: ModuleType, ref: ModuleType) -> None:
    """The plain-Python trajectory the experiment check compares against agrees with torch autograd, from the
    initial state (step 0) to the state after step 12."""
    query_views = torch.tensor(checks.EXPERIMENT_QUERY_VIEWS, dtype=torch.float64)
    key_views = torch.tensor(checks.EXPERIMENT_KEY_VIEWS, dtype=torch.float64)
    query_weights = torch.tensor(checks.EXPERIMENT_ENCODER, dtype=torch.float64)
    key_weights = query_weights.clone()
    queue, pointer = torch.tensor(checks.EXPERIMENT_DICTIONARY, dtype=torch.float64), 0
    trajectory = checks.independent_trajectory()
    assert len(trajectory) == 13
    for step, state in enumerate(trajectory, start=1):
        states = (("query encoder", query_weights), ("key encoder", key_weights), ("dictionary", queue))
        for name, value in states:
            expected = torch.tensor(state[name], dtype=torch.float64)
            torch.testing.assert_close(value, expected, rtol=1e-8, atol=1e-9)
        assert pointer == state["pointer"]
        rows = list(checks.experiment_batch(step))
        weights = query_weights.clone().requires_grad_(True)
        keys = key_views[rows] @ key_weights
        loss = ref.moco_loss(query_views[rows] @ weights, keys, queue, checks.EXPERIMENT_TEMPERATURE)
        assert loss.item() == pytest.approx(state["loss"], rel=1e-9)  # the loss this state gives its next batch
        loss.backward()
        query_weights = (weights - checks.EXPERIMENT_LR * weights.grad).detach()
        key_weights = ref.momentum_update(query_weights, key_weights, checks.EXPERIMENT_MOMENTUM)
        queue, pointer = ref.enqueue(queue, keys, pointer)


def test_the_trajectory_starts_from_the_given_initial_state(checks: ModuleType) -> None:
    initial = checks.independent_trajectory()[0]
    assert initial["query encoder"] == initial["key encoder"] == checks.EXPERIMENT_ENCODER
    assert initial["dictionary"] == checks.EXPERIMENT_DICTIONARY
    assert initial["pointer"] == 0


@pytest.mark.parametrize(
    ("dtype", "row", "expected"),
    [
        pytest.param(torch.float16, [0.0, 0.0], [0.0, 0.0], id="float16-zero"),
        pytest.param(torch.float16, [1e-4, 2e-4], [0.4472, 0.8944], id="float16-squares-underflow"),
        pytest.param(torch.float16, [600.0, -800.0], [0.6, -0.8], id="float16-squares-overflow"),
        pytest.param(torch.bfloat16, [0.0, 0.0], [0.0, 0.0], id="bfloat16-zero"),
        pytest.param(torch.bfloat16, [3e-13, 4e-13], [0.3, 0.4], id="bfloat16-below-the-floor"),
        pytest.param(torch.bfloat16, [3e-20, 4e-20], [3e-8, 4e-8], id="bfloat16-squares-underflow-float32"),
    ],
)
def test_enqueue_normalises_half_precision_rows_in_float32(
    ref: ModuleType, dtype: torch.dtype, row: list[float], expected: list[float]
) -> None:
    """The rule of the statement: norm and division in float32, one rounding back; zero rows stay zero."""
    keys = torch.tensor([row], dtype=dtype)
    new_queue, _ = ref.enqueue(torch.ones(2, 2, dtype=dtype), keys, 1)
    assert new_queue.dtype == dtype
    assert torch.isfinite(new_queue.float()).all()
    torch.testing.assert_close(new_queue[1].float(), torch.tensor(expected), rtol=1e-2, atol=0.0)
    assert torch.equal(new_queue[0], torch.ones(2, dtype=dtype))


def test_the_natural_half_precision_floor_turns_a_zero_row_into_nan() -> None:
    """Why the rule exists: in float16 clamp_min(1e-12) clamps to 0."""
    zero = torch.zeros(1, 2, dtype=torch.float16)
    assert torch.isnan(zero / torch.linalg.vector_norm(zero, dim=1, keepdim=True).clamp_min(1e-12)).all()


@pytest.mark.parametrize(
    ("diagnosis", "says"),
    [
        pytest.param((3, "pointer", "expected 1, got 0"), "it is also the first step to depart: the pointer comes "
                     "from your enqueue.", id="same-place"),
        pytest.param((1, "key encoder", "largest difference 0.01"), "your functions first depart at step 1, in "
                     "the key encoder (largest difference 0.01): the key encoder is updated by your "
                     "momentum_update", id="earlier-elsewhere"),
        pytest.param(None, "every step matches within tolerance, so small differences add up", id="compounding"),
    ],
)
def test_a_departure_names_where_the_run_left_and_what_the_replay_found(
    checks: ModuleType, diagnosis: tuple[int, str, str] | None, says: str
) -> None:
    message = checks.departure_message(3, "pointer", "expected 1, got 0", diagnosis)
    assert message.startswith("Your own run of 12 steps leaves the independent trajectory at step 3, in the "
                              "pointer (expected 1, got 0); the charts show your run.")
    assert says in message
