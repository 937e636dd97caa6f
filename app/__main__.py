"""`python -m app serve [--host H] [--port P]` and `python -m app worker [--concurrency N]`. Each subcommand
is one function registered with @command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

CommandSetup = Callable[[argparse.ArgumentParser], Callable[[argparse.Namespace], int]]
_COMMANDS: dict[str, tuple[str, CommandSetup]] = {}


def command(name: str, help: str) -> Callable[[CommandSetup], CommandSetup]:
    """Register a subcommand: the decorated function adds its arguments and returns the function to run."""

    def register(setup: CommandSetup) -> CommandSetup:
        _COMMANDS[name] = (help, setup)
        return setup

    return register


@command("serve", "run the web app (in-process grading unless CELERY_BROKER_URL is set)")
def serve(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    parser.add_argument(
        "--proxy-headers",
        action="store_true",
        help="take the client address from X-Forwarded-For, only from the proxies in FORWARDED_ALLOW_IPS "
        "(default 127.0.0.1); the limits per network address count by it",
    )

    parser.add_argument(
        "--author",
        action="store_true",
        help="for problem authors: show the author banner (PAPERLAB_AUTHOR_MODE=1); edits to problem folders "
        "are picked up while it runs either way (PAPERLAB_PROBLEMS_RELOAD_S)",
    )

    def run(args: argparse.Namespace) -> int:
        import logging

        from app.main import create_app
        from app.serving import make_server
        from app.settings import Settings

        # uvicorn configures only its own loggers; the app's (skipped problem folders, grader failures) go here.
        logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s:     %(name)s: %(message)s")
        settings = Settings(author_mode=True) if args.author else Settings()  # the environment fills in the rest
        bundle = settings.static_dir / "dist" / "app.js"
        if not bundle.is_file():  # pages would come without styles, editor, maths or charts, and say nothing
            sys.stderr.write(
                f"error: the front-end bundle {bundle} is missing, so every page would be unstyled, without the "
                "editor, maths or charts. Build it with `npm ci && npm run build` (or `make setup`), then start "
                "the server again.\n"
            )
            return 2
        server = make_server(
            create_app(settings), host=args.host, port=args.port, log_level=args.log_level,
            proxy_headers=args.proxy_headers,
        )
        server.run()
        return 0

    return run


@command("worker", "run a Celery grading worker with warm sandboxes (needs CELERY_BROKER_URL and DATABASE_URL)")
def worker(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="grading processes, each with one warm sandbox (default PAPERLAB_GRADING_CONCURRENCY)",
    )
    parser.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )

    def run(args: argparse.Namespace) -> int:
        from app.grading.celery_consumer import run_worker

        return run_worker(concurrency=args.concurrency, loglevel=args.log_level)

    return run


@command("instructor", "add, list or remove instructor accounts (add prompts for the password)")
def instructor(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    from app.instructor import cli

    cli.setup(parser)
    return cli.run


@command("regrade", "grade again each learner's latest attempt that a changed problem made stale")
def regrade(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    from app.instructor import cli

    cli.setup_regrade(parser)
    return cli.run_regrade


@command("lti", "register LMSs that launch PaperLab (LTI 1.3), list them, rotate the tool's signing key")
def lti(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    from app.lti import cli

    cli.setup(parser)
    return cli.run


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m app", description="PaperLab web app")
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (help_text, setup) in _COMMANDS.items():
        subparser = subcommands.add_parser(name, help=help_text, description=help_text)
        subparser.set_defaults(run=setup(subparser))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
