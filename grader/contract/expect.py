"""What every generic call must satisfy, whatever else its check tests: it returns on a legal input, the result has
the declared kind, shape and dtype and the reference's values, it shares no storage with an argument, it leaves
every argument as it was, and it requires grad exactly as declared."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from grader.calls import CallResult, CheckFailed
from grader.checks import describe, expect_close, expect_equal, expect_tensor, fail
from grader.contract.legality import bound_sizes
from grader.contract.schema import (
    DTYPES,
    FunctionContract,
    ListResult,
    ScalarResult,
    TensorArg,
    TensorListArg,
    TensorListResult,
    TensorResult,
    TupleResult,
)
from grader.contract.sizes import Sizes, solve_expressions
from grader.vjp import tensors_in

PYTHON_TYPES = {"float": float, "int": int, "bool": bool, "str": str, "none": type(None)}


@dataclass
class Case:
    """One generated call: its arguments as the learner gets them, and what kind of input it is."""

    args: dict[str, Any]
    label: str
    sizes: Sizes
    omit: tuple[str, ...] = ()  # optional arguments left out, so their defaults apply
    grads: tuple[str, ...] = ()
    grad_output: Any = None
    reference_args: dict[str, Any] | None = None  # what the reference gets, when not a copy of `args`
    # A same-tensor case: the arguments that are one tensor. The gradient asked for (`grads`, one of them) is then
    # the sum of what the reference's two copies get, a detached one's nothing.
    shares: tuple[str, ...] = ()
    expected: Any = field(default=None, repr=False)  # the reference's result (filled in by the battery)
    rounded: Any = field(default=None, repr=False)  # the reference's result in the call's own dtypes, when asked

    def call_arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return split_arguments(self.args, self.omit)


def split_arguments(args: dict[str, Any], omit: tuple[str, ...] = ()) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Positional arguments up to the first one left out, keywords after it."""
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    skipping = False
    for name, value in args.items():
        if name in omit:
            skipping = True
            continue
        if skipping:
            keywords[name] = value
        else:
            positional.append(value)
    return tuple(positional), keywords


def float_dtype(contract: FunctionContract, args: dict[str, Any]) -> torch.dtype:
    """The dtype of the call's float tensors (the 'float' group); torch's default (float32) when it has none, as
    torch.zeros(()) would be."""
    for name, arg in contract.args.items():
        value = args.get(name)
        if isinstance(arg, TensorArg) and arg.group == "float" and isinstance(value, torch.Tensor):
            return value.dtype
        if isinstance(arg, TensorListArg) and arg.item.group == "float" and isinstance(value, list | tuple):
            for item in value:
                if isinstance(item, torch.Tensor):
                    return item.dtype
    return torch.get_default_dtype()


def result_dtype(rule: str, contract: FunctionContract, args: dict[str, Any]) -> torch.dtype:
    if rule == "float":
        return float_dtype(contract, args)
    if rule in DTYPES:
        return DTYPES[rule]
    value = args.get(rule)
    return value.dtype if isinstance(value, torch.Tensor) else float_dtype(contract, args)


def requires_grad_expected(rule: str | list[str], contract: FunctionContract, args: dict[str, Any]) -> bool:
    if rule == "never":
        return False
    names = [name for name, arg in contract.args.items() if _grad_rule(arg) == "differentiable"] \
        if rule == "differentiable" else list(rule)
    return any(_requires_grad(args.get(name)) for name in names)


def _grad_rule(arg: object) -> str:
    if isinstance(arg, TensorArg):
        return arg.grad_rule
    if isinstance(arg, TensorListArg):
        return arg.item.grad_rule
    return "none"


def _requires_grad(value: Any) -> bool:
    if isinstance(value, torch.Tensor):
        return value.requires_grad
    if isinstance(value, list | tuple):
        return any(_requires_grad(item) for item in value)
    return False


def in_case(result: CallResult, case: Case) -> str:
    return f"{result.call} [generic input: {case.label}]"


class _InCase:
    """`in_case`, formatted only when a failure message uses it: describing a call's arguments cost more of a
    MoCo grading than comparing the results it describes (every generic call's result is checked)."""

    __slots__ = ("result", "case")

    def __init__(self, result: CallResult, case: Case) -> None:
        self.result = result
        self.case = case

    def __str__(self) -> str:
        return in_case(self.result, self.case)


def expect_legal_call(result: CallResult, case: Case, contract: FunctionContract, *,
                      depends: Callable[[], bool] | None = None, rounded: Callable[[], Any] | None = None) -> None:
    """Every property a generic call must have (see the module's docstring), in the order a learner fixes them.
    `depends()`: whether the exact result depends on an argument that requires grad (asked only when the result
    does not require grad: a result constant in every argument, such as attention with no keys, need not)."""
    if result.raised is not None:
        raise CheckFailed(f"{in_case(result, case)} raised {result.raised.summary()}, but the contract allows "
                          "these arguments", call=result)
    value = result.value
    try:
        expect_result(value, case.expected, contract.result, case, contract, result, path="the result")
    except CheckFailed:
        if rounded is None or not _lower_precision(case.args):
            raise
        try:  # the answer of the same formula in the call's own dtypes is right too (see rounded_result)
            expect_result(value, rounded(), contract.result, case, contract, result, path="the result")
        except CheckFailed:
            pass
        else:
            return _after_values(result, case, contract, depends)
        raise
    _after_values(result, case, contract, depends)


def _lower_precision(args: dict[str, Any]) -> bool:
    return any(isinstance(t, torch.Tensor) and t.dtype.is_floating_point and t.dtype != torch.float64
               for t in tensors_in(list(args.values())))


def _after_values(result: CallResult, case: Case, contract: FunctionContract,
                  depends: Callable[[], bool] | None) -> None:
    value = result.value
    if result.aliased:
        itself = [name for name in result.aliased if _is_input(value, case.args.get(name))]
        which = ", ".join(result.aliased)
        if itself:
            fail(f"{in_case(result, case)} returned {itself[0]} itself (or a view of it): the result must be new "
                 f"storage on every path, this one included; return a copy (.clone()) where the answer equals an "
                 "input")
        fail(f"{in_case(result, case)} returned a tensor that shares storage with {which}; the result must be new "
             "storage (e.g. .clone()), so that changing one can never change the other")
    if result.mutated:
        lists = all(isinstance(case.args.get(name), list | tuple) and not tensors_in(case.args.get(name))
                    for name in result.mutated)
        what = ("its items: appended, removed, reordered or replaced in place" if lists else
                "its values, shape, strides, version or requires_grad")
        fail(f"{in_case(result, case)} changed {', '.join(result.mutated)} ({what}); every argument must be left "
             "as it was: work on copies")
    expect_requires_grad(value, contract.result, case, contract, result, path="the result", depends=depends)


def _is_input(value: Any, argument: Any) -> bool:
    if not isinstance(argument, torch.Tensor):
        return False
    for t in tensors_in(value):
        if t.shape == argument.shape and t.dtype == argument.dtype and bool((t == argument.detach()).all()):
            return True
    return False


def expect_result(value: Any, expected: Any, spec: object, case: Case, contract: FunctionContract,
                  result: CallResult, *, path: str) -> None:
    """Kind, shape, dtype, then values, against the reference's result on the same input."""
    where = _InCase(result, case)
    if isinstance(spec, TupleResult):
        if type(value) is not tuple:
            kinds = ", ".join(_kind_name(item) for item in spec.items)
            fail(f"{where}: {path} is {_what(value)}; the contract says a tuple of {len(spec.items)} ({kinds})")
        if len(value) != len(spec.items):
            fail(f"{where}: {path} is a tuple of {len(value)} items; the contract says {len(spec.items)}")
        for index, (item, wanted, item_spec) in enumerate(zip(value, tuple(expected), spec.items, strict=True)):
            expect_result(item, wanted, item_spec, case, contract, result, path=f"{path}[{index}]")
        return
    if isinstance(spec, ListResult):
        if type(value) is not list:
            fail(f"{where}: {path} is {_what(value)}; the contract says a list of {_kind_name(spec.item)}s")
        for index, item in enumerate(value):  # every item's kind first: a bool among ints, a list for a tuple
            _expect_kind(item, spec.item, where, f"{path}[{index}]")
        wanted = list(expected)
        if len(value) != len(wanted):
            fail(f"{where}: {path} has {len(value)} items, the reference's {len(wanted)}: got "
                 f"{describe(value, compact=True)}, expected {describe(wanted, compact=True)}")
        for index, (item, wanted_item) in enumerate(zip(value, wanted, strict=True)):
            expect_result(item, wanted_item, spec.item, case, contract, result, path=f"{path}[{index}]")
        return
    if isinstance(spec, ScalarResult):
        wanted_type = PYTHON_TYPES[spec.kind]
        if type(value) is not wanted_type:
            fail(f"{where}: {path} is {_what(value)}; the contract says a Python {spec.kind}"
                 + (" (a 0-d tensor is not one: use .item())" if isinstance(value, torch.Tensor) else ""))
        if spec.kind == "float":
            # A Python float computed from float32 tensors carries float32's rounding: held to float64's
            # tolerance, a correct solution that reads its result with .item() would fail.
            rtol, atol = contract.tolerance.of(_scalar_precision(case.args))
            _naming(where, lambda call: expect_close(value, float(expected), what=path, call=call, rtol=rtol,
                                                     atol=atol))
        elif spec.kind != "none":
            _naming(where, lambda call: expect_equal(value, expected, what=path, call=call))
        return
    if isinstance(spec, TensorListResult):
        like = case.args.get(spec.like)
        like = list(like) if isinstance(like, tuple) else like
        if type(value) is not list:
            fail(f"{where}: {path} is {_what(value)}; the contract says a list of tensors like {spec.like}")
        if not isinstance(like, list) or len(value) != len(like):
            fail(f"{where}: {path} has {len(value)} elements; {spec.like} has "
                 f"{len(like) if isinstance(like, list) else '?'}")
        dtype = result_dtype(spec.dtype, contract, case.args)
        for index, (item, wanted, source) in enumerate(zip(value, expected, like, strict=True)):
            label = f"{path}[{index}]"
            if source is None:
                if item is not None:
                    fail(f"{where}: {label} is {_what(item)}, but {spec.like}[{index}] is None, so it must be None")
                continue
            _expect_tensor_values(item, wanted, tuple(source.shape), dtype, contract, where, result,
                                  f"{label} (generic input: {case.label})")
        return
    assert isinstance(spec, TensorResult)
    shape = case.sizes.shape(spec.parsed_shape)
    dtype = result_dtype(spec.dtype, contract, case.args)
    _expect_tensor_values(value, expected, shape, dtype, contract, where, result,
                          f"{path} (generic input: {case.label})")


def _naming(where: _InCase, check: Callable[[str | None], None]) -> None:
    """Run a comparison without naming the call, and only when it fails run it again naming it: the message is
    the named comparison's own, and a passing one describes nothing."""
    try:
        check(None)
    except CheckFailed:
        check(str(where))
        raise


def _scalar_precision(args: dict[str, Any]) -> torch.dtype:
    """The least precise floating dtype among the call's tensors (a float result computed from them carries its
    rounding); float64 for a call of Python numbers alone."""
    dtypes = [t.dtype for t in tensors_in(list(args.values())) if t.dtype.is_floating_point]
    return min(dtypes, key=lambda dtype: torch.finfo(dtype).bits, default=torch.float64)


def _expect_kind(value: Any, spec: object, where: _InCase, path: str) -> None:
    """A list item's kind alone (exactly an int, exactly a tuple of its items), before any value is compared."""
    if isinstance(spec, ScalarResult) and type(value) is not PYTHON_TYPES[spec.kind]:
        fail(f"{where}: {path} is {_what(value)}; the contract says a Python {spec.kind}")
    if isinstance(spec, TupleResult):
        if type(value) is not tuple or len(value) != len(spec.items):
            fail(f"{where}: {path} is {_what(value)}; the contract says a tuple of {len(spec.items)} "
                 f"({', '.join(_kind_name(item) for item in spec.items)})")
        for index, (item, item_spec) in enumerate(zip(value, spec.items, strict=True)):
            _expect_kind(item, item_spec, where, f"{path}[{index}]")
    if isinstance(spec, ListResult):
        if type(value) is not list:
            fail(f"{where}: {path} is {_what(value)}; the contract says a list of {_kind_name(spec.item)}s")
        for index, item in enumerate(value):
            _expect_kind(item, spec.item, where, f"{path}[{index}]")


def _expect_tensor_values(value: Any, expected: Any, shape: tuple[int, ...], dtype: torch.dtype,
                          contract: FunctionContract, where: _InCase, result: CallResult, path: str) -> None:
    expect_tensor(value, shape=shape, dtype=dtype, what=path, call=result)
    if not isinstance(expected, torch.Tensor):
        fail(f"internal: the reference returned {describe(expected)} for {path}")
    if dtype.is_floating_point:
        rtol, atol = contract.tolerance.of(dtype)
        # float results are compared with the exact result: the reference in float64, rounded to their dtype
        expect_close(value, expected.detach().to(dtype), what=path, call=result, rtol=rtol, atol=atol)
    else:
        expect_equal(value.detach(), expected.detach().to(dtype), what=path, call=result)


def expect_requires_grad(value: Any, spec: object, case: Case, contract: FunctionContract, result: CallResult,
                         *, path: str, depends: Callable[[], bool] | None = None) -> None:
    for item_path, item, item_spec in _tensor_parts(value, spec, path):
        if not item.dtype.is_floating_point or item.numel() == 0:
            continue  # an empty result carries no gradient either way
        wanted = requires_grad_expected(item_spec.requires_grad, contract, case.args)
        if item.requires_grad == wanted:
            continue
        if wanted and depends is not None and not depends():
            continue  # constant in every argument on this input: no gradient to carry
        if wanted:
            sources = _sources(item_spec.requires_grad, contract, case.args)
            fail(f"{in_case(result, case)}: {item_path} does not require grad, although {sources} and the "
                 "result depends on it; every path must stay on the autograd graph (a shortcut that builds a new "
                 "tensor, with torch.zeros or torch.tensor, or a .detach(), loses it)")
        fail(f"{in_case(result, case)}: {item_path} requires grad, but the contract says it must not "
             + ("(it is detached from every argument)" if item_spec.requires_grad == "never" else
                "(no argument it may depend on differentiably requires grad)"))


def _tensor_parts(value: Any, spec: object, path: str) -> Iterator[tuple[str, torch.Tensor, Any]]:
    if isinstance(spec, TupleResult) and isinstance(value, tuple):
        for index, (item, item_spec) in enumerate(zip(value, spec.items, strict=False)):
            yield from _tensor_parts(item, item_spec, f"{path}[{index}]")
    elif isinstance(spec, TensorResult) and isinstance(value, torch.Tensor):
        yield path, value, spec
    elif isinstance(spec, TensorListResult) and isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, torch.Tensor):
                yield f"{path}[{index}]", item, spec


def _sources(rule: str | list[str], contract: FunctionContract, args: dict[str, Any]) -> str:
    names = [name for name, arg in contract.args.items()
             if (rule == "differentiable" and _grad_rule(arg) == "differentiable") or (isinstance(rule, list)
                                                                                     and name in rule)]
    requiring = [name for name in names if _requires_grad(args.get(name))]
    if not requiring:
        return "an argument"
    if len(requiring) == 1:
        return f"{requiring[0]} does"
    return f"{', '.join(requiring[:-1])} and {requiring[-1]} do"


def kind_mismatch(value: Any, spec: object) -> str | None:
    """What `value` is, where it is not of the kind the contract's result `spec` declares (the kind alone: a tensor,
    exactly a Python float, a tuple of so many items, a list); None where it is. The judge names it when a check
    cannot go on with such a value."""
    if isinstance(spec, TensorResult):
        return None if isinstance(value, torch.Tensor) else _what(value)
    if isinstance(spec, TensorListResult):
        items = type(value) is list and all(item is None or isinstance(item, torch.Tensor) for item in value)
        return None if items else _what(value)
    if isinstance(spec, ScalarResult):
        return None if type(value) is PYTHON_TYPES[spec.kind] else _what(value)
    if isinstance(spec, TupleResult):
        if type(value) is not tuple or len(value) != len(spec.items):
            return _what(value)
        found = (kind_mismatch(item, item_spec) for item, item_spec in zip(value, spec.items, strict=True))
        return next((what for what in found if what is not None), None)
    if isinstance(spec, ListResult):
        if type(value) is not list:
            return _what(value)
        return next((what for what in (kind_mismatch(item, spec.item) for item in value) if what is not None), None)
    return None


def contract_mismatch(value: Any, contract: FunctionContract, args: dict[str, Any]) -> str | None:
    """What a call with `args` returned, where it is not what the contract declares, and what it declares: first
    the kind (kind_mismatch), then each tensor's shape and dtype, as the sizes of the arguments' shapes make them
    (a size past the battery's bound included: a check may call with larger inputs than the battery draws). None
    where the value conforms, or where the contract cannot say (arguments whose shapes disagree, a shape over a
    size no argument gives). The judge names it when a check cannot go on with such a value."""
    spec = contract.result
    found = kind_mismatch(value, spec)
    if found is not None:
        return f"{found}, where the contract says a {kind_name(spec)}"
    sizes = bound_sizes(contract, args)
    if sizes is None:
        return None
    shapes = [(arg.parsed_shape, tuple(args[name].shape)) for name, arg in contract.args.items()
              if isinstance(arg, TensorArg) and not arg.broadcast and isinstance(args.get(name), torch.Tensor)]
    sizes = solve_expressions(sizes, shapes)
    for path, item, shape, dtype in _declared_tensors(value, spec, contract, args, sizes, ""):
        if item.dtype == dtype and (shape is None or tuple(item.shape) == shape):
            continue
        wanted = str(dtype).removeprefix("torch.") + ("" if shape is None else str(list(shape)))
        where = f"a {'tuple' if isinstance(spec, TupleResult) else 'list'} whose item {path} is " if path else ""
        return f"{where}{_what(item)}, where the contract says {wanted} for these arguments"
    return None


def _declared_tensors(value: Any, spec: object, contract: FunctionContract, args: dict[str, Any], sizes: Sizes,
                      path: str) -> Iterator[tuple[str, torch.Tensor, tuple[int, ...] | None, torch.dtype]]:
    """(path, tensor, declared shape or None where the contract cannot say, declared dtype) for every tensor of a
    value already of the declared kind."""
    if isinstance(spec, TupleResult):
        for index, (item, item_spec) in enumerate(zip(value, spec.items, strict=True)):
            yield from _declared_tensors(item, item_spec, contract, args, sizes, f"{path}[{index}]" if path
                                         else str(index))
    elif isinstance(spec, TensorResult):
        try:
            shape: tuple[int, ...] | None = sizes.shape(spec.parsed_shape)
        except KeyError:
            shape = None  # a size no argument gives (a length computed from the values)
        yield path, value, shape, result_dtype(spec.dtype, contract, args)
    elif isinstance(spec, TensorListResult):
        like = args.get(spec.like)
        sources = list(like) if isinstance(like, list | tuple) else []
        dtype = result_dtype(spec.dtype, contract, args)
        for index, item in enumerate(value):
            source = sources[index] if index < len(sources) else None
            if isinstance(item, torch.Tensor):
                yield (f"{path}[{index}]" if path else str(index), item,
                       tuple(source.shape) if isinstance(source, torch.Tensor) else None, dtype)


def kind_name(spec: object) -> str:
    """The kind of the contract's result `spec`, for a message: "tensor", "float", "tuple", "list of ints"."""
    return _kind_name(spec)


def _kind_name(spec: object) -> str:
    if isinstance(spec, TensorResult | TensorListResult):
        return "tensor" if isinstance(spec, TensorResult) else "list of tensors"
    if isinstance(spec, ScalarResult):
        return spec.kind
    if isinstance(spec, TupleResult):
        return "tuple"
    if isinstance(spec, ListResult):
        return f"list of {_kind_name(spec.item)}s"
    return "?"


def _what(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, torch.Tensor):
        return f"a tensor {describe(value, compact=True)}"
    if isinstance(value, list):
        return f"a list ({describe(value, compact=True)})"
    if isinstance(value, tuple):
        return f"a tuple ({describe(value, compact=True)})"
    return f"{type(value).__name__} {describe(value, compact=True)}"
