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
