"""The one allowance the cgroup v2 guest makes for software emulation: a warm template may take minutes, not
the pool's 120 s, to start (it imports torch; under TCG on a busy 2-core host that measured 100 s and more).
Everything else, the sandbox and its cgroups included, runs as it does in production."""

from __future__ import annotations

TEMPLATE_START_S = 900.0


def allow_slow_template_start() -> None:
    from grader import pool, template

    template.TEMPLATE_START_TIMEOUT_S = TEMPLATE_START_S
    template.Template.start.__defaults__ = (TEMPLATE_START_S,)  # bound when the method was defined
    session = pool.WorkerPool.session.__wrapped__  # type: ignore[attr-defined]  # under @contextmanager
    session.__kwdefaults__ = {**session.__kwdefaults__, "wait_s": TEMPLATE_START_S}
