"""Command line: ``python -m spades replay PATH|-`` and ``python -m spades arena ...``.

Imports: the core (and ``spades.arena`` for the arena).
"""

from __future__ import annotations

import argparse
import json
import sys


def replay(path: str) -> int:
    """Print the replay report of a record; exit 0 valid, 1 illegal step, 2 not a record."""
    from .records import RecordError, replay_report

    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
        record = json.loads(text)
        report = replay_report(record)
    except OSError as e:
        print(f"replay: cannot read {path}: {e.strerror}", file=sys.stderr)
        return 2
    except (ValueError, RecordError) as e:
        print(f"replay: not a match record: {e}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=1))
    return 0 if report["ok"] else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spades")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="check and score a match record (RECORD.md)")
    p.add_argument("path", help="a record file, or - for standard input")
    a = sub.add_parser("arena", help="play bots against each other (BOTS.md)")
    a.add_argument("--team0", required=True)
    a.add_argument("--team1", required=True)
    a.add_argument("--matches", type=int, default=20)
    a.add_argument("--rules", default="{}")
    a.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "replay":
        return replay(args.path)
    from .arena import main as arena_main

    return arena_main(args)


if __name__ == "__main__":
    sys.exit(main())
