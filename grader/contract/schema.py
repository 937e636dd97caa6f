"""The declared contract of a problem's function, as problem.toml states it: one typed schema the engine validates.

Each `[[functions]]` table may carry its contract beside its name and signature:

    [functions.dims]                 # the symbolic sizes its shapes use
    "*B" = { max_rank = 2 }          # a variadic run of dimensions (0 to 2 of them here)
    L = { min = 0 }                  # may be empty; by default a size is at least 1
    D = {}

    [functions.args]                 # every parameter, in the signature's order
    x = { kind = "tensor", shape = ["*B", "L", "D"] }
    temperature = { kind = "float", range = "(0, inf)" }

    [functions.result]
    kind = "tensor"
    shape = ["*B", "L", "D"]

The engine derives a generic battery from it (grader.contract.battery): layouts, sizes, dtypes, inputs left
unchanged, new storage, autograd, refusals and a property search against the reference. docs/authoring.md
documents every field with a worked example.
"""

from __future__ import annotations

import ast
import functools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Literal

import torch
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from grader.errors import AuthoringError

# ------------------------------------------------------------------------------------------------ vocabulary

DTYPES: dict[str, torch.dtype] = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "float64": torch.float64,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
DTypeName = Literal["float16", "bfloat16", "float32", "float64", "int32", "int64", "uint8", "bool"]
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
DEFAULT_FLOAT_DTYPES: tuple[DTypeName, ...] = ("float32", "float64")

# What a validation rule is about; each maps to the exception type the function raises when it is broken.
Rule = Literal["kind", "dtype", "shape", "range", "finite", "device"]
DEFAULT_ERRORS: dict[str, str] = {
    "kind": "TypeError",  # the wrong kind of value: not a tensor, a bool for a number, a str, None
    "dtype": "TypeError",  # a dtype outside the allowed ones, or tensors that must share a dtype and do not
    "shape": "ValueError",  # the wrong rank, sizes that disagree between arguments, a size below its minimum
    "range": "ValueError",  # a number (or a tensor element) outside its declared range
    "finite": "ValueError",  # nan or infinity where values must be finite
    "device": "ValueError",  # tensors that must share a device and do not
}
EXCEPTION_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
SYMBOL = r"^[A-Za-z][A-Za-z0-9_]*$"
VARIADIC = r"^\*[A-Za-z][A-Za-z0-9_]*$"


class ContractError(AuthoringError, ValueError):
    """A contract that cannot mean anything (an undefined symbol, a result dtype naming no argument, ...)."""


# --------------------------------------------------------------------------------------------- sizes and ranges


class SizeExpression:
    """One entry of a declared shape: an int, a symbol (`D`), or arithmetic of symbols and ints (`2*N`, `T+1`)."""

    __slots__ = ("text", "_tree")

    def __init__(self, text: str | int) -> None:
        self.text = str(text)
        try:
            tree = ast.parse(self.text, mode="eval").body
        except SyntaxError:
            raise ContractError(f"'{text}' is not a size: use an int, a symbol such as D, or 2*N, T+1") from None
        for node in ast.walk(tree):
            if not isinstance(node, ast.BinOp | ast.Name | ast.Constant | ast.Add | ast.Sub | ast.Mult
                              | ast.Load | ast.FloorDiv):
                raise ContractError(f"'{text}': a size may use only ints, symbols, +, - , * and //")
            if isinstance(node, ast.Constant) and (type(node.value) is not int or node.value < 0):
                raise ContractError(f"'{text}': sizes are non-negative ints")
        self._tree = tree

    @property
    def symbols(self) -> tuple[str, ...]:
        return tuple(sorted({n.id for n in ast.walk(self._tree) if isinstance(n, ast.Name)}))

    @property
    def symbol(self) -> str | None:
        """The symbol when the entry is a bare one, which a shape binds; None for an int or an expression."""
        return self._tree.id if isinstance(self._tree, ast.Name) else None

    def value(self, sizes: dict[str, int]) -> int:
        return _evaluate(self._tree, sizes)

    def __repr__(self) -> str:
        return self.text


def _evaluate(node: ast.expr, sizes: dict[str, int]) -> int:
    if isinstance(node, ast.Constant):
        assert type(node.value) is int  # SizeExpression admits only int constants
        return node.value
    if isinstance(node, ast.Name):
        return sizes[node.id]
    assert isinstance(node, ast.BinOp)
    left, right = _evaluate(node.left, sizes), _evaluate(node.right, sizes)
    if isinstance(node.op, ast.Add):
        return left + right
    if isinstance(node.op, ast.Sub):
        return left - right
    if isinstance(node.op, ast.Mult):
        return left * right
    return left // right


@dataclass(frozen=True)
class Bound:
    value: SizeExpression | float  # a float for numbers (inf included), an expression for symbolic ends
    closed: bool

    def number(self, sizes: dict[str, int]) -> float:
        return float(self.value.value(sizes)) if isinstance(self.value, SizeExpression) else self.value


@dataclass(frozen=True)
class Interval:
    """`[a, b]`, `(a, b)`, `[a, b)`, `(a, b]`; ends are numbers, `inf`/`-inf` (always open) or size expressions."""

    low: Bound
    high: Bound
    text: str

    def contains(self, x: float, sizes: dict[str, int]) -> bool:
        low, high = self.low.number(sizes), self.high.number(sizes)
        above = x >= low if self.low.closed else x > low
        below = x <= high if self.high.closed else x < high
        return above and below

    @property
    def unbounded(self) -> bool:
        return self.low.number({}) == -math.inf and self.high.number({}) == math.inf if not self.symbolic else False

    @property
    def symbolic(self) -> bool:
        return isinstance(self.low.value, SizeExpression) or isinstance(self.high.value, SizeExpression)

    def __str__(self) -> str:
        return self.text


_INTERVAL = re.compile(r"^\s*([\[(])\s*([^,]+?)\s*,\s*([^,]+?)\s*([\])])\s*$")


def parse_interval(text: str) -> Interval:
    match = _INTERVAL.match(text)
    if match is None:
        raise ContractError(f"'{text}' is not an interval such as '[0, 1]', '(0, inf)' or '[0, K)'")
    opening, low_text, high_text, closing = match.groups()
    low, high = _end(low_text, opening == "[", text), _end(high_text, closing == "]", text)
    if not isinstance(low.value, SizeExpression) and not isinstance(high.value, SizeExpression):
        if low.value > high.value or (low.value == high.value and not (low.closed and high.closed)):
            raise ContractError(f"'{text}' is empty")
    return Interval(low, high, f"{opening}{low_text}, {high_text}{closing}")


def _end(text: str, closed: bool, whole: str) -> Bound:
    lowered = text.lower()
    if lowered in ("inf", "+inf", "-inf"):
        if closed:
            raise ContractError(f"'{whole}': an infinite end is open: write '(-inf' or 'inf)'")
        return Bound(-math.inf if lowered == "-inf" else math.inf, False)
    try:
        return Bound(float(text), closed)
    except ValueError:
        return Bound(SizeExpression(text), closed)


def parse_shape(entries: list[str | int]) -> tuple[str | SizeExpression, ...]:
    """A declared shape: size expressions, and at most one variadic run (`*B`) kept as its name."""
    parsed: list[str | SizeExpression] = []
    for entry in entries:
        if isinstance(entry, str) and re.fullmatch(VARIADIC, entry):
            parsed.append(entry)
        else:
            parsed.append(SizeExpression(entry))
    if sum(isinstance(entry, str) for entry in parsed) > 1:
        raise ContractError(f"shape {entries}: at most one variadic run (*B) per shape")
    return tuple(parsed)


# ------------------------------------------------------------------------------------------------- the models


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DimSpec(_Strict):
    """A symbolic size. For a variadic run (`*B`), `min_rank`/`max_rank` bound how many dimensions it has and
    `min`/`max` bound each of them."""

    min: int = Field(1, ge=0, description="the smallest legal size (0: may be empty)")
    max: int | None = Field(None, ge=0, description="the largest legal size; none by default")
    multiple_of: int | str | None = Field(None, description="an int or another symbol this size is a multiple of")
    even: bool = Field(False, description="the size must be even (pairs of features)")
    strict: bool = Field(True, description="a size below min is refused (ValueError); false: min only bounds what "
                                           "the battery draws, and a hand check says what smaller sizes do")
    min_rank: int = Field(0, ge=0, le=6, description="variadic runs only: fewest dimensions")
    max_rank: int = Field(2, ge=0, le=6, description="variadic runs only: most dimensions the battery uses")
    ranks: list[int] | None = Field(None, description="variadic runs only: the exact ranks allowed, e.g. [0, 2] for "
                                                      "[N, C] or [N, C, H, W]")

    @model_validator(mode="after")
    def _consistent(self) -> DimSpec:
        if self.max is not None and self.max < self.min:
            raise ValueError(f"max {self.max} is below min {self.min}")
        if self.max_rank < self.min_rank:
            raise ValueError(f"max_rank {self.max_rank} is below min_rank {self.min_rank}")
        if self.ranks is not None and (not self.ranks or any(not 0 <= r <= 6 for r in self.ranks)):
            raise ValueError(f"ranks {self.ranks} must be a non-empty list of ranks from 0 to 6")
        return self

    def drawn_ranks(self) -> list[int]:
        """The ranks of a variadic run the battery tries."""
        return sorted(self.ranks) if self.ranks is not None else list(range(self.min_rank, self.max_rank + 1))

    def rank_allowed(self, rank: int) -> bool:
        return rank in self.ranks if self.ranks is not None else rank >= self.min_rank


GradRule = Literal["differentiable", "detached", "none"]


class TensorArg(_Strict):
    """A tensor argument."""

    kind: Literal["tensor"]
    shape: list[str | int] = Field(description="sizes: ints, symbols of [functions.dims], expressions, one *B run")
    dtypes: list[DTypeName] = Field(default_factory=lambda: list(DEFAULT_FLOAT_DTYPES), min_length=1)
    range: str | None = Field(None, description="legal values, e.g. '[0, 1)' or '[0, C)'; unbounded floats if none")
    finite: bool | None = Field(None, description="non-finite values are refused; default: true for float dtypes")
    grad: GradRule | None = Field(None, description="differentiable (gets gradients), detached (must get none), "
                                                    "none (not a float); default by dtype")
    views: bool = Field(True, description="any strides are accepted: transposes, slices, expand, channels-last")
    broadcast: bool = Field(False, description="any shape that broadcasts to `shape` is legal (a mask [Lk] for "
                                               "[*B, Lq, Lk] scores); the battery draws the full shape")
    optional: bool = Field(False, description="None is legal too")
    dtype_group: str | None = Field(None, description="arguments of one group share their dtype; float tensors "
                                                      "form the group 'float' unless named otherwise")
    unchecked: list[Rule] = Field(default_factory=list, description="rules the function does not validate here")

    @property
    def is_float(self) -> bool:
        return all(d in FLOAT_DTYPES for d in self.dtypes)

    @property
    def grad_rule(self) -> GradRule:
        if self.grad is not None:
            return self.grad
        return "differentiable" if self.is_float else "none"

    @property
    def must_be_finite(self) -> bool:
        return self.is_float if self.finite is None else self.finite

    @property
    def group(self) -> str:
        if self.dtype_group is not None:
            return self.dtype_group
        return "float" if self.is_float else f"{'/'.join(self.dtypes)}"

    @functools.cached_property  # checks read it thousands of times a grading; the model is frozen
    def parsed_shape(self) -> tuple[str | SizeExpression, ...]:
        return parse_shape(self.shape)

    @functools.cached_property
    def interval(self) -> Interval | None:
        return None if self.range is None else parse_interval(self.range)

    @model_validator(mode="after")
    def _valid(self) -> TensorArg:
        parse_shape(self.shape)
        if self.range is not None:
            parse_interval(self.range)
        if len(set(self.dtypes)) != len(self.dtypes):
            raise ValueError(f"dtypes {self.dtypes} repeat one")
        if self.grad == "differentiable" and not self.is_float:
            raise ValueError("only a float tensor can be differentiable")
        mixed = {d in FLOAT_DTYPES for d in self.dtypes}
        if len(mixed) > 1:
            raise ValueError(f"dtypes {self.dtypes} mix floating and other dtypes; declare one kind")
        if not self.is_float and "bool" not in self.dtypes and self.range is None:
            raise ValueError("an integer tensor needs a range, e.g. range = '[0, C)'")
        return self


class FloatArg(_Strict):
    """A Python real number: an int or a float; bool and tensors are refused (TypeError) unless declared."""

    kind: Literal["float"]
    range: str = "(-inf, inf)"
    optional: bool = False
    integers: bool = Field(True, description="a Python int is accepted as well as a float")
    unchecked: list[Rule] = Field(default_factory=list)

    @functools.cached_property
    def interval(self) -> Interval:
        return parse_interval(self.range)

    @model_validator(mode="after")
    def _valid(self) -> FloatArg:
        parse_interval(self.range)
        return self


class IntArg(_Strict):
    """A Python int (bool refused): drawn from `range`, or equal to the size of a symbol (`size = "H"`)."""

    kind: Literal["int"]
    range: str | None = None
    size: str | None = Field(None, pattern=SYMBOL, description="the value is this symbol's size")
    optional: bool = False
    unchecked: list[Rule] = Field(default_factory=list)

    @functools.cached_property
    def interval(self) -> Interval | None:
        return None if self.range is None else parse_interval(self.range)

    @model_validator(mode="after")
    def _valid(self) -> IntArg:
        if (self.range is None) == (self.size is None):
            raise ValueError("an int argument needs exactly one of range (e.g. '[0, K)') and size (a symbol)")
        if self.range is not None:
            parse_interval(self.range)
        return self


class BoolArg(_Strict):
    kind: Literal["bool"]
    optional: bool = False
    unchecked: list[Rule] = Field(default_factory=list)


ScalarArg = Annotated[FloatArg | IntArg | BoolArg, Field(discriminator="kind")]


class TupleArg(_Strict):
    """A tuple of numbers of fixed length, e.g. AdamW's betas; a list of them too where `lists` says so."""

    kind: Literal["tuple"]
    items: list[ScalarArg] = Field(min_length=1)
    lists: bool = Field(False, description="a list of the same numbers is accepted as well as a tuple")
    optional: bool = False
    unchecked: list[Rule] = Field(default_factory=list)


class TensorListArg(_Strict):
    """A list of tensors; symbols used only by `item` are drawn anew for every element."""

    kind: Literal["tensor_list"]
    item: TensorArg
    length: str = Field(pattern=SYMBOL, description="the symbol of the list's length")
    none_items: bool = Field(False, description="entries may be None (and are skipped)")
    tuples: bool = Field(False, description="a tuple of tensors is accepted as well as a list")
    optional: bool = False
    unchecked: list[Rule] = Field(default_factory=list)


ListItem = Annotated[FloatArg | IntArg | BoolArg | TupleArg, Field(discriminator="kind")]


class StrArg(_Strict):
    """A Python str (bytes, a list of characters or a str subclass refused: TypeError). The battery draws text
    from `alphabet`, or any Unicode text UTF-8 can encode when it has none."""

    kind: Literal["str"]
    min_length: int = Field(0, ge=0, description="fewer characters are refused (the rule 'shape')")
    max_length: int | None = Field(None, ge=0, description="more characters are refused (the rule 'shape'); none "
                                                           "by default")
    alphabet: str | None = Field(None, min_length=1, description="the characters the battery draws; none: any "
                                                                 "Unicode text UTF-8 can encode")
    utf8: bool = Field(True, description="a str UTF-8 cannot encode (a lone surrogate) is refused (the rule "
                                         "'range')")
    optional: bool = False
    unchecked: list[Rule] = Field(default_factory=list)

    @property
    def longest_drawn(self) -> int:
        """The length of the longest text the battery draws: 16 characters above the minimum at most."""
        most = self.min_length + STR_DRAWN_ABOVE_MIN
        return most if self.max_length is None else min(most, self.max_length)

    @model_validator(mode="after")
    def _valid(self) -> StrArg:
        if self.max_length is not None and self.max_length < self.min_length:
            raise ValueError(f"max_length {self.max_length} is below min_length {self.min_length}")
        return self


STR_DRAWN_ABOVE_MIN = 16


class ListArg(_Strict):
    """A Python list of numbers or of tuples of numbers (token ids, merge pairs); a tuple of them too where
    `tuples` says so. Item ranges may use size symbols, the list's own length among them."""

    kind: Literal["list"]
    item: ListItem
    length: str = Field(pattern=SYMBOL, description="the symbol of the list's length")
    tuples: bool = Field(False, description="a tuple of the same items is accepted as well as a list")
    optional: bool = False
    unchecked: list[Rule] = Field(default_factory=list)

    @model_validator(mode="after")
    def _valid(self) -> ListArg:
        for spec in _list_items(self):
            if isinstance(spec, IntArg) and spec.size is not None:
                raise ValueError("a list's int items need a range, not a size")
            if spec.optional:
                raise ValueError("a list's items cannot be optional")
        return self


def _list_items(arg: ListArg) -> list[FloatArg | IntArg | BoolArg]:
    """The scalar specs of a list's items: the item itself, or each entry of a tuple item."""
    return list(arg.item.items) if isinstance(arg.item, TupleArg) else [arg.item]


Argument = Annotated[TensorArg | FloatArg | IntArg | BoolArg | TupleArg | TensorListArg | StrArg | ListArg,
                     Field(discriminator="kind")]

RequiresGrad = Literal["differentiable", "never"] | list[str]


class TensorResult(_Strict):
    kind: Literal["tensor"]
    shape: list[str | int]
    dtype: str = Field("float", description="'float' (the float arguments' dtype), an argument's name, or a dtype")
    requires_grad: RequiresGrad = Field("differentiable", description="'differentiable': exactly when a "
                                        "differentiable argument requires grad; 'never'; or the arguments that do")
    new_storage: bool = Field(True, description="shares no storage with any argument, on every path")

    @functools.cached_property  # checks read it thousands of times a grading; the model is frozen
    def parsed_shape(self) -> tuple[str | SizeExpression, ...]:
        return parse_shape(self.shape)

    @model_validator(mode="after")
    def _valid(self) -> TensorResult:
        parse_shape(self.shape)
        return self


class ScalarResult(_Strict):
    """A Python float, int, bool or str (exactly that type), or None."""

    kind: Literal["float", "int", "bool", "str", "none"]


class TensorListResult(_Strict):
    """A list of tensors shaped like the elements of a tensor_list argument (`like`), None where it has None."""

    kind: Literal["tensor_list"]
    like: str = Field(description="the tensor_list argument whose elements the result's are shaped like")
    dtype: str = "float"
    requires_grad: RequiresGrad = "differentiable"
    new_storage: bool = True


class TupleResult(_Strict):
    kind: Literal["tuple"]
    items: list[Result] = Field(min_length=1)


class ListResult(_Strict):
    """A Python list (exactly a list) whose every item is of the kind `item` says, e.g. ints or tuples of two ints;
    its length and items are the reference's."""

    kind: Literal["list"]
    item: Result

    @model_validator(mode="after")
    def _valid(self) -> ListResult:
        if any(isinstance(part, TensorResult | TensorListResult) for _, part in _results("item", self.item)):
            raise ValueError("a list result holds Python values (numbers, bools, strs, tuples and lists of them); "
                             "for tensors use kind = 'tensor_list'")
        return self


Result = Annotated[TensorResult | ScalarResult | TensorListResult | TupleResult | ListResult,
                   Field(discriminator="kind")]


class Tolerances(_Strict):
    """(rtol, atol) for comparing a result of each dtype with the exact one (the reference in float64)."""

    float32: tuple[float, float] = (1e-5, 1e-5)
    float64: tuple[float, float] = (1e-9, 1e-10)
    float16: tuple[float, float] = (1e-2, 1e-3)
    bfloat16: tuple[float, float] = (2e-2, 1e-2)

    def of(self, dtype: torch.dtype) -> tuple[float, float]:
        name = str(dtype).removeprefix("torch.")
        return getattr(self, name, (0.0, 0.0))


class FunctionContract(_Strict):
    """What problem.toml declares about one function, beside its name and signature."""

    dims: dict[str, DimSpec] = Field(default_factory=dict)
    args: dict[str, Argument]
    result: Result
    tolerance: Tolerances = Field(default_factory=Tolerances)
    errors: dict[Rule, Annotated[str, Field(pattern=EXCEPTION_NAME)]] = Field(default_factory=dict)
    validates: bool = Field(True, description="false: the function refuses nothing, so no refusals are tested")
    same_tensor: bool = Field(True, description="the same tensor may be passed in two argument positions")
    finite_differences: bool = Field(True, description="false where the function is not differentiable almost "
                                                       "everywhere (central differences would mislead)")
    search_examples: int = Field(24, ge=0, le=200, description="random legal inputs the property search tries")
    detached_constants: bool = Field(
        False, description="true: on an input where the result is constant in every argument (attention with no "
        "keys), it may be a fresh tensor that does not require grad; by default the result requires grad whenever "
        "a differentiable argument does, on every path")

    def error_for(self, rule: str) -> str:
        error: str = self.errors.get(rule, DEFAULT_ERRORS[rule])  # type: ignore[call-overload]
        return error

    @field_validator("dims")
    @classmethod
    def _dim_names(cls, dims: dict[str, DimSpec]) -> dict[str, DimSpec]:
        for name in dims:
            if not (re.fullmatch(SYMBOL, name) or re.fullmatch(VARIADIC, name)):
                raise ValueError(f"'{name}' is not a symbol (D, Lq) or a variadic run (*B)")
        return dims

    @model_validator(mode="after")
    def _symbols_declared(self) -> FunctionContract:
        declared = set(self.dims)
        for where, symbols in self._used_symbols():
            missing = sorted(set(symbols) - declared)
            if missing:
                raise ValueError(f"{where} uses {', '.join(missing)}, which [functions.dims] does not declare")
        for name, dim in self.dims.items():
            if isinstance(dim.multiple_of, str) and dim.multiple_of not in declared:
                raise ValueError(f"dims.{name}.multiple_of names {dim.multiple_of}, which is not declared")
        for where, dtype in self._result_dtypes():
            if dtype != "float" and dtype not in DTYPES and dtype not in self.args:
                raise ValueError(f"{where}: dtype '{dtype}' is neither 'float', a dtype nor an argument")
            if dtype in self.args and not isinstance(self.args[dtype], TensorArg):
                raise ValueError(f"{where}: dtype '{dtype}' names an argument that is not a tensor")
        for where, rule in self._requires_grad_rules():
            if isinstance(rule, list):
                unknown = [a for a in rule if a not in self.args]
                if unknown:
                    raise ValueError(f"{where}: requires_grad names unknown arguments {unknown}")
        for where, like in self._likes():
            if not isinstance(self.args.get(like), TensorListArg):
                raise ValueError(f"{where}: like = '{like}' must name a tensor_list argument")
        return self

    def _used_symbols(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        for name, arg in self.args.items():
            for where, spec in _tensor_specs(f"args.{name}", arg):
                for entry in spec.parsed_shape:
                    yield where, (entry,) if isinstance(entry, str) else entry.symbols
                if spec.interval is not None:
                    yield where, _interval_symbols(spec.interval)
            if isinstance(arg, IntArg):
                if arg.size is not None:
                    yield f"args.{name}", (arg.size,)
                if arg.interval is not None:
                    yield f"args.{name}", _interval_symbols(arg.interval)
            if isinstance(arg, TensorListArg | ListArg):
                yield f"args.{name}.length", (arg.length,)
            if isinstance(arg, ListArg):
                for item in _list_items(arg):
                    if isinstance(item, IntArg | FloatArg) and item.interval is not None:
                        yield f"args.{name}.item", _interval_symbols(item.interval)
        for where, result in _results("result", self.result):
            if isinstance(result, TensorResult):
                for entry in result.parsed_shape:
                    yield where, (entry,) if isinstance(entry, str) else entry.symbols

    def _result_dtypes(self) -> Iterator[tuple[str, str]]:
        for where, result in _results("result", self.result):
            if isinstance(result, TensorResult | TensorListResult):
                yield where, result.dtype

    def _requires_grad_rules(self) -> Iterator[tuple[str, RequiresGrad]]:
        for where, result in _results("result", self.result):
            if isinstance(result, TensorResult | TensorListResult):
                yield where, result.requires_grad

    def _likes(self) -> Iterator[tuple[str, str]]:
        for where, result in _results("result", self.result):
            if isinstance(result, TensorListResult):
                yield where, result.like


def _tensor_specs(where: str, arg: object) -> Iterator[tuple[str, TensorArg]]:
    if isinstance(arg, TensorArg):
        yield where, arg
    elif isinstance(arg, TensorListArg):
        yield f"{where}.item", arg.item


def _results(where: str, result: object) -> Iterator[tuple[str, object]]:
    yield where, result
    if isinstance(result, TupleResult):
        for index, item in enumerate(result.items):
            yield from _results(f"{where}.items[{index}]", item)
    if isinstance(result, ListResult):
        yield from _results(f"{where}.item", result.item)


def _interval_symbols(interval: Interval) -> tuple[str, ...]:
    found: list[str] = []
    for bound in (interval.low, interval.high):
        if isinstance(bound.value, SizeExpression):
            found.extend(bound.value.symbols)
    return tuple(found)


TupleResult.model_rebuild()
ListResult.model_rebuild()
