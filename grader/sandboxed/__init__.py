"""The sandbox side of the engine: the only code that runs inside the sandbox, beside the learner's.

The rule, held by tests/test_imports.py: nothing outside this package imports it (the judge side, app/, the CLI;
the benchmark's in-process floor alone runs its serving code, unsandboxed, to measure what isolation costs),
and nothing outside it runs inside the sandbox, except grader/protocol/, the wire format both sides speak. The
sandbox gets copies of exactly these files (grader.sandbox.WORKER_FILES) and no other file of the project.

One concept per module:

- `worker`: the entry point (`python -I worker.py template FD ...`); private builtins, the private importer.
- `importer`: loads this package's modules and the protocol with the worker's private builtins, and forgets
  them before the learner's code loads.
- `template_server`: the warm template, which forks one child per submission and wipes what the last one left
  (`wipe`).
- `child_loop`: a child's life: load the submission, then answer the judge's requests until it hangs up.
- `learner_thread`: the thread the learner's code runs on, its call clock, and its printed output.
- `learner_side`: what that thread runs; its namespace is the learner's to walk, so it imports nothing.
- `guard`: the audit hook that refuses frame introspection, raw memory and /proc's secrets; hiding the worker.
- `rlimits`: the resource limits each child sets for itself.
- `serving`: one call of the learner's function and the facts about it (result, raised, gradients, writes).
- `torch_state`: which code torch runs for the worker's own operations, compared before and after each request.
- `seccomp`: the system-call filter each child installs on itself.

It reports facts; it decides nothing. The judge outside holds the checks, the reference and the verdicts
(docs/engine.md, "Trust").
"""
