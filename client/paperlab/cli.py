"""The `paperlab` command: solve PaperLab problems from your own editor.

    paperlab login URL             store an API token made on the site's /continue page (asked for, not echoed)
    paperlab list                  tracks and problems, with your progress
    paperlab fetch SLUG [DIR]      statement.md, SLUG.py (the starter), helpers.py, try_SLUG.py
    paperlab test FILE             grade FILE on the server; verdicts stream in; exit 0 only when solved
    paperlab try FILE [SCRIPT]     run the "Try it" script after FILE, in the server's sandbox
    paperlab notebook SLUG [PATH]  a Jupyter notebook with the statement, the starter and a test cell
    paperlab logout                revoke the token on the server and forget it here

Exit status: 0 done (for `test`: solved), 1 not solved or the script raised, 2 a usage or problem error,
3 not logged in or the token refused, 4 the server unreachable or broken. Each subcommand is one function
registered with @command, as in `python -m app`."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from paperlab import __version__
from paperlab.api import Client
from paperlab.credentials import Credentials, forget_credentials, load_credentials, normalise_url, save_credentials
from paperlab.errors import PaperLabError, TokenRefused, UsageError
from paperlab.events import ReportEvent
from paperlab.notebook import write_notebook
from paperlab.schemas import ProblemProgress, Submission
from paperlab.terminal import RunDisplay, format_duration, wants_colour
from paperlab.workspace import problem_for, read_source, script_for, write_workspace

CommandSetup = Callable[[argparse.ArgumentParser], Callable[[argparse.Namespace], int]]
_COMMANDS: dict[str, tuple[str, CommandSetup]] = {}

SOLVED, NOT_SOLVED = 0, 1


def command(name: str, help: str) -> Callable[[CommandSetup], CommandSetup]:
    def register(setup: CommandSetup) -> CommandSetup:
        _COMMANDS[name] = (help, setup)
        return setup

    return register


def say(text: str, stream: TextIO | None = None) -> None:
    print(text, file=stream or sys.stdout, flush=True)


def waiting(seconds: int, reason: str) -> None:
    """A refusal that says when to come back: the command waits, and says so (on stderr: stdout is the result)."""
    say(f"{reason} Waiting {seconds} s, as the server asks…", sys.stderr)


def connect(on_wait: Callable[[int, str], None] = waiting) -> Client:
    credentials = load_credentials()
    return Client(credentials.url, credentials.token, on_wait=on_wait)


# ----------------------------------------------------------------------------------------------- login/logout


@command("login", "store an API token for a PaperLab site (made on its /continue page)")
def login(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.add_argument("url", help="the site, e.g. https://paperlab.example.edu")
    parser.add_argument("--token-stdin", action="store_true",
                        help="read the token from standard input (a pipe) instead of asking for it")  # fmt: skip

    def run(args: argparse.Namespace) -> int:
        url = normalise_url(args.url)
        token = _read_token(from_stdin=args.token_stdin, url=url)
        with Client(url, token, on_wait=waiting) as client:
            info = client.current_token()
        path = save_credentials(Credentials(url=url, token=token))
        say(f"Logged in to {url} with the token “{info.name}” ({info.prefix}…), which works until "
            f"{info.expires_at[:10]}. Saved in {path} (readable by you alone).")  # fmt: skip
        say("Next: `paperlab list`, then `paperlab fetch SLUG`.")
        return 0

    return run


def _read_token(*, from_stdin: bool, url: str) -> str:
    """Never from the command line: arguments end up in shell history and in other users' `ps`."""
    if from_stdin or not sys.stdin.isatty():
        token = sys.stdin.readline().strip()
    else:
        say(f"Make a token at {url}/continue (\"Solve from your editor or notebook\"), then paste it here.")
        token = getpass.getpass("API token (not shown): ").strip()
    if not token:
        raise UsageError("No token given. Paste the token the page showed you when you made it.")
    return token


@command("logout", "revoke this machine's API token on the server and forget it here")
def logout(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        with connect() as client:
            try:
                client.revoke_current_token()
                revoked = f"Revoked the token on {client.url}"
            except TokenRefused:  # revoked or expired already: nothing left to revoke
                revoked = f"The token no longer worked on {client.url}"
        forget_credentials()
        say(f"{revoked}, and forgot it here.")
        return 0

    return run


# ----------------------------------------------------------------------------------------------- list/fetch


@command("list", "the tracks and problems, with your progress")
def list_problems(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        with connect() as client:
            catalogue = client.catalogue()
        rows = [p for track in catalogue.tracks for p in track.problems] + catalogue.others
        width = max((len(p.slug) for p in rows), default=0)
        for track in catalogue.tracks:
            say(f"{track.title}  ({track.solved} / {track.total} solved)")
            for number, problem in enumerate(track.problems, 1):
                say(_problem_row(problem, width, f"{number:>2}."))
            say("")
        if catalogue.others:
            say("Other problems" if catalogue.tracks else "Problems")
            for problem in catalogue.others:
                say(_problem_row(problem, width, "  -"))
        say("\n`paperlab fetch SLUG` downloads one to work on.")
        return 0

    return run


def _problem_row(problem: ProblemProgress, width: int, bullet: str) -> str:
    return f"  {bullet} {problem.slug.ljust(width)}  {problem.progress_label:<19}  {problem.difficulty:<6}  " \
           f"{problem.title}"


@command("fetch", "write a problem's statement, starter, helpers.py and Try it script into a folder")
def fetch(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.add_argument("slug", help="the problem (see `paperlab list`)")
    parser.add_argument("directory", nargs="?", type=Path, help="where (default: ./SLUG)")
    parser.add_argument("--force", action="store_true", help="replace files that are there already")

    def run(args: argparse.Namespace) -> int:
        with connect() as client:
            problem = client.problem(args.slug)
            directory = args.directory or Path(problem.slug)
            written = write_workspace(problem, directory, url=client.url, force=args.force)
        say(f"{problem.title}: wrote {', '.join(str(path) for path in written)}.")
        solution = directory / f"{problem.slug}.py"
        say(f"Next: write {', '.join(f.name for f in problem.functions)} in {solution}, then "
            f"`paperlab test {solution}`; `paperlab try {solution}` runs try_{problem.slug}.py after it.")  # fmt: skip
        return 0

    return run


# ----------------------------------------------------------------------------------------------- test/try


@command("test", "grade a file on the server; the verdicts stream in; exit 0 only when solved")
def test(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.add_argument("file", type=Path, help="your solution, e.g. moco/moco.py")
    parser.add_argument("--problem", metavar="SLUG", help="which problem (default: the folder's, from fetch)")
    parser.add_argument("-v", "--verbose", action="store_true", help="every check, passed ones too")

    def run(args: argparse.Namespace) -> int:
        code = read_source(args.file)
        slug = problem_for(args.file, args.problem)
        out = sys.stdout
        display = RunDisplay(out, colour=wants_colour(out), live=out.isatty(), verbose=args.verbose)
        with connect(on_wait=lambda seconds, reason: display.say(
                f"{reason} Waiting {seconds} s, as the server asks…")) as client:  # fmt: skip
            problem = client.problem(slug)
            say(f"Testing {args.file} against {problem.title} ({problem.check_count} checks) on {client.url}")
            submission_id = client.submit(slug, code)
            final = _follow(client, submission_id, display)
        say(f"Attempt: {client.url}/submissions/{submission_id}")
        if final.report is not None and final.report.solved:
            say(f"Notes unlocked: {client.url}/problems/{slug}/notes")
            return SOLVED
        return NOT_SOLVED

    return run


def _follow(client: Client, submission_id: str, display: RunDisplay) -> Submission:
    """Show the events until the report. Ctrl-C stops the grading, as the page's Stop button does, and the
    report of what ran until then still comes; a second Ctrl-C leaves at once."""
    try:
        for event in client.follow(submission_id):
            display.show(event)
            if isinstance(event, ReportEvent):
                return event.submission
    except KeyboardInterrupt:
        display.say("Stopping the grading (Ctrl-C again leaves without waiting)…")
        client.stop(submission_id)
        for event in client.follow(submission_id):
            display.show(event)
            if isinstance(event, ReportEvent):
                return event.submission
    raise AssertionError("Client.follow always ends with the report")


@command("try", "run the Try it script after your file, in the server's sandbox (nothing is graded)")
def try_script(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.add_argument("file", type=Path, help="your solution, e.g. moco/moco.py")
    parser.add_argument("script", nargs="?", type=Path, help="the script (default: the folder's try_SLUG.py)")
    parser.add_argument("--problem", metavar="SLUG", help="which problem (default: the folder's, from fetch)")

    def run(args: argparse.Namespace) -> int:
        code = read_source(args.file)
        slug = problem_for(args.file, args.problem)
        script_path = script_for(args.file, args.script)
        script = read_source(script_path)
        with connect() as client:
            result = client.run_script(slug, code, script)
        if result.stdout:
            sys.stdout.write(result.stdout if result.stdout.endswith("\n") else result.stdout + "\n")
        error = result.error
        if error is None:
            say(f"Your script finished in {format_duration(result.duration_ms)}.", sys.stderr)
            return 0
        where = f" on line {error.line} of your {'script' if error.where == 'script' else 'code'}" if error.line else ""
        title = (f"{error.type}{where}" if error.kind == "exception"
                 else "Limit reached" if error.kind == "limit" else "Sandbox error")  # fmt: skip
        say(result.stderr.rstrip("\n") if result.stderr else error.message, sys.stderr)
        say(f"Your script stopped: {title}, after {format_duration(result.duration_ms)}.", sys.stderr)
        return NOT_SOLVED

    return run


# ----------------------------------------------------------------------------------------------- notebook


@command("notebook", "write a Jupyter notebook for a problem: statement, starter and a test cell")
def notebook(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    parser.add_argument("slug", help="the problem (see `paperlab list`)")
    parser.add_argument("path", nargs="?", type=Path, help="the notebook (default: ./SLUG.ipynb)")
    parser.add_argument("--force", action="store_true", help="replace files that are there already")

    def run(args: argparse.Namespace) -> int:
        with connect() as client:
            problem = client.problem(args.slug)
            path = args.path or Path(f"{problem.slug}.ipynb")
            written = write_notebook(problem, path, url=client.url, force=args.force)
        say(f"{problem.title}: wrote {', '.join(str(p) for p in written)}. Open it in Jupyter, VS Code or Colab; "
            "its last cell runs the tests (the extension comes with this command: `pip install paperlab-client"
            "[notebook]` where Jupyter runs).")  # fmt: skip
        return 0

    return run


# ----------------------------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="paperlab", description="Solve PaperLab problems from your own editor: fetch, test, try.",
        epilog="Exit status: 0 done (test: solved), 1 not solved, 2 usage or problem error, 3 not logged in or "
        "token refused, 4 server unreachable or broken.",
    )  # fmt: skip
    parser.add_argument("--version", action="version", version=f"paperlab {__version__}")
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (help_text, setup) in _COMMANDS.items():
        subparser = subcommands.add_parser(name, help=help_text, description=help_text)
        subparser.set_defaults(run=setup(subparser))
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
    except PaperLabError as exc:
        say(f"paperlab: {exc.message}", sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        say("paperlab: interrupted.", sys.stderr)
        return 130
    except BrokenPipeError:  # `paperlab list | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes
        return 0
    return result
