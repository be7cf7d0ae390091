"""Command line: ``python -m spades replay PATH|-``, ``python -m spades verify PATH|-``,
``python -m spades arena ...``, ``python -m spades tourney simulate ...`` and, for the
site's operator, ``python -m spades account export|delete EMAIL [--database PATH]`` and
``python -m spades discord register`` (``/spades`` in Discord: docs/serving.md).

Imports: the core (``spades.arena`` for the arena, ``spades.tourney.simulate`` for the
tourney command); the account commands, ``spades.storage``, ``spades.account_export``
and ``spades.account_delete``, and the discord command ``spades.discord`` (inside their
function, so the rest runs without them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def replay(path: str) -> int:
    """Print the replay report of a record (spades-match/1 or /2: tricks per seat, score,
    bags and total per side); exit 0 valid, 1 illegal step, 2 not a record."""
    from .records import RecordError, replay_report

    try:
        report = replay_report(_read_json(path))
    except OSError as e:
        print(f"replay: cannot read {path}: {e.strerror}", file=sys.stderr)
        return 2
    except (ValueError, RecordError) as e:
        print(f"replay: not a match record: {e}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=1))
    return 0 if report["ok"] else 1


def _read_json(path: str) -> object:
    """The JSON document at ``path`` (``-``: standard input). Raises OSError, ValueError."""
    if path == "-":
        return json.loads(sys.stdin.read())
    with open(path, encoding="utf-8") as f:
        return json.loads(f.read())


def verify(path: str) -> int:
    """Check every finished hand's commitment and deal over the record's deck and seats
    (docs/fairness.md); print one JSON line; exit 0 all check, 1 one does not, 2 not a record."""
    from .fairness import NotARecord, verify_record

    try:
        report = verify_record(_read_json(path))
    except OSError as e:
        print(f"verify: cannot read {path}: {e.strerror}", file=sys.stderr)
        return 2
    except (ValueError, NotARecord) as e:
        print(f"verify: not a match record: {e}", file=sys.stderr)
        return 2
    print(json.dumps(report))
    return 0 if report["ok"] else 1


def default_database() -> str:
    """The database the site uses when started here: ``SPADES_DATABASE``, else the
    ``instance/spades.db`` beside the package (as ``spades.web.create_app`` finds it)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.environ.get("SPADES_DATABASE") or os.path.join(root, "instance", "spades.db")


def account(action: str, email: str, database: str | None) -> int:
    """``export``: print everything the site keeps about the account with ``email`` (the
    document of GET /me/data.json). ``delete``: delete the account for good. Exit 0 done,
    1 no such account."""
    from .storage import Store

    path = database or default_database()
    if "://" not in path and not os.path.exists(path):
        print(f"account: no database at {path}", file=sys.stderr)
        return 2
    store = Store(path)
    try:
        if action == "export":
            from .account_export import export_account

            document = export_account(store, email)
            if document is not None:
                print(json.dumps(document, ensure_ascii=False, indent=1))
                return 0
        else:
            from .account_delete import delete_account

            if delete_account(store, email.strip().lower()):
                print(f"The account of {email} is deleted.")
                return 0
    finally:
        store.close()
    print(f"There is no account with the email {email}.", file=sys.stderr)
    return 1


DISCORD_VARIABLES = ("SPADES_DISCORD_APP_ID", "SPADES_DISCORD_BOT_TOKEN")


def discord(action: str) -> int:
    """``register``: put the ``/spades`` command in place of the Discord application's
    commands (``SPADES_DISCORD_APP_ID``, ``SPADES_DISCORD_BOT_TOKEN``; ``SPADES_DISCORD_API``
    for another address of Discord's API, as tests use). Exit 0 done, 1 Discord refused
    or did not answer, 2 a variable missing. The token is never printed."""
    from .discord import API, COMMANDS, RegisterError, register

    missing = [name for name in DISCORD_VARIABLES if not os.environ.get(name, "").strip()]
    if missing:
        print(f"discord {action}: set {' and '.join(missing)} (docs/serving.md, \"/spades in Discord\")",
              file=sys.stderr)
        return 2
    app_id = os.environ["SPADES_DISCORD_APP_ID"].strip()
    try:
        names = register(app_id, os.environ["SPADES_DISCORD_BOT_TOKEN"].strip(),
                         api=os.environ.get("SPADES_DISCORD_API") or API)
    except RegisterError as e:
        print(f"discord {action}: {e}", file=sys.stderr)
        return 1
    print(f"Registered for application {app_id}: " + ", ".join(f"/{n}" for n in names))
    for command in COMMANDS:
        for sub in command.get("options", ()):
            print(f"  /{command['name']} {sub['name']}: {sub['description']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["arena"]:
        from .arena import main as arena_main
        from .arena import parser as arena_parser

        return arena_main(arena_parser("python -m spades arena").parse_args(argv[1:]))
    if argv[:1] == ["tourney"]:
        from .tourney.simulate import main as tourney_main

        return tourney_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m spades",
                                     epilog="python -m spades arena --help: the bot arena (BOTS.md); "
                                            "python -m spades tourney --help: tourney simulation")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="check and score a match record (RECORD.md)")
    p.add_argument("path", help="a record file, or - for standard input")
    p = sub.add_parser("verify", help="check each hand's deal against its revealed seed (docs/fairness.md)")
    p.add_argument("path", help="a record file, or - for standard input")
    p = sub.add_parser("account", help="an account's data, for its owner's request by email")
    p.add_argument("action", choices=("export", "delete"),
                   help="export: print everything kept about it (JSON); delete: delete it for good")
    p.add_argument("email", help="the account's email")
    p.add_argument("--database", help="SQLite file or PostgreSQL URL (default: SPADES_DATABASE, "
                                      "else instance/spades.db)")
    p = sub.add_parser("discord", help="/spades in Discord (docs/serving.md)")
    p.add_argument("action", choices=("register",),
                   help="register: put the /spades command in place of the application's commands "
                        "(SPADES_DISCORD_APP_ID, SPADES_DISCORD_BOT_TOKEN)")
    args = parser.parse_args(argv)
    if args.command == "discord":
        return discord(args.action)
    if args.command == "account":
        return account(args.action, args.email, args.database)
    return verify(args.path) if args.command == "verify" else replay(args.path)


if __name__ == "__main__":
    sys.exit(main())
