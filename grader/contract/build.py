"""A problem's generic checks: one battery per function with a contract (grader.contract.battery), and one
property search over those that ask for it (grader.contract.search), which reads the batteries. Composed here, so
that neither of those modules imports the other's importer.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from types import ModuleType

from grader.checks import Check
from grader.contract.battery import FunctionBattery
from grader.contract.clauses import GeneratedClause, function_clauses, search_clause
from grader.contract.draw import LegalInputs
from grader.contract.schema import FunctionContract
from grader.contract.search import search_check


def build_battery(slug: str, functions: Iterable[tuple[str, FunctionContract | None]], reference: ModuleType,
                  legal_inputs: dict[str, LegalInputs]) -> tuple[list[Check], list[GeneratedClause]]:
    """Every generic check of a problem, function by function, and the clauses they cover."""
    found: list[Check] = []
    clauses: list[GeneratedClause] = []
    batteries: list[FunctionBattery] = []
    for name, contract in functions:
        if contract is None:
            continue
        implementation = getattr(reference, name)
        defaults = {p.name: p.default for p in inspect.signature(implementation).parameters.values()
                    if p.default is not inspect.Parameter.empty and p.name in contract.args}
        battery = FunctionBattery(slug, name, contract, legal_inputs.get(name), defaults, reference=implementation)
        checks = battery.checks()
        cited = {clause for check in checks for clause in check.clauses}
        stated = function_clauses(name, contract, autograd=any(c.id.endswith(".autograd") for c in checks),
                                  same_tensor=bool(battery.same_tensor_cases),
                                  finite_differences=battery.finite_difference_case is not None)
        found.extend(checks)
        clauses.extend(clause for clause in stated if clause.id in cited)
        if contract.search_examples:
            batteries.append(battery)
    if batteries:
        found.append(search_check(batteries))
        clauses.append(search_clause())
    return found, clauses
