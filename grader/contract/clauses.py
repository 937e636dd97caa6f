"""The clauses a declared contract states, generated from it: the rows of the self-test's clause table that the
generic battery covers (ids `contract.FUNCTION.*`), each in one line of plain words."""

from __future__ import annotations

from dataclasses import dataclass

from grader.contract.schema import (
    BoolArg,
    FloatArg,
    FunctionContract,
    IntArg,
    ListArg,
    ListResult,
    ScalarResult,
    SizeExpression,
    StrArg,
    TensorArg,
    TensorListArg,
    TensorListResult,
    TensorResult,
    TupleArg,
    TupleResult,
)

SEARCH_CLAUSE = "contract.search"
MAX_TEXT = 300


@dataclass(frozen=True)
class GeneratedClause:
    id: str
    text: str


def _shape(entries: tuple[str | SizeExpression, ...]) -> str:
    return "[" + ", ".join(e if isinstance(e, str) else e.text for e in entries) + "]"


def _arg_text(name: str, arg: object) -> str:
    if isinstance(arg, TensorArg):
        return f"{name} {_shape(arg.parsed_shape)} {'|'.join(arg.dtypes)}"
    if isinstance(arg, TensorListArg):
        return f"{name} a list of {arg.length} tensors {_shape(arg.item.parsed_shape)}"
    if isinstance(arg, FloatArg):
        return f"{name} a number in {arg.interval}"
    if isinstance(arg, IntArg):
        return f"{name} an int " + (f"equal to {arg.size}" if arg.size else f"in {arg.interval}")
    if isinstance(arg, BoolArg):
        return f"{name} a bool"
    if isinstance(arg, TupleArg):
        return f"{name} a tuple of {len(arg.items)}"
    if isinstance(arg, StrArg):
        lengths = (f"{arg.min_length} to {arg.max_length} characters" if arg.max_length is not None else
                   "any length" if arg.min_length == 0 else f"at least {arg.min_length} characters")
        return (f"{name} a str of {lengths}"
                + (f" from {arg.alphabet!r}" if arg.alphabet is not None else " (any text UTF-8 can encode)"))
    if isinstance(arg, ListArg):
        return f"{name} a list of {arg.length} " + _item_text(arg.item)
    return name


def _item_text(item: object) -> str:
    if isinstance(item, TupleArg):
        return f"tuples of {len(item.items)} (" + ", ".join(_item_text(entry) for entry in item.items) + ")"
    if isinstance(item, IntArg):
        return f"ints in {item.interval}"
    if isinstance(item, FloatArg):
        return f"numbers in {item.interval}"
    return "bools"


def _result_text(result: object) -> str:
    if isinstance(result, TensorResult):
        return f"a tensor {_shape(result.parsed_shape)}"
    if isinstance(result, TensorListResult):
        return f"a list of tensors shaped like {result.like}"
    if isinstance(result, ScalarResult):
        return f"a Python {result.kind}"
    if isinstance(result, TupleResult):
        return "a tuple (" + ", ".join(_result_text(item) for item in result.items) + ")"
    if isinstance(result, ListResult):
        return f"a list, each item {_result_text(result.item)}"
    return "?"


def _fit(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


def function_clauses(name: str, contract: FunctionContract, *, autograd: bool, same_tensor: bool,
                     finite_differences: bool) -> list[GeneratedClause]:
    prefix = f"contract.{name.lower()}"
    tensors = [n for n, a in contract.args.items() if isinstance(a, TensorArg | TensorListArg)]
    sequences = [n for n, a in contract.args.items() if isinstance(a, StrArg | ListArg)]
    scalars = [n for n, a in contract.args.items() if not isinstance(a, TensorArg | TensorListArg | StrArg | ListArg)]
    plain = bool(sequences) and not tensors and not _has_tensor(contract.result)  # strs and lists, no tensors
    sized = ", ".join(f"{symbol} >= {spec.min}" for symbol, spec in contract.dims.items()
                      if not symbol.startswith("*"))
    clauses = [
        GeneratedClause(f"{prefix}.shapes", _fit(
            "; ".join(_arg_text(n, contract.args[n]) for n in [*tensors, *sequences])
            + f" -> {_result_text(contract.result)}"
            + (f"; sizes {sized}" if sized else ""))),
        GeneratedClause(f"{prefix}.result", _fit(
            f"returns exactly {_result_text(contract.result)}, with the reference's values" if plain else
            f"returns {_result_text(contract.result)} of the declared dtype, in new storage on every path")),
        GeneratedClause(f"{prefix}.unchanged", "every argument is left unchanged: no list is modified in place"
                        if plain else "every argument is left unchanged: values, shape, strides, version, "
                                      "requires_grad"),
        GeneratedClause(f"{prefix}.dtypes", _fit(
            "every allowed dtype is accepted and the result's dtype follows the contract; float64 results are "
            "float64-accurate")),
        GeneratedClause(f"{prefix}.layouts", _fit(
            f"{', '.join(tensors) or 'tensor arguments'} may be views with any strides (transposed, expanded, "
            "sliced, permuted)")),
    ]
    if scalars:
        clauses.append(GeneratedClause(f"{prefix}.scalars", _fit(
            "; ".join(_arg_text(n, contract.args[n]) for n in scalars) + "; every legal value, the ends included")))
    if autograd:
        differentiable = [n for n, a in contract.args.items() if isinstance(a, TensorArg)
                          and a.grad_rule == "differentiable"]
        detached = [n for n, a in contract.args.items() if isinstance(a, TensorArg) and a.grad_rule == "detached"]
        text = (f"gradients flow into {', '.join(differentiable)}" if differentiable else "no gradient flows back")
        if detached:
            text += f"; {', '.join(detached)} detached (their gradients stay None)"
        text += "; the result requires grad exactly when it may depend differentiably on an argument that does"
        if finite_differences:
            text += "; equal to central differences"
        clauses.append(GeneratedClause(f"{prefix}.autograd", _fit(text)))
    if contract.validates:
        clauses.append(GeneratedClause(f"{prefix}.refusals", _fit(
            "arguments outside the contract raise: " + ", ".join(
                f"{rule} {contract.error_for(rule)}" for rule in (("kind", "shape", "range") if plain else (
                    "kind", "dtype", "shape", "range", "finite", "device"))))))
    if same_tensor:
        clauses.append(GeneratedClause(f"{prefix}.same_tensor", "the same tensor passed in two argument positions "
                                                                "gives the result of two copies"))
    return clauses


def _has_tensor(result: object) -> bool:
    if isinstance(result, TensorResult | TensorListResult):
        return True
    if isinstance(result, TupleResult):
        return any(_has_tensor(item) for item in result.items)
    return isinstance(result, ListResult) and _has_tensor(result.item)


def search_clause() -> GeneratedClause:
    return GeneratedClause(SEARCH_CLAUSE, "every legal input, drawn at random from the declared contract, gives "
                                          "the reference's result")
