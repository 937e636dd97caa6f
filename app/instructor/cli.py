"""`python -m app instructor add EMAIL [--password-stdin] | list | remove EMAIL`: operators make the accounts
(there is no sign-up page). The password is prompted for twice, or read from the first line of stdin."""

from __future__ import annotations

import argparse
import getpass
import sys

from app.db import make_engine, make_session_factory
from app.instructor.accounts import AccountError, add_instructor, list_instructors, remove_instructor
from app.migrate import upgrade
from app.settings import Settings


def setup(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = actions.add_parser("add", help="make an instructor account")
    add.add_argument("email")
    add.add_argument("--password-stdin", action="store_true", help="read the password from stdin's first line")
    actions.add_parser("list", help="list instructor accounts")
    remove = actions.add_parser("remove", help="remove an account and sign its sessions out")
    remove.add_argument("email")


def run(args: argparse.Namespace) -> int:
    engine = make_engine(Settings().database_url)
    try:
        upgrade(engine)
        with make_session_factory(engine)() as session:
            if args.action == "list":
                for instructor in list_instructors(session=session):
                    print(f"{instructor.email}\t{instructor.created_at.isoformat()}")  # noqa: T201 - CLI output
            elif args.action == "add":
                add_instructor(session=session, email=args.email, password=_password(args.password_stdin))
                print(f"added instructor {args.email.strip().lower()}")  # noqa: T201
            else:
                remove_instructor(session=session, email=args.email)
                print(f"removed instructor {args.email.strip().lower()}")  # noqa: T201
    except AccountError as exc:
        print(f"error: {exc.detail}", file=sys.stderr)  # noqa: T201
        return 2
    finally:
        engine.dispose()
    return 0


def _password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Password again: ") != first:
        raise AccountError("The two passwords differ.")
    return first


def setup_regrade(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("slugs", nargs="*", metavar="SLUG", help="problems to regrade (default: every problem)")
    parser.add_argument("--all-attempts", action="store_true",
                        help="every stale attempt, not only each learner's latest")


def run_regrade(args: argparse.Namespace) -> int:
    """Plan, then grade through the configured path: the Celery queue when CELERY_BROKER_URL is set (the web
    server's workers grade), else here, one at a time, with the same runner the web server uses."""
    from app.catalog import load_catalog
    from app.grading import make_backend, make_event_bus
    from app.grading.runner import grade_submission
    from app.instructor.regrade import feed_one, plan_regrades, progress
    from grader import WorkerPool

    settings = Settings()
    engine = make_engine(settings.database_url)
    upgrade(engine)
    sessions = make_session_factory(engine)
    catalog = load_catalog(settings.problems_dir)
    unknown = [slug for slug in args.slugs if slug not in catalog]
    if unknown:
        print(f"error: no problem {', '.join(unknown)} on this server", file=sys.stderr)  # noqa: T201
        return 2
    with sessions() as session:
        planned = plan_regrades(session=session, problems=catalog, slugs=args.slugs or None,
                                all_attempts=args.all_attempts)
    print(f"planned {planned} regrade(s)")  # noqa: T201
    bus = make_event_bus(settings)
    pool = None
    if settings.celery_broker_url:
        backend = make_backend(settings=settings, session_factory=sessions, problems=catalog, bus=bus)

        def submit(submission_id: str, submitter: object) -> None:
            backend.submit(submission_id, submitter=submitter)  # type: ignore[arg-type]

        def waiting() -> int:
            return backend.health().queue_depth
    else:
        pool = WorkerPool(size=1, unsafe=settings.unsafe_no_sandbox)
        pool.start()

        def submit(submission_id: str, submitter: object) -> None:
            grade_submission(session_factory=sessions, submission_id=submission_id, problems=catalog, pool=pool,
                             bus=bus)

        def waiting() -> int:
            return 0
    try:
        while True:
            fed = feed_one(session_factory=sessions, submit=submit, learners_waiting=waiting)
            with sessions() as session:
                state = progress(session=session)
            print(f"regrades: {state.done} done, {state.queued} queued, {state.pending} pending",  # noqa: T201
                  flush=True)
            if not state.running:
                return 0
            if not fed:
                import time

                time.sleep(1.0)
    finally:
        if pool is not None:
            pool.close()
        engine.dispose()
