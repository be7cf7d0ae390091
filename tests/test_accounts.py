"""Accounts without the web: sign-in codes (hash only, expiry, single use, voiding, five
tries), moving a browser's seats to its account, session generations, ratings."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import FakeClock
from helpers.accounts import finished_match

from spades.accounts import (
    CODE_TTL,
    MAX_TRIES,
    Accounts,
    BadCode,
    BadEmail,
    Expired,
    NoCode,
    TooManyTries,
    WrongCode,
    hash_code,
    normalize_email,
)
from spades.rules_config import Rules
from spades.storage import SeatRow, Store


@pytest.fixture
def store(database) -> Iterator[Store]:
    """On each engine (``database``: tests/servers.py)."""
    s = Store(database)
    yield s
    s.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def accounts(store, clock) -> Accounts:
    return Accounts(store, "secret", clock)


ASKER = "browser-1"  # the session id of the browser that asks for codes in these tests


def wrong(code: str) -> str:
    return f"{(int(code) + 1) % 10**6:06d}"


def test_a_code_is_six_digits_stored_only_as_its_hash(accounts, store):
    code = accounts.request_code("Ann@Example.com", ASKER)
    assert len(code) == 6 and code.isdigit()
    with store.transaction() as db:
        rows = list(db.query("SELECT * FROM login_codes"))
    assert len(rows) == 1 and rows[0]["email"] == "ann@example.com"
    assert code not in str(rows[0]) and rows[0]["code_hash"] == hash_code("secret", "ann@example.com", code)
    accounts.check_code("ann@example.com", ASKER, f"{code[:3]} {code[3:]}")  # spaces are fine


def test_a_code_works_once(accounts):
    code = accounts.request_code("ann@example.com", ASKER)
    accounts.check_code("ann@example.com", ASKER, code)
    with pytest.raises(NoCode):
        accounts.check_code("ann@example.com", ASKER, code)


def test_asking_again_voids_the_previous_code(accounts):
    first = accounts.request_code("ann@example.com", ASKER)
    second = accounts.request_code("ann@example.com", ASKER)
    if first != second:
        with pytest.raises(WrongCode):
            accounts.check_code("ann@example.com", ASKER, first)
    accounts.check_code("ann@example.com", ASKER, second)


def test_a_code_expires_after_ten_minutes(accounts, clock):
    code = accounts.request_code("ann@example.com", ASKER)
    clock.now += CODE_TTL
    with pytest.raises(Expired, match="expired"):
        accounts.check_code("ann@example.com", ASKER, code)
    fresh = accounts.request_code("ann@example.com", ASKER)
    accounts.check_code("ann@example.com", ASKER, fresh)


def test_five_wrong_tries_lock_the_code_and_say_when_to_ask_again(accounts, clock):
    code = accounts.request_code("ann@example.com", ASKER)
    for left in range(MAX_TRIES - 1, 0, -1):
        with pytest.raises(WrongCode, match=f"That code is not right. You have {left} tr") as e:
            accounts.check_code("ann@example.com", ASKER, wrong(code))
        assert e.value.tries_left == left
    with pytest.raises(TooManyTries, match="in 10 minutes"):
        accounts.check_code("ann@example.com", ASKER, wrong(code))
    with pytest.raises(TooManyTries):  # even the right code is refused now
        accounts.check_code("ann@example.com", ASKER, code)
    clock.now += 4 * 60
    with pytest.raises(TooManyTries, match="in 6 minutes"):
        accounts.request_code("ann@example.com", ASKER)
    clock.now += 6 * 60
    accounts.check_code("ann@example.com", ASKER, accounts.request_code("ann@example.com", ASKER))


def test_a_stranger_can_neither_void_nor_burn_another_browsers_code(accounts):
    mine = accounts.request_code("ann@example.com", ASKER)
    theirs = accounts.request_code("ann@example.com", "stranger")  # asking for Ann's address elsewhere
    if mine != theirs:
        with pytest.raises(WrongCode):  # Ann's code is not the stranger's to try
            accounts.check_code("ann@example.com", "stranger", mine)
    for _ in range(MAX_TRIES - (mine != theirs)):  # every try of the stranger's code, wrong
        with pytest.raises((WrongCode, TooManyTries)):
            accounts.check_code("ann@example.com", "stranger", wrong(theirs))
    with pytest.raises(TooManyTries):  # the stranger's browser is held up ...
        accounts.request_code("ann@example.com", "stranger")
    accounts.check_code("ann@example.com", ASKER, mine)  # ... Ann's code still works in her browser
    accounts.request_code("ann@example.com", ASKER)  # and she may ask again at once


def test_malformed_input_costs_no_try(accounts):
    code = accounts.request_code("ann@example.com", ASKER)
    for text in ("", "12345", "1234567", "abcdef", "١٢٣٤٥٦"):
        with pytest.raises(BadCode):
            accounts.check_code("ann@example.com", ASKER, text)
    accounts.check_code("ann@example.com", ASKER, code)


@pytest.mark.parametrize("text", ["", "ann", "ann@", "@example.com", "ann@example", "a b@example.com",
                                  "ann@@example.com", "x" * 250 + "@example.com", "ann@exa_mple.com"])
def test_malformed_emails(text):
    with pytest.raises(BadEmail):
        normalize_email(text)


def test_no_code_for_an_address_never_asked(accounts):
    with pytest.raises(NoCode):
        accounts.check_code("bob@example.com", ASKER, "123456")


def seat_anonymous(store: Store, code: str, pid: str, seed: str = "s") -> None:
    store.ensure_player(pid, "Ann", "🦊")
    seats = [SeatRow(0, "human", pid, "Ann")] + [SeatRow(s, "bot", None, n)
                                                 for s, n in ((1, "Rex"), (2, "Bea"), (3, "Kit"))]
    store.create_table(code, pid, {"kind": "practice", "level": "normal"}, seats, seed, Rules().to_dict())


def test_first_sign_in_moves_the_browsers_seats_name_and_emoji(accounts, store):
    seat_anonymous(store, "AAAAAA", "anon-1")
    user, moved = accounts.sign_in("ann@example.com", "anon-1")
    assert moved == ["AAAAAA"] and user.id != "anon-1"
    assert (user.name, user.emoji) == ("Ann", "🦊")
    assert [g.code for g in store.player_games(user.id)] == ["AAAAAA"]
    assert store.player_games("anon-1") == []
    assert store.load_table("AAAAAA").host == user.id
    # a second browser, with its own anonymous game, signs in to the same account
    seat_anonymous(store, "BBBBBB", "anon-2")
    again, moved = accounts.sign_in("ANN@example.com", "anon-2")
    assert again.id == user.id and moved == ["BBBBBB"]
    assert sorted(g.code for g in store.player_games(user.id)) == ["AAAAAA", "BBBBBB"]


def test_an_account_switching_browser_takes_nothing_along(accounts, store):
    ann, _ = accounts.sign_in("ann@example.com", None, "Ann", "")
    seat_anonymous(store, "CCCCCC", ann.id)  # Ann's own game
    bob, moved = accounts.sign_in("bob@example.com", ann.id)
    assert moved == [] and [g.code for g in store.player_games(ann.id)] == ["CCCCCC"]
    assert store.player_games(bob.id) == []


def test_a_seat_left_to_a_bot_is_not_the_leavers(accounts, store):
    seat_anonymous(store, "DDDDDD", "anon-3")
    with store.transaction() as db:
        db.execute("UPDATE seats SET kind = 'bot', player_id = NULL, left_player_id = 'anon-3' "
                   "WHERE table_code = 'DDDDDD' AND seat = 0")
    assert store.player_games("anon-3") == []
    user, _ = accounts.sign_in("ann@example.com", "anon-3")
    assert store.player_games(user.id) == []
    with store.transaction() as db:
        left = list(db.query("SELECT left_player_id FROM seats WHERE table_code = 'DDDDDD' AND seat = 0"))
    assert left == [{"left_player_id": user.id}]


def test_sign_out_everywhere_ends_older_sessions(accounts):
    user, _ = accounts.sign_in("ann@example.com", None, "Ann", "")
    sid = accounts.new_session(user.id)
    assert accounts.session_valid(user.id, 0, sid)
    gen = accounts.sign_out_everywhere(user.id)
    assert gen == 1 and not accounts.session_valid(user.id, 0, sid) and not accounts.session_valid(user.id, 1, sid)
    later = accounts.new_session(user.id)
    assert accounts.session_valid(user.id, 1, later) and not accounts.session_valid("u-nobody", 0, later)


def test_a_signed_out_session_is_over_for_every_copy_of_its_cookie(accounts):
    user, _ = accounts.sign_in("ann@example.com", None, "Ann", "")
    mine, other = accounts.new_session(user.id), accounts.new_session(user.id)
    accounts.end_session(mine)
    assert not accounts.session_valid(user.id, 0, mine) and accounts.session_valid(user.id, 0, other)
    assert not accounts.session_valid(user.id, 0, None)  # a cookie from before sessions had ids


def test_ratings_rise_for_winners_once_per_match_and_never_for_a_leaver(accounts, store):
    people = [SeatRow(s, "human", f"p{s}", f"P{s}") for s in range(4)]
    m = finished_match(store, "EEEEEE", people, "r1")
    assert m.winner is not None  # this seed's hand is not a draw
    assert accounts.rate_pending() == 1 and accounts.rate_pending() == 0
    winners = [f"p{s}" for s in range(4) if s % 2 == m.winner]
    losers = [f"p{s}" for s in range(4) if s % 2 != m.winner]
    for w in winners:
        for loser in losers:
            assert accounts.rating(w).mu > accounts.rating(loser).mu
    assert accounts.rating(winners[0]).matches == 1
    # a table where p0 left and a bot took the seat: p0's rating does not move
    before = accounts.rating("p0")
    finished_match(store, "FFFFFF", people, "r3", left=0)
    assert accounts.rate_pending() == 1
    after = accounts.rating("p0")
    assert (after.mu, after.sigma, after.matches) == (before.mu, before.sigma, before.matches)
    assert accounts.rating("p1").matches == 2
    assert accounts.rating("bot:normal:0").matches == 1


def test_played_replays_every_match_from_the_persons_seat(accounts, store):
    people = [SeatRow(s, "human", f"q{s}", f"Q{s}") for s in range(4)]
    m = finished_match(store, "GGGGGG", people, "g1")
    [played] = accounts.played("q1")
    assert played.seat == 1 and played.match.scores == m.scores and played.match.finished


def test_a_rematch_with_new_seats_keeps_each_finished_match_as_it_was_played(accounts, store):
    people = [SeatRow(s, "human", f"w{s}", f"W{s}") for s in range(4)]
    first = finished_match(store, "KKKKKK", people, "k1")
    # the rematch: w1 and w2 swap seats (a new partner for w0)
    swapped = [people[0], SeatRow(1, "human", "w2", "W2"), SeatRow(2, "human", "w1", "W1"), people[3]]
    second = finished_match(store, "KKKKKK", swapped, "k2", number=2)
    seats = {p.number: p.seat for p in accounts.played("w1")}
    assert seats == {1: 1, 2: 2}
    outcomes = [p.outcome for p in accounts.played("w1")]
    assert outcomes == [("won" if m.winner == s % 2 else "lost" if m.winner is not None else "drawn")
                        for m, s in ((first, 1), (second, 2))]
    assert accounts.rate_pending() == 2 and accounts.rating("w1").matches == 2


def test_a_person_who_left_mid_match_is_not_counted_in_it(accounts, store):
    people = [SeatRow(s, "human", f"v{s}", f"V{s}") for s in range(4)]
    finished_match(store, "LLLLLL", people, "l1", left=2)
    assert accounts.played("v2") == [] and store.player_games("v2") == []
    assert len(accounts.played("v0")) == 1


def test_the_rating_is_shown_on_a_familiar_scale_with_a_rank_among_people(accounts, store):
    people = [f"q{s}" for s in range(4)]
    with store.transaction() as db:
        for pid, (mu, sigma) in {"q0": (30.0, 2.0), "q1": (25.0, 2.0), "q2": (25.0, 25 / 3),
                                 "bot:hard:1": (40.0, 1.0)}.items():
            db.execute("INSERT INTO ratings (player_id, mu, sigma, matches, updated) VALUES (?, ?, ?, 3, 0)",
                       [pid, mu, sigma])
    first, second, newcomer = (accounts.rating(p) for p in people[:3])
    assert (first.rank, second.rank, newcomer.rank) == (1, 2, 3)  # the bot is not among the people
    assert first.players == second.players == 3
    assert newcomer.shown == 1000 and first.shown == 1600 and second.shown == 1475
    assert accounts.rating("q3") is None
