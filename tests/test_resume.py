"""A socket back from a drop: the page sends the last change it applied and gets what
changed since, in one frame, when the hub still remembers that change; otherwise the
whole table. Either way the page ends up as a fresh one would be."""

from __future__ import annotations

import dataclasses
import random
import re

from helpers.frames import frames

from spades import bots
from spades.rules_config import Rules
from spades.storage import SeatRow
from spades.tables import Player, load_state
from spades.tables.commands.talk import Say
from spades.web.table.hub import BEHIND, Connection

FRAGMENT = re.compile(r'<(\w+) id="([\w-]+)"[^>]*hx-swap-oob="[^"]*">.*?</\1>(?=<\w+ id="[\w-]+"[^>]*hx-swap-oob|$)',
                      re.S)
PLAYERS = [f"r{s}" for s in range(4)]


def table(service, code: str) -> None:
    service.store.create_table(code, PLAYERS[0], {"level": "easy"},
                               [SeatRow(s, "human", PLAYERS[s], f"R{s}") for s in range(4)],
                               "resume", dataclasses.asdict(Rules()))


def moves(service, code: str, n: int, rng: random.Random, pump=lambda: None) -> None:
    """``n`` moves; ``pump`` after each (the other sockets at the table send their frames)."""
    for _ in range(n):
        pump()
        v = service.snapshot(code, None).view.to_json()
        person = load_state(service.store, code).persons()[v["to_act"]]
        sv = service.snapshot(code, person).view.to_json()
        service.act(code, Player(person), bots.choose(sv, "easy", rng.randrange(1 << 30)), sv["version"])
    pump()


def apply(page: dict[str, str], frame: str) -> dict[str, str]:
    """A page's fragments after an update (each replaced whole, by id)."""
    found = {m.group(2): m.group(0) for m in FRAGMENT.finditer(frame)}
    assert found, frame[:200]
    return {**page, **found}


def unstamped(page: dict[str, str]) -> dict[str, str]:
    return {k: re.sub(r' data-v="\d+"', "", v) for k, v in page.items()}


def seq_of(page: dict[str, str]) -> int:
    return int(re.search(r'data-seq="(\d+)"', page["turn"]).group(1))


def test_a_socket_back_from_a_drop_gets_what_changed_since_its_change_in_one_frame(app, service):
    hub = app.extensions["spades.hub"]
    code = "RESUM1"
    table(service, code)
    watcher = Connection(code, "", "127.0.0.1", "t")  # someone else stays at the table meanwhile
    first = Connection(code, PLAYERS[1], "127.0.0.1", "t")
    assert hub.open(watcher) is None and hub.open(first) is None
    rng = random.Random(3)
    moves(service, code, 6, rng)
    page: dict[str, str] = {}
    for frame in frames(hub, first):
        page = apply(page, frame)
    hub.close(first)  # the network drops
    moves(service, code, 7, rng, lambda: frames(hub, watcher))  # bids and cards meanwhile

    back = Connection(code, PLAYERS[1], "127.0.0.1", "t", since=seq_of(page))
    assert hub.open(back) is None
    (caught_up,) = frames(hub, back)
    page = apply(page, caught_up)
    fresh = Connection(code, PLAYERS[1], "127.0.0.1", "t")
    assert hub.open(fresh) is None
    whole = apply({}, frames(hub, fresh)[0])
    # the page is as a fresh one (a fragment that did not change keeps its older stamp)
    assert unstamped(page) == unstamped(whole)
    assert len(caught_up) < len("".join(whole.values()))
    assert 'id="sheet"' not in caught_up and 'id="hand"' in caught_up  # the sheet did not change; its own part comes

    # a page that is up to date gets its own part and nothing public but the turn
    again = Connection(code, PLAYERS[1], "127.0.0.1", "t", since=seq_of(page))
    assert hub.open(again) is None
    (same,) = frames(hub, again)
    assert re.findall(r'<\w+ id="([\w-]+)"', same) == ["turn", "told", "hand", "next", "announce"]


def test_a_change_the_hub_no_longer_remembers_gets_the_whole_table(app, service):
    hub = app.extensions["spades.hub"]
    code = "RESUM2"
    table(service, code)
    watcher = Connection(code, "", "127.0.0.1", "t")
    assert hub.open(watcher) is None
    moves(service, code, 3, random.Random(4))
    back = Connection(code, PLAYERS[2], "127.0.0.1", "t", since=1)  # older than anything remembered
    assert hub.open(back) is None
    (whole,) = frames(hub, back)
    ids = set(re.findall(r'<\w+ id="([\w-]+)"[^>]*hx-swap-oob', whole))
    assert {"turn", "status", "scores", "plate-0", "plate-3", "trick", "sheet", "told", "hand"} <= ids


def test_a_socket_that_fell_behind_sends_one_frame_of_the_newest_change_and_every_line_said(app, service):
    hub = app.extensions["spades.hub"]
    code = "RESUM3"
    table(service, code)
    slow = Connection(code, PLAYERS[0], "127.0.0.1", "t")
    assert hub.open(slow) is None
    rng = random.Random(5)
    moves(service, code, 5, rng)  # it sends nothing meanwhile: a slow reader
    service.handle(code, Player(PLAYERS[2]), Say("well played"))
    moves(service, code, 4, rng)
    assert slow.queue.qsize() >= 10

    first, line, last = frames(hub, slow)  # the changes before the line, the line, the changes after
    assert "well played" in line and "well played" not in first + last
    page = apply(apply({}, first), last)
    fresh = Connection(code, PLAYERS[0], "127.0.0.1", "t")
    assert hub.open(fresh) is None
    whole = apply({}, frames(hub, fresh)[0])
    assert unstamped(page) == {**unstamped(whole), "announce": unstamped(page)["announce"]}
    assert seq_of(page) == seq_of(whole)
    # the screen readers are told each of the four moves it skipped, oldest first, the
    # newest as a fresh page tells it
    told = re.findall(r'<span data-v="(\d+)">([^<]*)</span>', last)
    assert len(told) == 4 and [int(at) for at, _ in told] == sorted(int(at) for at, _ in told)
    assert len({words for _, words in told}) == 4
    assert told[-1] == re.search(r'<span data-v="(\d+)">([^<]*)</span>', whole["announce"]).groups()
    # the next frame holds only what the next move changed
    moves(service, code, 1, rng)
    (frame,) = frames(hub, slow)
    assert 0 < len(frame) < len("".join(whole.values())) / 2
    assert unstamped(apply(page, frame)) == unstamped(apply(whole, frames(hub, fresh)[0]))


def test_a_socket_a_few_changes_behind_sends_each_in_turn_and_one_far_behind_skips(app, service):
    """A page whose socket's loop was busy for a moment (running the move it sent, while
    the bots answered) sends each change waiting, so that the page sees every card played
    (a trick completed, then the next lead: the trick's flight to its winner); one with
    ``BEHIND`` changes waiting or more sends one frame of the newest."""
    hub = app.extensions["spades.hub"]
    code = "RESUM5"
    table(service, code)
    conn = Connection(code, PLAYERS[0], "127.0.0.1", "t")
    assert hub.open(conn) is None
    frames(hub, conn)  # the table as it is
    rng = random.Random(11)
    moves(service, code, BEHIND - 1, rng)
    assert len(frames(hub, conn)) == BEHIND - 1
    moves(service, code, BEHIND + 2, rng)
    assert len(frames(hub, conn)) == 1


def test_a_movers_page_redrawn_by_its_answer_is_told_its_next_turn_by_its_socket(app, service):
    """A mover's answer redraws its whole page. When its socket's frame of that move has not
    gone out before the others move (a socket behind by a change or two), the frame it
    sends for its next turn still tells it "Your turn", though that is what it sent the
    turn before: at each of seat 0's turns its page is told what a fresh page is."""
    hub = app.extensions["spades.hub"]
    code = "RESUM4"
    table(service, code)
    mine = Connection(code, PLAYERS[0], "127.0.0.1", "t")
    assert hub.open(mine) is None
    rng = random.Random(7)

    def to_act() -> int:
        return service.snapshot(code, None).view.to_json()["to_act"]

    page: dict[str, str] = {}
    for _ in range(14):  # seat 0's bid and its thirteen cards
        while to_act() != 0:
            moves(service, code, 1, rng)
        for f in frames(hub, mine):
            page = apply(page, f)
        fresh = Connection(code, PLAYERS[0], "127.0.0.1", "t")
        assert hub.open(fresh) is None
        whole = apply({}, frames(hub, fresh)[0])
        hub.close(fresh)
        assert unstamped(page)["told"] == unstamped(whole)["told"]
        moves(service, code, 1, rng)  # seat 0 moves: its answer, not its socket, redraws its page
        page = apply(page, hub.fragments(service.snapshot(code, PLAYERS[0]), PLAYERS[0], "t"))
