"""Training experiments that run in the worker in one request (PPO, REINFORCE, BYOL, SimSiam, the reward model;
docs/authoring.md, a run whose calls feed each other), graded through the sandbox. A run is accepted only when
the judge's replay of every step's calls, from its own states and one request per function, answers it bit for bit;
anything else is charted a step a request, as before, and the chart is the same. GRPO and DPO train a step a
request: their replay cost more than the round trips it saved."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

from grader.judge import grade
from grader.pool import WorkerPool
from grader.problems import Problem, load_problem
from grader.report import Report

INSIDE_THE_RUN = "__import__('sys')._getframe(1).f_globals.get('__name__') == 'helpers'"  # the helper's call


@dataclass(frozen=True)
class Experiment:
    slug: str
    check: str
    steps: list[int]  # the chart's x values
    accepted: list[int]  # calls in each request of an accepted run: the worker's run, then each function's replay
    stepped: list[int]  # calls in each request of the step-a-request run that follows a refused one
    returned: str  # the line of the reference that returns what the run's answers are made of
    early_calls: int  # calls of that function the worker's run makes
    # (a line rewritten to return another shape, the check's words for it); None: no such check
    wrong_shape: tuple[str, str] | None
    after: tuple[int, ...] = ()  # calls in each request the check makes once the training is done (measurements)

    @property
    def reference(self) -> str:
        return load_problem(self.slug).folder.joinpath("reference.py").read_text()

    def problem(self) -> Problem:
        problem = load_problem(self.slug)
        return dataclasses.replace(problem, checks=tuple(c for c in problem.checks if c.id == self.check))

    def rewritten(self, lines: str) -> str:
        assert self.returned in self.reference, self.returned
        return self.reference.replace(self.returned, lines, 1)

    def off_in_the_run(self) -> str:
        """The same functions, but the first answers (the worker's own run) a hair off: the replay disagrees with
        the run, and the check charts the training a step a request with the exact answers."""
        value = self.returned.strip().removeprefix("return ").split("  #")[0]
        return self.rewritten(f"    CALLS.append(1)\n    scale = 1.0 + 1e-9 if len(CALLS) <= {self.early_calls} else "
                              f"1.0\n    return ({value}) * scale\n") + "\nCALLS = []\n"

    def right_only_inside_the_run(self) -> str:
        """Right when the worker's run calls it, its gradient doubled (the same value) when the judge does."""
        value = self.returned.strip().removeprefix("return ").split("  #")[0]
        return self.rewritten(f"    answer = {value}\n    if {INSIDE_THE_RUN}:\n        return answer\n"
                              "    return 2 * answer - answer.detach()\n")


EXPERIMENTS = [
    Experiment("ppo_clip", "experiment.bandit", list(range(1, 13)), accepted=[1, 96], stepped=[2] * 48,
               returned=("    return _masked_mean(_surrogate_terms(logp_new, logp_old, advantages, clip_eps, mask), "
                         "mask)\n"),
               early_calls=96, wrong_shape=None),
    Experiment("reinforce", "experiment.bandit", list(range(25)), accepted=[1, 100, 25], stepped=[4, 1] * 25,
               returned=("    return -(log_probs * advantage).sum() / max(log_probs.numel(), 1)"
                         "  # an empty batch gives 0\n"),
               early_calls=100, wrong_shape=None),
    Experiment("byol", "experiment.toy_run", list(range(1, 25)), accepted=[1, 96, 48], stepped=[4, 2] * 24,
               returned="    return _per_example(p, z).mean()  # mean over the batch\n", early_calls=96,
               wrong_shape=None),
    Experiment("simsiam", "experiment.stop_gradient", list(range(1, 25)), accepted=[1, 72], stepped=[3] * 24,
               returned="    return _negative_cosine(p1, z2) / 2 + _negative_cosine(p2, z1) / 2\n", early_calls=72,
               wrong_shape=None),
    Experiment("reward_model", "experiment.training", list(range(16)), accepted=[1, 16], stepped=[1] * 16,
               returned="    return _mean(_pair_losses(_logit(r_chosen, r_rejected, margin), label))\n", early_calls=16,
               wrong_shape=None, after=(33, 1)),
]
IDS = [experiment.slug for experiment in EXPERIMENTS]
STEPPED = [  # accepted: none, the training is never run in the worker
    Experiment("grpo", "experiment.training", list(range(1, 21)), accepted=[], stepped=[2] * 60,
               returned="    return -_per_sequence_mean(objective, mask)\n", early_calls=0, wrong_shape=(
                   "    return ((grouped - mean) / (std + eps)).reshape(-1)\n", "returned another shape")),
    Experiment("dpo", "experiment.training", list(range(21)), accepted=[], stepped=[4, 2] * 21,
               returned="    return _masked_sum(token_logps, mask)  # [B]\n", early_calls=0, wrong_shape=(
                   "    return _masked_sum(token_logps, mask)  # [B]\n", "returned another shape")),
]


def series_of(report: Report, experiment: Experiment) -> dict[str, list[float | None]]:
    (result,) = report.checks
    assert result.status == "passed", result.message
    assert report.experiment is not None
    assert report.experiment.steps == experiment.steps
    return report.experiment.series


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=IDS)
def test_the_reference_trains_in_one_request_and_is_replayed_one_request_a_function(
        experiment: Experiment, sandbox_pool: WorkerPool, request_sizes: list[int]) -> None:
    series_of(grade(experiment.problem(), experiment.reference, pool=sandbox_pool), experiment)
    assert request_sizes == experiment.accepted + list(experiment.after)


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=IDS)
def test_a_run_the_replay_disagrees_with_is_charted_a_step_a_request(
        experiment: Experiment, sandbox_pool: WorkerPool, request_sizes: list[int]) -> None:
    series_of(grade(experiment.problem(), experiment.off_in_the_run(), pool=sandbox_pool), experiment)
    assert request_sizes == experiment.accepted + experiment.stepped + list(experiment.after)


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=IDS)
def test_the_chart_of_the_one_request_run_is_the_step_a_request_chart(
        experiment: Experiment, sandbox_pool: WorkerPool) -> None:
    accepted = series_of(grade(experiment.problem(), experiment.reference, pool=sandbox_pool), experiment)
    stepped = series_of(grade(experiment.problem(), experiment.off_in_the_run(), pool=sandbox_pool), experiment)
    assert accepted == stepped


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=IDS)
def test_a_function_that_is_right_only_inside_the_run_is_charted_by_its_own_calls(
        experiment: Experiment, sandbox_pool: WorkerPool, request_sizes: list[int]) -> None:
    """The run the worker returns is the reference's, but the judge's replay of its steps gets the doubled
    gradients: the run is refused, and the chart is the one the function's own calls draw."""
    charted = series_of(grade(experiment.problem(), experiment.right_only_inside_the_run(), pool=sandbox_pool),
                        experiment)
    assert request_sizes == experiment.accepted + experiment.stepped + list(experiment.after)
    assert charted != series_of(grade(experiment.problem(), experiment.reference, pool=sandbox_pool), experiment)


@pytest.mark.parametrize("experiment", STEPPED, ids=[experiment.slug for experiment in STEPPED])
def test_a_training_the_worker_does_not_run_is_charted_a_step_a_request(
        experiment: Experiment, sandbox_pool: WorkerPool, request_sizes: list[int]) -> None:
    series_of(grade(experiment.problem(), experiment.reference, pool=sandbox_pool), experiment)
    assert request_sizes == experiment.stepped + list(experiment.after)


SHAPED = [experiment for experiment in EXPERIMENTS + STEPPED if experiment.wrong_shape is not None]


@pytest.mark.parametrize("experiment", SHAPED, ids=[experiment.slug for experiment in SHAPED])
def test_an_answer_of_another_shape_fails_the_check_in_its_own_words(
        experiment: Experiment, sandbox_pool: WorkerPool) -> None:
    assert experiment.wrong_shape is not None
    line, words = experiment.wrong_shape
    value = line.strip().removeprefix("return ").split("  #")[0]
    report = grade(experiment.problem(), experiment.reference.replace(line, f"    return ({value}).unsqueeze(1)\n", 1),
                   pool=sandbox_pool)
    (result,) = report.checks
    assert result.status != "passed"
    assert words in (result.message or "")
    assert report.experiment is None


def test_a_function_that_fails_in_the_run_fails_the_check_in_its_own_words(sandbox_pool: WorkerPool) -> None:
    ppo = EXPERIMENTS[0]
    broken = ppo.reference.replace("    check_surrogate_inputs(logp_new, logp_old, advantages, clip_eps, mask)\n",
                                   "    check_surrogate_inputs(logp_new, logp_old, advantages, clip_eps, mask)\n"
                                   "    if clip_eps > 1:\n        raise RuntimeError('no large clip_eps here')\n", 1)
    report = grade(ppo.problem(), broken, pool=sandbox_pool)
    (result,) = report.checks
    assert result.status != "passed"
    assert "no large clip_eps here" in (result.message or "")
    assert report.experiment is None


# AdamW's descent returns a tuple of states, so it is tested here rather than through the table's rewrites of a
# returned value.
ADAMW = Experiment("adamw", "experiment.ill_conditioned", list(range(21)), accepted=[1, 20], stepped=[1] * 20,
                   returned="    return new_param, new_exp_avg, new_exp_avg_sq\n", early_calls=20, wrong_shape=None)
CALLED_BY_THE_RUN = "__import__('sys')._getframe(2).f_globals.get('__name__') == 'helpers'"  # through adamw_step


def test_adamws_descent_runs_in_one_request_and_is_replayed_in_one_more(
        sandbox_pool: WorkerPool, request_sizes: list[int]) -> None:
    series_of(grade(ADAMW.problem(), ADAMW.reference, pool=sandbox_pool), ADAMW)
    assert request_sizes == ADAMW.accepted


def test_an_adamw_step_right_only_inside_the_run_is_charted_by_its_own_calls(
        sandbox_pool: WorkerPool, request_sizes: list[int]) -> None:
    halved = ADAMW.rewritten(f"    if {CALLED_BY_THE_RUN}:\n        return new_param, new_exp_avg, new_exp_avg_sq\n"
                             "    return decayed - 0.5 * lr * m_hat / (v_hat.sqrt() + eps), new_exp_avg, "
                             "new_exp_avg_sq\n")
    charted = series_of(grade(ADAMW.problem(), halved, pool=sandbox_pool), ADAMW)
    assert request_sizes == ADAMW.accepted + ADAMW.stepped
    assert charted != series_of(grade(ADAMW.problem(), ADAMW.reference, pool=sandbox_pool), ADAMW)
