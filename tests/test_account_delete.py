"""Deleting one's account for good: the erase on both engines (nothing of the email or the
name left in the database, scanned byte by byte on SQLite and row by row on PostgreSQL),
what stays for the people who played with them, circles handed over or closed, a new
account with no history on signing in again; and over HTTP: a wrong confirmation
refused with its sentence and nothing changed, the right one signed out everywhere
with the person's open socket closed."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FakeClock, csrf_of, open_ws, start_practice
from helpers.accounts import play_stored

from spades.account_delete import delete_account
from spades.accounts import Accounts
from spades.rules_config import Rules
from spades.storage import (
    AddBoardTable,
    ClaimBoardSeats,
    NewBoardWeek,
    NewCircle,
    NewNight,
    NewTourney,
    PutCircleMember,
    PutCircleResult,
    PutNightAnswer,
    PutTourneyPlayer,
    PutTourneyTeam,
    SaveLine,
    SeatRow,
    Store,
)
from spades.storage.boards import BoardWeekRow
from spades.storage.circles import CircleMemberRow, CircleResultRow, CircleRow
from spades.storage.nights import NightRow
from spades.storage.rows import ChatRow, TourneyPlayerRow, TourneyRow, TourneyTeamRow
from spades.web.accounts.delete import REFUSED

EMAIL = "zed.quill@example.com"  # the person deleted, and their name: neither is in any other text
NAME = "Zedquill"
ASKER = "browser-1"
T = 1_800_000_000.0


@pytest.fixture
def store(database) -> Iterator[Store]:
    """On each engine (``database``: tests/servers.py)."""
    s = Store(database)
    yield s
    s.close()


def play(store: Store, code: str, seats: list[SeatRow], seed: str) -> int:
    """A one-hand match played at random, stored move by move as the table service does: its id."""
    rules = Rules(end="hands", hands=1)
    store.create_table(code, seats[0].player_id, {"level": "normal"}, seats, seed, rules.to_dict())
    play_stored(store, code, rules, seed)
    return store.load_table(code).match.id


def scene(store: Store) -> tuple[Accounts, str, str]:
    """Zed (to be deleted) and Bob, who played a match together; Zed's chat, report, mute,
    push subscription, session, sign-in code, rating, night answer, board week, a circle
    Zed owns with Bob and Cy in it (Bob the longest-standing) and one Zed is alone in."""
    accounts = Accounts(store, "secret", FakeClock())
    zed, _ = accounts.sign_in(EMAIL, None, NAME, "🦊")
    bob, _ = accounts.sign_in("bob@example.com", None, "Bob", "🐻")
    cy, _ = accounts.sign_in("cy@example.com", None, "Cy", "🐱")
    accounts.new_session(zed.id)
    accounts.request_code(EMAIL, ASKER)
    seats = [SeatRow(0, "human", zed.id, NAME), SeatRow(1, "human", bob.id, "Bob"),
             SeatRow(2, "bot", None, "Rex"), SeatRow(3, "bot", None, "Kit")]
    match_id = play(store, "ZZZZZZ", seats, "d1")
    accounts.rate_pending()
    store.commit([SaveLine("ZZZZZZ", ChatRow(1, T, zed.id, NAME, "🦊", 0, "players", "text", f"hi, {NAME} here")),
                  SaveLine("ZZZZZZ", ChatRow(2, T + 1, bob.id, "Bob", "🐻", 1, "players", "text", "hello"))])
    store.save_report("ZZZZZZ", store.chat_line("ZZZZZZ", 2), zed.id, NAME)  # Zed reports Bob's line ...
    store.save_report("ZZZZZZ", ChatRow(3, T + 2, zed.id, NAME, "🦊", 0, "players", "text", "rude words"),
                      bob.id, "Bob")  # ... and Bob a line of Zed's, with Zed's first line as its context
    store.set_mute(zed.id, bob.id, True)
    store.set_block(bob.id, zed.id, True)
    store.add_push_subscription(zed.id, "https://push.example.net/zed-quill", "key", "auth")
    store.commit([
        NewCircle(CircleRow("club", "Club", zed.id, T, "n1", T)),
        PutCircleMember("club", CircleMemberRow(zed.id, "owner", "in", T)),
        PutCircleMember("club", CircleMemberRow(cy.id, "member", "in", T + 20)),
        PutCircleMember("club", CircleMemberRow(bob.id, "member", "in", T + 10)),
        PutCircleResult("club", CircleResultRow(match_id, 1, "ZZZZZZ", 1, T, True,
                                                tuple((s.kind, s.player_id, s.name) for s in seats),
                                                ((0, 2), (1, 3)), (120, 40), 0)),
        NewCircle(CircleRow("solo", "Solo", zed.id, T, "n2", T)),
        PutCircleMember("solo", CircleMemberRow(zed.id, "owner", "in", T)),
        NewNight(NightRow("night1", "club", "2027-01-07T20:00", "UTC", T + 86400, True, "2027-01-07T20:00", 0,
                          "scheduled", T, zed.id)),
        PutNightAnswer("night1", 0, zed.id, "yes", T),
        PutNightAnswer("night1", 0, bob.id, "maybe", T),
        NewBoardWeek(BoardWeekRow("week1", "club", 1, Rules().to_dict(), "s", T, T + 7 * 86400, None, T, zed.id)),
        AddBoardTable("week1", "ZZZZZZ", T),
        ClaimBoardSeats("week1", "ZZZZZZ", (zed.id, bob.id), T),
        NewTourney(TourneyRow("CUP", "Cup", "knockout", None, 8, None, 600.0, True, True, zed.id, "finished", T)),
        PutTourneyTeam("CUP", TourneyTeamRow(1, "tok", False, False, "in")),
        PutTourneyPlayer("CUP", TourneyPlayerRow(1, 0, zed.id, NAME, "🦊", False)),
        PutTourneyPlayer("CUP", TourneyPlayerRow(1, 1, bob.id, "Bob", "🐻", False)),
    ])
    return accounts, zed.id, bob.id


def hits(store: Store, *needles: str) -> dict[str, int]:
    """How often each needle (lowercased) is in the database itself: SQLite's file and its
    -wal file, byte by byte after a checkpoint; PostgreSQL's every row of every table."""
    if store.engine == "sqlite":
        check = sqlite3.connect(store.path)
        check.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        check.close()
        files = [Path(store.path), Path(store.path + "-wal")]
        data = b"".join(f.read_bytes() for f in files if f.exists()).lower()
        return {n: data.count(n.lower().encode()) for n in needles}
    with store.transaction() as db:
        tables = [r["table_name"] for r in db.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' "
            "AND table_type = 'BASE TABLE'")]
        return {n: sum(next(iter(db.query(f'SELECT COUNT(*) AS n FROM "{t}" AS x WHERE lower(x::text) LIKE ?',
                                          [f"%{n.lower()}%"])))["n"] for t in tables) for n in needles}


def test_deleting_leaves_no_trace_of_the_email_or_name_and_others_keep_their_history(store):
    accounts, zed, bob = scene(store)
    assert all(hits(store, EMAIL, NAME).values())  # the scan finds them before
    bob_before = [(p.seat, p.match.scores, p.match.winner) for p in accounts.played(bob)]
    rating_before = accounts.rating(bob)
    [result_before] = store.circle_results("club")

    assert delete_account(store, "  Zed.Quill@EXAMPLE.com ") is True

    assert hits(store, EMAIL, NAME) == {EMAIL: 0, NAME: 0}
    # Bob's history is as it was, the seat renamed
    assert [(p.seat, p.match.scores, p.match.winner) for p in accounts.played(bob)] == bob_before
    after = accounts.rating(bob)
    assert (after.mu, after.sigma, after.matches) == (rating_before.mu, rating_before.sigma, rating_before.matches)
    [(_, names)] = [store.finished_match("ZZZZZZ")]
    assert names == ("A former player", "Bob", "Rex", "Kit")
    [result] = store.circle_results("club")
    assert result.scores == result_before.scores and result.winner == result_before.winner
    assert [s[2] for s in result.seats] == ["A former player", "Bob", "Rex", "Kit"]
    assert result.seats[0][1] not in (zed, None)
    cup = store.load_tourney("CUP")
    assert [(p.slot, p.name) for p in cup.players] == [(0, "A former player"), (1, "Bob")]
    assert cup.players[1].player_id == bob and cup.players[0].player_id not in (zed, None)
    # the chat keeps its place; the reports keep Bob's words, not Zed's
    assert [(x.number, x.name, x.text) for x in store.chat_lines("ZZZZZZ")] == [
        (1, "A former player", "[deleted]"), (2, "Bob", "hello")]
    [report] = store.reports()
    assert report.reporter == bob and "rude" not in repr(report)
    # the club passes to Bob (in before Cy), the circle Zed was alone in is closed
    assert store.circle("club").owner == bob
    assert {m.person: m.role for m in store.circle_members("club")} == {
        bob: "owner", **{m.person: "member" for m in store.circle_members("club") if m.person != bob}}
    assert store.circle("solo") is None
    # gone: the account, its rating, mutes, blocks, pushes; a second delete finds nothing
    assert store.user_by_email(EMAIL) is None and accounts.rating(zed) is None
    assert store.muted(zed) == frozenset() and store.blocked(bob) == frozenset()
    assert store.push_subscriptions(zed) == []
    assert delete_account(store, EMAIL) is False
    # signing in again makes a new account with no history
    again, _ = accounts.sign_in(EMAIL, None, "", "")
    assert again.id != zed and accounts.played(again.id) == [] and accounts.rating(again.id) is None
    assert store.person_circles(again.id) == [] and store.player_games(again.id) == []


def test_no_account_for_the_email_deletes_nothing(store):
    accounts, zed, bob = scene(store)
    assert delete_account(store, "nobody@example.com") is False
    assert store.user_by_email(EMAIL).id == zed and store.circle("solo") is not None


# -- over HTTP ------------------------------------------------------------------------
def sign_in(client, smtp, email: str) -> None:
    """Ask for a code, read it from the mail, type it."""
    assert client.post("/signin", data={"csrf": csrf_of(client), "email": email}).status_code == 303
    code = re.search(r"\b(\d{6})\b", smtp.wait_for(email.lower()).text).group(1)
    assert client.post("/signin/code", data={"csrf": csrf_of(client), "code": code}).status_code == 303


def test_a_wrong_confirmation_is_refused_and_changes_nothing(mail_app, smtp):
    phone = mail_app.test_client()
    sign_in(phone, smtp, EMAIL)
    me = phone.get("/me").get_data(as_text=True)
    assert "Delete my account" in me and "A former player" in me
    for typed in ("", "zed@example.com", "not an address"):
        r = phone.post("/me/delete", data={"csrf": csrf_of(phone), "confirm": typed})
        page = r.get_data(as_text=True)
        assert r.status_code == 400 and REFUSED in page and 'id="delete-account"' in page
    assert mail_app.extensions["spades.accounts"].store.user_by_email(EMAIL) is not None
    assert EMAIL in phone.get("/me").get_data(as_text=True)  # still signed in


def test_the_right_confirmation_deletes_signs_out_everywhere_and_closes_sockets(mail_app, live_server,
                                                                                smtp):
    from simple_websocket import ConnectionClosed

    mail_app.config["SESSION_CHECK_S"] = 0.2
    phone, laptop = mail_app.test_client(), mail_app.test_client()
    sign_in(phone, smtp, EMAIL)
    code = start_practice(phone)
    sign_in(laptop, smtp, EMAIL.upper())
    ws = open_ws(live_server, code, phone.get_cookie("session").value)
    try:
        assert 'id="hand"' in ws.receive(timeout=5)
        r = laptop.post("/me/delete", data={"csrf": csrf_of(laptop), "confirm": " Zed.Quill@Example.COM"})
        assert r.status_code == 303 and r.headers["Location"] == "/"
        with pytest.raises(ConnectionClosed):
            while True:  # updates may still be on their way; then the socket is closed
                if ws.receive(timeout=5) is None:
                    raise AssertionError("the socket stayed open after the account was deleted")
    finally:
        if ws.connected:
            ws.close()
    for client in (phone, laptop):  # signed out on both devices
        page = client.get("/me").get_data(as_text=True)
        assert EMAIL not in page and "Not signed in" in page
    assert mail_app.extensions["spades.accounts"].store.user_by_email(EMAIL) is None
    # signing in again: a new account, an empty profile
    sign_in(phone, smtp, EMAIL)
    assert phone.get("/games").status_code == 200
    assert code not in phone.get("/games").get_data(as_text=True)
