"""`python -m app lti add-platform | add-deployment | list | remove-platform | rotate-key | jwks`: an operator
registers each LMS (docs/lti.md says where each value comes from in Canvas, Moodle and Blackboard)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import timedelta

from app.db import make_engine, make_session_factory
from app.errors import AppError
from app.identity import resolve_secret_key
from app.lti import keys, platforms
from app.migrate import upgrade
from app.settings import Settings


def setup(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = actions.add_parser("add-platform", help="register an LMS that launches PaperLab")
    add.add_argument("--title", default="", help="a name for people, e.g. 'University Canvas'")
    add.add_argument("--issuer", required=True, help="the platform's issuer (iss), e.g. https://canvas.instructure.com")
    add.add_argument("--client-id", required=True, help="the client id the platform gave PaperLab")
    add.add_argument("--auth-login-url", required=True, help="the platform's OIDC authorization endpoint")
    add.add_argument("--token-url", required=True, help="the platform's OAuth 2 access token endpoint")
    add.add_argument("--jwks-url", required=True, help="the platform's public key set (JWKS) URL")
    add.add_argument("--deployment", action="append", default=[], help="a deployment id allowed to launch (repeat)")
    add.add_argument("--token-audience", default=None, help="the token endpoint's audience, if not its URL")
    deployment = actions.add_parser("add-deployment", help="allow another deployment of a registered platform")
    for action in (deployment, actions.add_parser("remove-platform", help="forget a platform (and its links)")):
        action.add_argument("--issuer", required=True)
        action.add_argument("--client-id", required=True)
    deployment.add_argument("--deployment", required=True)
    actions.add_parser("list", help="list registered platforms and their deployments")
    actions.add_parser("rotate-key", help="make a new signing key now (the old one stays published a while)")
    actions.add_parser("jwks", help="print the published key set")


def run(args: argparse.Namespace) -> int:
    settings = Settings()
    engine = make_engine(settings.database_url)
    try:
        upgrade(engine)
        with make_session_factory(engine)() as session:
            if args.action == "add-platform":
                platform = platforms.add_platform(session=session, values=platforms.PlatformIn(
                    title=args.title, issuer=args.issuer, client_id=args.client_id, auth_login_url=args.auth_login_url,
                    auth_token_url=args.token_url, key_set_url=args.jwks_url, deployments=args.deployment,
                    auth_audience=args.token_audience))
                print(f"registered {platform.issuer} (client id {platform.client_id})")  # noqa: T201
            elif args.action == "add-deployment":
                platforms.add_deployment(session=session, issuer=args.issuer, client_id=args.client_id,
                                         deployment_id=args.deployment)
                print(f"deployment {args.deployment} may launch")  # noqa: T201
            elif args.action == "remove-platform":
                platforms.remove_platform(session=session, issuer=args.issuer, client_id=args.client_id)
                print(f"removed {args.issuer} (client id {args.client_id})")  # noqa: T201
            elif args.action == "list":
                for platform, deployments in platforms.list_platforms(session=session):
                    print(f"{platform.title}\t{platform.issuer}\t{platform.client_id}\t"  # noqa: T201
                          f"{','.join(deployments)}")
            elif args.action == "rotate-key":
                made = keys.make_key(session=session, secret_key=resolve_secret_key(settings),
                                     retire_old_after=timedelta(days=settings.lti_key_retire_days))
                print(f"new signing key {made.kid}")  # noqa: T201
            else:
                print(json.dumps(keys.published_jwks(session=session), indent=2))  # noqa: T201
    except AppError as exc:
        print(f"error: {exc.detail}", file=sys.stderr)  # noqa: T201
        return 2
    finally:
        engine.dispose()
    return 0
