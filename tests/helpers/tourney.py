"""Tourneys: teams registered, tables played, directors and settling."""

from __future__ import annotations

import time

from conftest import csrf_of

from spades.tables import EMOJIS, Continue, Player, Refused, TableService
from spades.tourney import TourneyService

INSTANT = {"slow": 0.0, "normal": 0.0, "fast": 0.0}
DIRECTOR = "director"


def register_teams(tourneys: TourneyService, code: str, n: int, prefix: str = "t") -> dict[int, tuple[str, str]]:
    """``n`` complete teams through the team link; team id -> its two people."""
    teams = {}
    for i in range(n):
        a, b = f"{prefix}{i}a", f"{prefix}{i}b"
        token = tourneys.register_team(code, a, f"A{prefix}{i}", EMOJIS[i % len(EMOJIS)])
        teams[tourneys.join_team(code, token, b, f"B{prefix}{i}", EMOJIS[(i + 1) % len(EMOJIS)])] = (a, b)
    return teams


def settle(tables: TableService, tourneys: TourneyService) -> None:
    for _ in range(3):
        assert tables.wait_idle(10)
        assert tourneys.wait_idle(10)


def play_table(tables: TableService, code: str, contribution: str = "") -> None:
    """The people at the table play their first legal card and press Continue (offering
    ``contribution`` for the next deal) until the match is over; the bots move on their own."""
    end = time.monotonic() + 20
    while time.monotonic() < end:
        tables.wait_idle(10)
        view = tables.snapshot(code, None).view.to_json()
        if view["finished"]:
            return
        seats = tables.seats(code)
        try:
            if view["phase"] == "hand_over":
                for s in seats:
                    if s.kind == "human":
                        tables.handle(code, Player(s.player_id), Continue(view["version"], contribution))
            elif seats[view["to_act"]].kind == "human":
                pid = seats[view["to_act"]].player_id
                mine = tables.snapshot(code, pid).view.to_json()
                tables.act(code, Player(pid), mine["legal"][0], mine["version"])
        except Refused:
            continue  # dealt already, or a bot moved first: look again
    raise AssertionError(f"table {code} did not finish")


def ready_all(tourneys: TourneyService, code: str, people: list[str]) -> None:
    """Everyone whose team has a match waiting presses Ready."""
    for pid in people:
        mine = tourneys.view(code, pid).my_match
        if mine is not None and not mine.ready:
            tourneys.ready(code, pid)


def everyone(teams: dict[int, tuple[str, str]]) -> list[str]:
    return [pid for pair in teams.values() for pid in pair]


def create(client, **fields) -> object:
    """A tourney by link (a listed one needs its director signed in)."""
    data = {"csrf": csrf_of(client), "tourney_name": "Friday cup", "format": "knockout", "team_limit": "4",
            "start": "director", "listed": "", "name": "Ann", "emoji": "🐼", **fields}
    return client.post("/t/new", data=data)


def new_tourney(client, **fields) -> str:
    r = create(client, **fields)
    assert r.status_code == 303, r.get_data(as_text=True)
    return r.headers["Location"].rsplit("/", 1)[1]
