"""The generic battery: checks derived from a function's declared contract, run against the reference.

For every function with a contract: `values` (distinct sizes, then each pair of sizes equal), `edges` (the
smallest sizes, scalars at the ends of their ranges, optional arguments left out), `dtypes`, `layouts`,
`autograd`, `finite_differences`, `refusals` and `same_tensor`; every call in them is also held to
grader.contract.expect.expect_legal_call (new storage, inputs unchanged, requires_grad, the result's kind).
Inputs are drawn once per process from seeded generators, and the reference's answers to them are computed once,
the first time a grading needs them (they depend only on the problem's files).
"""

from __future__ import annotations

import functools
import math
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import torch

from grader.calls import CallResult, CheckFailed
from grader.checks import (
    Check,
    central_differences,
    describe,
    expect_grad_close,
    expect_grad_none,
    fail,
)
from grader.contract.draw import (
    LAYOUT_NAMES,
    LAYOUTS,
    LegalInputs,
    allowed_float_dtypes,
    contiguous_copy,
    draw_arguments,
    edge_scalars,
    fresh,
    group_dtypes,
    in_layout,
)
from grader.contract.expect import Case, expect_legal_call, split_arguments
from grader.contract.legality import violations
from grader.contract.refusals import Refusal, refusals
from grader.contract.schema import (
    DTYPES,
    FloatArg,
    FunctionContract,
    ListArg,
    StrArg,
    TensorArg,
    TensorListArg,
    TupleArg,
)
from grader.contract.sizes import Sizes, distinct, edges, satisfied, variations
from grader.vjp import tensors_in, vjp

DEFAULT_DRAWS = 8  # draws tried for a call where a wrong default shows

GROUP = "contract"
# Elements of differentiable arguments beyond which central differences use smaller sizes: each element costs two
# calls of the learner's function (all in one round trip).
FD_MAX_ELEMENTS = 48
# Central differences with step 1e-6 in float64: truncation ~1e-12 of the third derivative, rounding ~1e-16 / 1e-6
# = 1e-10 of the values' scale; (1e-5, 1e-7) admits both with room and still tells a wrong gradient at once.
FD_TOLERANCE = (1e-5, 1e-7)


def stable_seed(*parts: str) -> int:
    """A seed from names: the same in every process (Python's hash() is salted per process)."""
    return zlib.crc32("/".join(parts).encode()) & 0x7FFFFFFF


@dataclass
class FunctionBattery:
    """The generic checks of one function."""

    slug: str
    name: str
    contract: FunctionContract
    legal: LegalInputs | None
    default_values: dict[str, Any]  # the reference's parameters that have a default, with it
    cache: dict[str, object] = field(default_factory=dict)  # what other modules draw once per process (search)
    # The reference's function, trusted (the judge's process): the call that leaves the defaults out is drawn
    # where it shows a wrong default (_defaults_cases). None: the first draw.
    reference: Callable[..., Any] | None = None

    # --------------------------------------------------------------------------------------------- inputs

    def generator(self, what: str, index: int = 0) -> torch.Generator:
        return torch.Generator().manual_seed(stable_seed(self.slug, self.name, what, str(index)))

    def draw(self, sizes: Sizes, what: str, index: int = 0, *, dtype: str | None = None,
             scalars: dict[str, Any] | None = None) -> dict[str, Any]:
        return draw_arguments(self.contract, sizes, group_dtypes(self.contract, dtype), self.generator(what, index),
                              self.legal, scalars=scalars)

    def with_grad(self, args: dict[str, Any], *, detached_too: bool = True) -> dict[str, Any]:
        """Float tensors that may carry a gradient require grad (differentiable ones, and detached ones when asked,
        which must then get none)."""
        out = dict(args)
        for name, arg in self.contract.args.items():
            spec = arg if isinstance(arg, TensorArg) else arg.item if isinstance(arg, TensorListArg) else None
            if spec is None or spec.grad_rule == "none" or (spec.grad_rule == "detached" and not detached_too):
                continue
            out[name] = _requires_grad(out[name])
        return out

    @property
    def defaults(self) -> tuple[str, ...]:
        return tuple(self.default_values)

    @functools.cached_property
    def base(self) -> Sizes:
        return distinct(self.contract)

    @functools.cached_property
    def layout_sizes(self) -> Sizes:
        """The first assignment with each variadic run at rank 2 where it allows it: leading dimensions that
        cannot be merged without a copy need two of them (a .view over them fails only then)."""
        sizes = self.base
        for name, dims in self.base.runs.items():
            ranks = self.contract.dims[name].drawn_ranks()
            if len(dims) < 2 and 2 in ranks:
                extended = sizes.with_run(sizes.label, name, (*dims, *(7, 5)[len(dims):]))
                if satisfied(self.contract, extended):
                    sizes = extended
        return sizes

    @functools.cached_property
    def values_cases(self) -> list[Case]:
        cases = []
        for index, sizes in enumerate(variations(self.contract)):
            args = self.with_grad(self.draw(sizes, "values", index))
            cases.append(Case(args, sizes.label if index else "every size distinct", sizes))
        return cases

    @functools.cached_property
    def edge_cases(self) -> list[Case]:
        cases = []
        size_edges = edges(self.contract)
        for index, sizes in enumerate(size_edges):
            cases.append(Case(self.with_grad(self.draw(sizes, "edges", index)), sizes.label, sizes))
        for name, arg in self.contract.args.items():
            if isinstance(arg, TensorArg | TensorListArg):
                continue
            for index, value in enumerate(edge_scalars(arg, self.base.dims)):
                # the other scalars at their defaults: the edge of one setting on the usual path of the others
                others = {n: v for n, v in self.default_values.items()
                          if n != name and not isinstance(self.contract.args[n], TensorArg | TensorListArg)}
                args = self.draw(self.base, f"edge-{name}", index, scalars={**others, name: value})
                if not violations(self.contract, args):
                    cases.append(Case(self.with_grad(args), f"{name} = {value!r}", self.base))
        for name, arg in self.contract.args.items():
            if isinstance(arg, TensorListArg | ListArg) and arg.tuples:  # declared legal, so tried: a tuple too
                args = self.with_grad(self.draw(self.base, f"edge-tuple-{name}"))
                args[name] = tuple(args[name])
                cases.append(Case(args, f"{name} as a tuple", self.base))
            if isinstance(arg, ListArg) and isinstance(arg.item, TupleArg) and arg.item.lists:  # items as lists
                args = self.draw(self.base, f"edge-item-lists-{name}")
                args[name] = [list(item) for item in args[name]]
                cases.append(Case(args, f"the items of {name} as lists", self.base))
        whole = self._floats_as_ints()
        if whole is not None:
            args = self.draw(self.base, "edge-ints", scalars=whole)
            if not violations(self.contract, args):
                cases.append(Case(self.with_grad(args), f"{', '.join(whole)} passed as Python ints", self.base))
        optional = [name for name, arg in self.contract.args.items() if arg.optional]
        if optional:
            absent = {name: None for name in optional}
            args = self.draw(self.base, "edge-none", scalars=absent)
            cases.append(Case(self.with_grad(args), f"{', '.join(optional)} = None", self.base))
            # An argument left out is replaced by a default the function builds itself (a zero state, a mask of
            # ones): built at an empty size it is where a wrong dtype or a shared buffer hides.
            for index, sizes in enumerate(size_edges):
                if 0 in sizes.dims.values() or any(0 in dims for dims in sizes.runs.values()):
                    args = self.draw(sizes, "edge-none", index + 1, scalars=absent)
                    cases.append(Case(self.with_grad(args), f"{sizes.label}; {', '.join(optional)} = None", sizes))
        cases += self._defaults_cases([case.args for case in cases if case.sizes is self.base])
        return cases

    def _defaults_cases(self, edges: list[dict[str, Any]]) -> list[Case]:
        """Calls that leave every defaulted argument out: a draw of their own, and for each default the reference's
        result depends on only on some inputs (min_lr, only once the warmup is over), the first of DEFAULT_DRAWS
        draws, then of the `edges` (the ends of each scalar's range), where another value of that default alone
        changes it: there a function with a wrong default fails."""
        if not self.defaults:
            return []
        drawn: dict[int, dict[str, Any]] = {}  # drawn when first tried, each once

        def candidate(index: int) -> dict[str, Any]:
            if index not in drawn:
                drawn[index] = (self.draw(self.base, "edge-defaults", index) if index < DEFAULT_DRAWS
                                else dict(edges[index - DEFAULT_DRAWS]))
            return drawn[index]

        chosen = {0}
        for name, default in self.default_values.items():
            shown = next((index for index in range(DEFAULT_DRAWS + len(edges))
                          if self._default_shows(candidate(index), name, default)), None)
            if shown is not None:
                chosen.add(shown)
        label = f"{', '.join(self.defaults)} left at " + ("its default" if len(self.defaults) == 1 else
                                                           "their defaults")
        return [Case(self.with_grad(candidate(index)), label, self.base, omit=self.defaults)
                for index in sorted(chosen)]

    def _default_shows(self, args: dict[str, Any], name: str, default: Any) -> bool:
        """Whether the reference's result on `args`, every default left out, changes when `name` alone is given
        another legal value."""
        if self.reference is None:
            return False
        left_out = self._reference_result(args, self.defaults)
        if left_out is None:
            return False
        for other in _other_values(default):
            given = {**args, name: other}
            if violations(self.contract, given):
                continue
            changed = self._reference_result(given, tuple(n for n in self.defaults if n != name))
            if changed is not None and not _same(changed[0], left_out[0]):
                return True
        return False

    def _reference_result(self, args: dict[str, Any], omit: tuple[str, ...]) -> tuple[Any] | None:
        """(the reference's result,) on a copy of `args` without those left out; None where it raises."""
        assert self.reference is not None
        positional, keywords = split_arguments(fresh(args), omit)
        try:
            with torch.no_grad():
                return (self.reference(*positional, **keywords),)
        except Exception:  # noqa: BLE001 - a value the reference refuses shows nothing
            return None

    def _floats_as_ints(self) -> dict[str, int] | None:
        """An int inside the range of every float argument that accepts ints (None if there is none): a
        function given ints must still answer in floats."""
        chosen: dict[str, int] = {}
        for name, arg in self.contract.args.items():
            if isinstance(arg, FloatArg) and arg.integers:
                low, high = arg.interval.low.number(self.base.dims), arg.interval.high.number(self.base.dims)
                candidates = [v for v in (1, 2, 0, 3, -1, 10) if arg.interval.contains(v, self.base.dims)]
                if not candidates and math.isfinite(low):
                    candidates = [v for v in (math.ceil(low), math.ceil(low) + 1) if v <= high and
                                  arg.interval.contains(v, self.base.dims)]
                if candidates:
                    chosen[name] = int(candidates[0])
        return chosen or None

    @functools.cached_property
    def dtype_cases(self) -> list[Case]:
        cases = []
        names = allowed_float_dtypes(self.contract)
        for dtype in names:
            for index, sizes in enumerate(variations(self.contract)[:2]):
                args = self.draw(sizes, f"dtype-{dtype}", index, dtype=dtype)
                cases.append(Case(self.with_grad(args) if index else args, f"{dtype}, {sizes.label}", sizes))
        for name, arg in self.contract.args.items():  # integer and boolean tensors in each dtype they allow
            if isinstance(arg, TensorArg) and not arg.is_float and len(arg.dtypes) > 1:
                for dtype in arg.dtypes:
                    args = self.draw(self.base, f"dtype-{name}-{dtype}")
                    args[name] = args[name].to(DTYPES[dtype])
                    if not violations(self.contract, args):
                        cases.append(Case(args, f"{name} as {dtype}", self.base))
        return cases

    @functools.cached_property
    def layout_cases(self) -> list[tuple[Case, Case]]:
        """(case, its contiguous twin): the same values, one argument in another layout."""
        pairs: list[tuple[Case, Case]] = []
        sizes = self.layout_sizes
        for layout in LAYOUTS:
            changed_any = False
            everything = self.draw(sizes, f"layout-all-{layout}")
            twin_all = fresh(everything)
            for name, arg in self.contract.args.items():
                if not self._views(arg):
                    continue
                args = self.draw(sizes, f"layout-{layout}", LAYOUTS.index(layout))
                moved = _in_layout(args[name], layout)
                if moved is None:
                    continue
                twin = dict(args)
                twin[name] = contiguous_copy(moved)  # the same values (an expanded input repeats its first row)
                args[name] = moved
                if violations(self.contract, twin) or not self._legal_as_is(twin):
                    continue
                label = f"{name} {LAYOUT_NAMES[layout]}"
                pairs.append((Case(args, label, sizes), Case(twin, f"{name} contiguous, for comparison", sizes)))
                moved_all = _in_layout(everything[name], layout)
                if moved_all is not None:
                    twin_all[name] = contiguous_copy(moved_all)
                    everything[name] = moved_all
                    changed_any = True
            if changed_any and not violations(self.contract, twin_all) and self._legal_as_is(twin_all):
                pairs.append((Case(everything, f"every tensor argument {layout}", sizes),
                              Case(twin_all, "the same values contiguous, for comparison", sizes)))
        return pairs

    def _views(self, arg: object) -> bool:
        if isinstance(arg, TensorArg):
            return arg.views
        if isinstance(arg, TensorListArg):
            return arg.item.views
        return False

    def _legal_as_is(self, args: dict[str, Any]) -> bool:
        """Values the @legal_inputs function would leave alone (an expanded input may break its relation)."""
        if self.legal is None:
            return True
        again = self.legal(fresh(args), dict(self.base.dims))
        return all(_same(again.get(name), value) for name, value in args.items())

    @functools.cached_property
    def grad_names(self) -> tuple[str, ...]:
        """Arguments whose gradients are asked for: every float tensor that is not `none` (lists: not supported by
        the worker's gradient facts, so not asked)."""
        return tuple(name for name, arg in self.contract.args.items()
                     if isinstance(arg, TensorArg) and arg.grad_rule != "none")

    @functools.cached_property
    def autograd_cases(self) -> list[Case]:
        if not self.grad_names:
            return []
        cases = [Case(self.with_grad(self.draw(self.base, "grad")), "every size distinct", self.base,
                      grads=self.grad_names)]
        # every edge: a path taken only at a size of 1 or 0, or at a scalar's bound, may lose the gradient there
        # (zeroed, or cut and rebuilt as a leaf) while its values stay right; the calls join the same request
        for case in self.edge_cases:
            if not case.omit and all(case.args.get(name) is not None for name in self.grad_names):
                cases.append(Case(self.with_grad(fresh(case.args)), case.label, case.sizes, grads=self.grad_names))
        if "float32" in allowed_float_dtypes(self.contract):  # gradients to float32's precision too
            args = self.draw(self.base, "grad-float32", dtype="float32")
            cases.append(Case(self.with_grad(args), "float32", self.base, grads=self.grad_names))
        # a non-contiguous gradient flowing back into the function (what a transposed consumer sends)
        case = Case(self.with_grad(self.draw(self.base, "grad-transposed")), "a transposed incoming gradient",
                    self.base, grads=self.grad_names)
        case.grad_output = "transposed"
        cases.append(case)
        return cases

    @functools.cached_property
    def no_grad_case(self) -> Case:
        """No argument requires grad: the result must not either (`requires_grad` both ways)."""
        return Case(self.draw(self.base, "no-grad"), "no argument requires grad", self.base)

    @functools.cached_property
    def finite_difference_case(self) -> Case | None:
        names = [n for n in self.grad_names
                 if isinstance(self.contract.args[n], TensorArg)
                 and self.contract.args[n].grad_rule == "differentiable"]  # type: ignore[union-attr]
        if not names or not self.contract.finite_differences:
            return None
        for sizes in (self.base, *edges(self.contract)):
            args = self.draw(sizes, "fd")
            if any(args.get(name) is None for name in names):
                continue
            count = sum(args[name].numel() for name in names)
            if 0 < count <= FD_MAX_ELEMENTS and all(args[name].numel() for name in names):
                return Case(args, sizes.label if sizes is not self.base else "every size distinct", sizes,
                            grads=tuple(names))
        return None

    @functools.cached_property
    def refusal_cases(self) -> list[Refusal]:
        return refusals(self.contract, self.draw(self.base, "refusals"), self.base,
                        lambda sizes: self.draw(sizes, "refusals-sizes"))

    @functools.cached_property
    def same_tensor_cases(self) -> list[Case]:
        if not self.contract.same_tensor:
            return []
        cases = []
        tensors = [(n, a) for n, a in self.contract.args.items() if isinstance(a, TensorArg)]
        for i, (first, a) in enumerate(tensors):
            for second, b in tensors[i + 1:]:
                if a.group != b.group or len(a.shape) != len(b.shape):
                    continue
                sizes = _unified(self.contract, self.base, a, b)
                if sizes is None:
                    continue
                args = self.with_grad(self.draw(sizes, f"same-{first}-{second}"))
                args[second] = args[first]  # requiring grad, so the promise on requires_grad holds on this path too
                if violations(self.contract, args):
                    continue
                # its gradient too: code that tells the two apart by identity (`if b is a`) and drops a term (a
                # ratio of 1 with no gradient) returns the right value and the wrong gradient
                # (not where one of them is unchecked: what reaches it is then the learner's choice)
                rules = {a.grad_rule, b.grad_rule}
                flows = "differentiable" in rules and "none" not in rules and _requires_grad_value(args[first])
                cases.append(Case(args, f"{first} and {second} are one tensor", sizes, reference_args=fresh(args),
                                  grads=(first,) if flows else (), shares=(first, second)))
        for name, arg in self.contract.args.items():
            if isinstance(arg, TensorListArg):
                args = self.with_grad(self.draw(self.base, f"same-{name}"))
                items = [item for item in args[name] if item is not None]
                if len(args[name]) >= 2 and items:
                    args[name] = [items[0], items[0], *args[name][2:]]
                    if not violations(self.contract, args):
                        cases.append(Case(args, f"one tensor twice in {name}", self.base,
                                          reference_args=fresh(args)))
        return cases

    # ----------------------------------------------------------------------------------------- the checks

    def checks(self) -> list[Check]:
        f = self.name
        prefix = f"{GROUP}.{f.lower()}"
        found = [
            self._check(f"{prefix}.values", f"{f}: legal inputs of distinct sizes, and with each pair of sizes "
                        "equal, give the reference's result", self.run_values, ["shapes", "result", "unchanged"],
                        cases=("values_cases",)),
            self._check(f"{prefix}.edges", f"{f}: the smallest sizes, the ends of each scalar's range and the "
                        "defaults", self.run_edges, ["shapes", "result", "unchanged"] + self._scalar_clause(),
                        cases=("edge_cases",)),
        ]
        if self.dtype_cases:
            found.append(self._check(f"{prefix}.dtypes", f"{f}: every allowed dtype, with the result's dtype and "
                                     "precision following the contract", self.run_dtypes, ["dtypes"]))
        if self.layout_cases:
            found.append(self._check(f"{prefix}.layouts", f"{f}: inputs in any memory layout (transposed, "
                                     "expanded, sliced, permuted) give the result of their contiguous copies",
                                     self.run_layouts, ["layouts"]))
        if self.grad_names or _may_require_grad(self.contract):
            found.append(self._check(f"{prefix}.autograd", f"{f}: gradients match the reference's, detached "
                                     "arguments get none, and the result requires grad exactly when it should",
                                     self.run_autograd, ["autograd"], cases=("autograd_cases", "no_grad_case")))
        if self.finite_difference_case is not None:
            found.append(self._check(f"{prefix}.finite_differences", f"{f}: gradients agree with central "
                                     "differences of your own function", self.run_finite_differences,
                                     ["autograd"]))
        if self.contract.validates:
            found.append(self._check(f"{prefix}.refusals", f"{f}: each argument outside the contract is refused "
                                     "with the exception the contract names", self.run_refusals, ["refusals"],
                                     cases=("refusal_cases",)))
        if self.same_tensor_cases:
            found.append(self._check(f"{prefix}.same_tensor", f"{f}: one tensor passed as two arguments gives the "
                                     "result of two copies", self.run_same_tensor, ["same_tensor"]))
        return found

    def _scalar_clause(self) -> list[str]:
        return ["scalars"] if any(not isinstance(a, TensorArg | TensorListArg | StrArg | ListArg)
                                  for a in self.contract.args.values()) else []

    def _check(self, check_id: str, title: str, run: Callable[[Any, ModuleType], None],
               clauses: list[str], *, cases: tuple[str, ...] = ()) -> Check:
        """`cases`: the cached properties holding the cases `run` builds on its first run in a process (the
        others are built with the checks): a grading host builds them ahead (grader.prepare)."""
        prefix = f"{GROUP}.{self.name.lower()}"
        return Check(id=check_id, title=title, group=GROUP, required=True, function=run, wants_context=False,
                     clauses=tuple(f"{prefix}.{clause}" for clause in clauses),
                     preparations=tuple(functools.partial(getattr, self, name) for name in cases))

    def function(self, sub: Any) -> Any:
        return getattr(sub, self.name)

    def run_cases(self, sub: Any, ref: ModuleType, cases: list[Case]) -> list[CallResult]:
        self.fill_expected(ref, cases)
        by_grads: dict[tuple[str, ...], list[int]] = {}
        for index, case in enumerate(cases):
            by_grads.setdefault(case.grads, []).append(index)
        results: list[CallResult | None] = [None] * len(cases)
        for grads, indices in by_grads.items():
            calls = [cases[i].call_arguments() for i in indices]
            outputs = [self._grad_output(cases[i]) for i in indices] if grads else None
            if outputs is not None and all(o is None for o in outputs):
                outputs = None
            for i, result in zip(indices, self.function(sub).map(calls, grads=grads, grad_outputs=outputs),
                                 strict=True):
                results[i] = result
        return [r for r in results if r is not None]

    def _grad_output(self, case: Case) -> Any:
        if case.grad_output != "transposed":
            return case.grad_output
        cotangents = []
        for t in tensors_in(case.expected):
            if t.dtype.is_floating_point:
                seeded = torch.randn(t.shape, generator=self.generator("cotangent"), dtype=torch.float64)
                dtype = _result_float_dtype(case)
                moved = _in_layout(seeded.to(dtype), "transposed")
                cotangents.append(moved if moved is not None else seeded.to(dtype))
            else:
                cotangents.append(torch.zeros(t.shape, dtype=t.dtype))
        if not cotangents:  # a result with no tensor (a Python float): nothing for a gradient to flow back into
            case.grad_output = None
            return None
        case.grad_output = tuple(cotangents) if isinstance(case.expected, tuple | list) else cotangents[0]
        return case.grad_output

    def fill_expected(self, ref: ModuleType, cases: Iterable[Case]) -> None:
        for case in cases:
            if case.expected is None:
                case.expected = self.reference_result(ref, case)

    def reference_result(self, ref: ModuleType, case: Case) -> Any:
        """The exact result: the reference on float64 copies of the arguments."""
        source = case.reference_args if case.reference_args is not None else case.args
        args, kwargs = split_arguments(fresh(source, dtype=torch.float64), case.omit)
        with torch.no_grad():
            return fresh(getattr(ref, self.name)(*args, **kwargs))

    def expect(self, ref: ModuleType, result: CallResult, case: Case) -> None:
        depends = functools.partial(self.depends, ref, case) if self.contract.detached_constants else None
        rounded = functools.partial(self.rounded_result, ref, case)
        expect_legal_call(result, case, self.contract, depends=depends, rounded=rounded)

    def rounded_result(self, ref: ModuleType, case: Case) -> Any:
        """The reference computed in the call's own dtypes, for a call not in float64: where float32 rounding
        decides a comparison (uniform >= p with a float32 draw a hair below p), its answer is as right as the
        exact one, so either is accepted."""
        if case.rounded is None:
            source = case.reference_args if case.reference_args is not None else case.args
            args, kwargs = split_arguments(fresh(source), case.omit)
            with torch.no_grad():
                case.rounded = fresh(getattr(ref, self.name)(*args, **kwargs))
        return case.rounded

    def depends(self, ref: ModuleType, case: Case) -> bool:
        """Whether the exact result changes with an argument that requires grad in this call: a nonzero gradient
        of the reference's result (with a seeded cotangent) reaches one of them."""
        names = tuple(name for name in self.grad_names if _requires_grad_value(case.args.get(name)))
        if not names:
            return False
        probe = Case(case.args, case.label, case.sizes, omit=case.omit, grads=names)
        probe.expected = case.expected
        cotangent = _seeded_like(case.expected, self.generator("depends"))
        grads = self.reference_grads(ref, probe, cotangent)
        return any(g is not None and g.numel() > 0 and bool(g.abs().max() > 0) for g in grads.values())

    def run_values(self, sub: Any, ref: ModuleType) -> None:
        self._expect_all(sub, ref, self.values_cases)

    def run_edges(self, sub: Any, ref: ModuleType) -> None:
        self._expect_all(sub, ref, self.edge_cases)

    def run_dtypes(self, sub: Any, ref: ModuleType) -> None:
        self._expect_all(sub, ref, self.dtype_cases)

    def run_same_tensor(self, sub: Any, ref: ModuleType) -> None:
        cases = self.same_tensor_cases
        results = self.run_cases(sub, ref, cases)
        for result, case in zip(results, cases, strict=True):
            self.expect(ref, result, case)
        for result, case in zip(results, cases, strict=True):
            if case.grads:
                self._expect_shared_grad(ref, result, case)

    def _expect_shared_grad(self, ref: ModuleType, result: CallResult, case: Case) -> None:
        """The one tensor's gradient: what the reference's two copies get, summed (a detached copy gets none)."""
        (name,) = case.grads
        flowing = tuple(n for n in case.shares if getattr(self.contract.args[n], "grad_rule", None) == "differentiable")
        probe = Case(case.reference_args or fresh(case.args), case.label, case.sizes, omit=case.omit, grads=flowing)
        parts = [g for g in self.reference_grads(ref, probe, result.grad_output).values() if g is not None]
        wanted = sum(parts[1:], parts[0]) if parts else torch.zeros_like(case.args[name], dtype=torch.float64)
        self._expect_grad(result, case, name, wanted, source="the reference with two copies, their gradients summed",
                          hint=f"(generic input: {case.label}; the tensor passed as {' and as '.join(case.shares)} "
                               "gets the gradient of every use, as two copies would; telling the two apart by "
                               "identity and dropping one's gradient changes it)")

    def _expect_grad(self, result: CallResult, case: Case, name: str, wanted: torch.Tensor, *, source: str,
                     hint: str, tolerance: tuple[float, float] | None = None) -> None:
        """`name`'s gradient is `wanted` (float64), to the contract's tolerance for its dtype unless given."""
        got = result.grads.get(name)
        if got is None and not bool(wanted.abs().max() > 0 if wanted.numel() else False):
            return  # no gradient reaches it on this input, and none came
        if got is None and result.backward_error:
            fail(f"{result.call} [generic input: {case.label}]: backward() failed: {result.backward_error}")
        dtype = case.args[name].dtype
        rtol, atol = tolerance or self.contract.tolerance.of(dtype)
        expect_grad_close(result, name, wanted.to(dtype), rtol=rtol, atol=atol, source=source, hint=hint)

    def _expect_all(self, sub: Any, ref: ModuleType, cases: list[Case]) -> None:
        for result, case in zip(self.run_cases(sub, ref, cases), cases, strict=True):
            self.expect(ref, result, case)

    def run_layouts(self, sub: Any, ref: ModuleType) -> None:
        flat = [case for pair in self.layout_cases for case in pair]
        results = self.run_cases(sub, ref, flat)
        for index, (case, twin) in enumerate(self.layout_cases):
            moved, contiguous = results[2 * index], results[2 * index + 1]
            self.expect(ref, contiguous, twin)
            try:
                self.expect(ref, moved, case)
            except CheckFailed as exc:
                raise CheckFailed(f"{exc}. The same values in contiguous memory give the right result, so your "
                                  f"code depends on the memory layout when {case.label}: a .view() needs "
                                  "contiguous memory (use .reshape(), or call .contiguous() first), and code that "
                                  "reads .data_ptr() or storage offsets assumes it", call=exc.call,
                                  bare=exc.bare) from None

    def run_autograd(self, sub: Any, ref: ModuleType) -> None:
        cases = self.autograd_cases
        results = self.run_cases(sub, ref, [*cases, self.no_grad_case])
        for result, case in zip(results, [*cases, self.no_grad_case], strict=True):
            self.expect(ref, result, case)
        for result, case in zip(results[:len(cases)], cases, strict=True):
            self._expect_grads(ref, result, case)

    def _expect_grads(self, ref: ModuleType, result: CallResult, case: Case, *, expected: dict[str, Any] | None = None,
                      source: str = "the reference", tolerance: tuple[float, float] | None = None) -> None:
        cotangent = case.grad_output if case.grad_output is not None else result.grad_output
        if expected is None:
            expected = self.reference_grads(ref, case, cotangent)
        for name in case.grads:
            spec = self.contract.args[name]
            assert isinstance(spec, TensorArg)
            if spec.grad_rule == "detached":
                expect_grad_none(result, name, hint=f"(the contract detaches {name}: no gradient may reach it)")
                continue
            wanted = expected.get(name)
            if wanted is None:
                wanted = torch.zeros_like(case.args[name], dtype=torch.float64)
            self._expect_grad(result, case, name, wanted, source=source, hint=f"(generic input: {case.label})",
                              tolerance=tolerance)

    def reference_grads(self, ref: ModuleType, case: Case, cotangent: Any) -> dict[str, torch.Tensor | None]:
        """Gradients of the reference's exact result (float64) with the same cotangent; computed once per input and
        cotangent where the reference's answers are cached (grader.refcache: the judge's `ref`)."""
        memo = getattr(ref, "_paperlab_memo", None)
        if memo is None:
            return self._reference_grads(ref, case, cotangent)
        inputs = (case.args, case.grads, case.omit, cotangent)
        grads: dict[str, torch.Tensor | None] = memo(f"{self.name}: gradients", inputs,
                                                     lambda: self._reference_grads(ref, case, cotangent))
        return grads

    def _reference_grads(self, ref: ModuleType, case: Case, cotangent: Any) -> dict[str, torch.Tensor | None]:
        args = fresh(case.args, dtype=torch.float64)
        leaves = {}
        for name in case.grads:
            leaves[name] = args[name].requires_grad_(True)
        positional, keywords = split_arguments(args, case.omit)
        out = getattr(ref, self.name)(*positional, **keywords)
        cotangents = list(cotangent) if isinstance(cotangent, tuple | list) else [cotangent]
        pairs = [(t, c) for t, c in zip(tensors_in(out), cotangents, strict=False)
                 if t.requires_grad and c is not None]
        if not pairs or not leaves:
            return {name: None for name in case.grads}
        grads = vjp([t for t, _ in pairs], list(leaves.values()), [c.to(t.dtype) for t, c in pairs])
        return dict(zip(leaves, grads, strict=True))

    def run_finite_differences(self, sub: Any, ref: ModuleType) -> None:
        case = self.finite_difference_case
        assert case is not None
        self.fill_expected(ref, [case])
        cotangent = _seeded_like(case.expected, self.generator("fd-cotangent"), self.contract.result)
        positional, keywords = case.call_arguments()
        # every argument's differences in one request: the same calls, in the same order, as one request each
        positions = [list(self.contract.args).index(name) for name in case.grads]
        gradients = central_differences(self.function(sub), positional, positions, kwargs=keywords,
                                        grad_output=cotangent)
        numeric: dict[str, torch.Tensor] = dict(zip(case.grads, gradients, strict=True))
        leaves = self.with_grad(fresh(case.args), detached_too=False)
        call = Case(leaves, case.label, case.sizes, grads=case.grads, grad_output=cotangent)
        call.expected = case.expected
        result = self.run_cases(sub, ref, [call])[0]
        self.expect(ref, result, call)
        self._expect_grads(ref, result, call, expected=dict(numeric), source="central differences of your function",
                           tolerance=FD_TOLERANCE)

    def run_refusals(self, sub: Any, ref: ModuleType) -> None:
        cases = self.refusal_cases
        calls = [split_arguments(case.args) for case in cases]
        for result, case in zip(self.function(sub).map(calls), cases, strict=True):
            if result.raised is None:
                fail(f"{result.call}: expected {case.exception} because {case.reason}, but it returned "
                     f"{describe(result.value)}")
            if not result.raised.is_a(case.exception):
                fail(f"{result.call}: expected {case.exception} because {case.reason}, but it raised "
                     f"{result.raised.summary()}")


def _other_values(default: Any) -> list[Any]:
    """Values to put in place of a default, to see whether a result depends on it (none for None or a str)."""
    if type(default) is bool:
        return [not default]
    if type(default) is int:
        return [default + 1, default - 1]
    if type(default) is float and math.isfinite(default):
        return [default * 0.5 if default else 0.25, default * 1.5 + 0.01, default + 1.0]
    return []


def _requires_grad(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.dtype.is_floating_point and value.device.type != "meta":
        return value.detach().requires_grad_(True) if not value.requires_grad else value
    if isinstance(value, list):
        return [_requires_grad(item) for item in value]
    return value


def _requires_grad_value(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and value.requires_grad


def _in_layout(value: Any, layout: str) -> Any:
    if isinstance(value, torch.Tensor):
        return in_layout(value.detach(), layout)
    if isinstance(value, list):
        moved = [_in_layout(item, layout) if item is not None else None for item in value]
        if all(m is None for m in moved):
            return None
        return [m if m is not None else item for m, item in zip(moved, value, strict=True)]
    return None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a.detach(), b.detach()))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _unified(contract: FunctionContract, base: Sizes, a: TensorArg, b: TensorArg) -> Sizes | None:
    """Sizes under which `a` and `b` have the same shape, or None."""
    dims = dict(base.dims)
    for x, y in zip(a.parsed_shape, b.parsed_shape, strict=True):
        if isinstance(x, str) or isinstance(y, str):
            if x != y:
                return None
            continue
        if x.symbol is not None and y.symbol is not None:
            dims[y.symbol] = dims[x.symbol]
    sizes = Sizes(dims, dict(base.runs), "unified")
    if not satisfied(contract, sizes) or sizes.shape(a.parsed_shape) != sizes.shape(b.parsed_shape):
        return None
    return sizes


def _may_require_grad(contract: FunctionContract) -> bool:
    return any(isinstance(a, TensorArg | TensorListArg) and (a if isinstance(a, TensorArg) else a.item).is_float
               for a in contract.args.values())


def _result_float_dtype(case: Case) -> torch.dtype:
    for value in case.args.values():
        if isinstance(value, torch.Tensor) and value.dtype.is_floating_point:
            return value.dtype
    return torch.float64


def _seeded_like(value: Any, generator: torch.Generator, spec: object = None) -> Any:
    """A fixed cotangent shaped like a result (a tensor, or a tuple of one per tensor, depth first): seeded values
    for float tensors that may carry a gradient, zeros for the others (integers, and results the contract
    detaches: central differences would see those change although no gradient may flow from them)."""
    carries = _gradient_carriers(value, spec)
    parts = []
    for t, carries_gradient in zip(tensors_in(value), carries, strict=True):
        if t.dtype.is_floating_point and carries_gradient:
            parts.append(torch.randn(t.shape, generator=generator, dtype=torch.float64))
        else:
            parts.append(torch.zeros(t.shape, dtype=t.dtype))
    return tuple(parts) if isinstance(value, tuple | list) else parts[0]


def _gradient_carriers(value: Any, spec: object) -> list[bool]:
    """For each tensor of a result (depth first), whether its declaration lets it carry a gradient."""
    from grader.contract.schema import TensorListResult, TensorResult, TupleResult

    if isinstance(value, torch.Tensor):
        rule = spec.requires_grad if isinstance(spec, TensorResult | TensorListResult) else "differentiable"
        return [rule != "never"]
    if isinstance(value, tuple | list):
        if isinstance(spec, TupleResult) and len(spec.items) == len(value):
            return [flag for item, inner in zip(value, spec.items, strict=True)
                    for flag in _gradient_carriers(item, inner)]
        return [flag for item in value for flag in _gradient_carriers(item, spec)]
    return []
