"""The table in motion, in real Chromium: a played card flies to the trick, a finished
trick goes to its winner, a new hand fans in, nothing is left displaced or behind once the
table is still, and under prefers-reduced-motion nothing moves at all.

Each page gets a recorder before its scripts run: every ``Element.animate`` call is
logged with what it moved, on which element and from how far into the animation it
started, and every animation frame counts the running animations. While ``motionHold``
is set, each new animation is paused where it starts, so a test can have the table change
while a card is in flight however slow the machine, and see where the flight goes on from."""

from __future__ import annotations

import dataclasses
import re

from helpers.browser import version, wait_for_me
from playwright.sync_api import Page, expect

RECORDER = """(() => {
  window.motionLog = [];
  window.motionMost = 0;
  window.motionFrames = 0;
  window.motionHold = false;
  const animate = Element.prototype.animate, ids = new WeakMap();  // each element animated: its number
  Element.prototype.animate = function (frames, options) {
    if (!ids.has(this)) ids.set(this, window.motionLog.length);
    const entry = {card: this.dataset.card || null, face: this.matches("#felt .trick .face"),
                   hand: this.matches("#hand .card"), ghost: this.classList.contains("motion-ghost"),
                   delay: (options && options.delay) || 0, el: ids.get(this), at: null};
    window.motionLog.push(entry);
    const a = animate.call(this, frames, options);
    if (window.motionHold) a.pause();
    Promise.resolve().then(() => { entry.at = a.currentTime; });  // once the caller set where it starts
    return a;
  };
  const count = () => { window.motionMost = Math.max(window.motionMost, document.getAnimations().length);
                        window.motionFrames++; requestAnimationFrame(count); };
  requestAnimationFrame(count);
})();"""

STILL = "() => document.getAnimations().length === 0 && !document.querySelector('.motion-layer > *')"

# every face inside its slot, every card of the hand in the fan, none of them transformed
PLACES = """() => {
  const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1
    && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
  const faces = [...document.querySelectorAll("#felt .trick .face")];
  const cards = [...document.querySelectorAll("#hand .card")];
  return {
    faces: faces.length, cards: cards.length,
    astray: faces.filter(f => !inside(f.getBoundingClientRect(), f.parentNode.getBoundingClientRect()))
      .map(f => f.dataset.card)
      .concat(cards.filter(c => !inside(c.getBoundingClientRect(), c.closest(".fan").getBoundingClientRect()))
        .map(c => c.dataset.card)),
    moved: [...faces, ...cards]
      .filter(e => getComputedStyle(e).transform !== "none" || getComputedStyle(e).opacity !== "1")
      .map(e => e.dataset.card),
  };
}"""


def start_practice_page(page: Page, live_server: str) -> None:
    page.add_init_script(RECORDER)
    page.goto(live_server + "/")
    page.get_by_role("button", name="Practice now").click()
    page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
    expect(page.locator("body.live")).to_have_count(1, timeout=10000)
    expect(page.locator(".bidbox")).to_be_visible(timeout=15000)
    prev = version(page)
    page.get_by_role("button", name="Bid", exact=True).click()
    wait_for_me(page, prev)


def play_cards(page: Page, count: int) -> list[str]:
    """Play the first legal card ``count`` times, each once it is this seat's turn again."""
    played = []
    for _ in range(count):
        prev = version(page)
        card = page.locator(".fan.playable .card.legal").first
        played.append(card.get_attribute("data-card"))
        card.click()
        wait_for_me(page, prev)
    return played


def log(page: Page) -> list[dict]:
    return page.evaluate("() => window.motionLog")


def settled(page: Page) -> dict:
    """Where everything is once nothing moves, with the pointer off the hand and the focus
    out of it (a card under the pointer or with the focus is raised on purpose: that is hover
    or the turn's first card given the focus, not motion left behind)."""
    page.mouse.move(1, 1)
    page.evaluate("() => { const a = document.activeElement; if (a && a.closest('#hand')) a.blur(); }")
    # the card that was under the pointer starts its way back down only once the page has
    # seen the pointer leave (a frame later, on a loaded machine): wait for that, then for
    # the transitions it starts to end
    page.wait_for_function("() => !document.querySelector('#hand .card:hover, #hand .card:focus')", timeout=10000)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.wait_for_function(STILL, timeout=10000)
    return page.evaluate(PLACES)


def table_of_four(app, service, code: str) -> tuple[list[str], str]:
    """A table of four people without clocks, where nothing moves but what the test moves:
    the people's ids by seat, and seat 0's session cookie."""
    from spades.rules_config import Rules
    from spades.storage import SeatRow

    people = [f"{code.lower()}-{s}" for s in range(4)]
    service.store.create_table(code, people[0], {"kind": "friends", "level": "easy", "humans": 4},
                               [SeatRow(s, "human", people[s], name, "🦊")
                                for s, name in enumerate(["Ann", "Bo", "Cy", "Di"])],
                               "motion", dataclasses.asdict(Rules(tempo="off")))
    client = app.test_client()
    with client.session_transaction() as session:
        session["pid"], session["csrf"] = people[0], "token"
    client.get("/")
    return people, client.get_cookie("session").value


def move(service, code: str, people: list[str], action: str | None = None) -> int:
    """The seat to act bids 3 or plays its first legal card (or makes ``action``); the
    table's version after it."""
    from spades.tables import Player

    v = service.snapshot(code, None).view.to_json()
    seat = v["to_act"]
    if action is None:
        action = "3" if v["phase"] == "bidding" else service.snapshot(code, people[seat]).view.to_json()["legal"][0]
    service.act(code, Player(people[seat]), action, v["version"])
    return service.snapshot(code, None).view.to_json()["version"]


def open_table(live_server, browser, code: str, cookie: str, **context_options):
    """Seat 0's page of table ``code`` with the recorder, live."""
    context = browser.new_context(**context_options)
    context.add_cookies([{"name": "session", "value": cookie, "url": live_server}])
    page = context.new_page()
    page.add_init_script(RECORDER)
    page.goto(f"{live_server}/g/{code}")
    expect(page.locator("body.live")).to_have_count(1, timeout=10000)
    return context, page


SHOWS = "v => Number(document.getElementById('turn').dataset.version) >= v"  # the table at version v or later
ANIMATIONS = """card => {  // the animations of that card's face on the felt now
  const el = document.querySelector(`#felt .trick .face[data-card="${card}"]`);
  return el ? el.getAnimations().map(a => ({state: a.playState, at: a.currentTime})) : null;
}"""


def click_a_card(page: Page) -> str:
    """This seat plays its first legal card by clicking it; once the page shows the move."""
    prev = int(version(page))
    card = page.locator(".fan.playable .card.legal").first
    played = card.get_attribute("data-card")
    card.click()
    page.wait_for_function(SHOWS, arg=prev + 1, timeout=15000)
    return played


def test_a_played_card_flies_to_the_trick_and_the_trick_to_its_winner(app, live_server, browser, service):
    code = "FLIES1"
    people, cookie = table_of_four(app, service, code)
    while (v := service.snapshot(code, None).view.to_json())["phase"] == "bidding" or v["to_act"] != 0:
        move(service, code, people)  # everyone bids, and the trick comes round to seat 0
    context, page = open_table(live_server, browser, code, cookie)
    try:
        # each flight waits where it starts: the table changes while this seat's card is in
        # flight, however slow the machine
        page.evaluate("() => { window.motionHold = true; }")
        mine = click_a_card(page)
        page.wait_for_function("card => window.motionLog.some(m => m.face && m.card === card && m.at !== null)",
                               arg=mine, timeout=15000)
        first = next(m for m in log(page) if m["face"] and m["card"] == mine)
        assert first["at"] == 0, first  # it flew from the hand, from the start

        # the next seat plays: a new felt comes over the socket, and the card flies on in it
        # from where it was drawn (not from the time since it set off)
        theirs = service.snapshot(code, people[service.snapshot(code, None).view.match.to_act]).view.own.legal[0]
        page.wait_for_function(SHOWS, arg=move(service, code, people, theirs), timeout=15000)
        faces = [m for m in log(page) if m["face"] and m["card"] == mine]
        assert len({m["el"] for m in faces}) >= 2, faces  # a new face in each new felt
        assert page.evaluate(ANIMATIONS, mine) == [{"state": "paused", "at": first["at"]}], faces
        # the other seat's card came over the socket and flew in from its plate
        assert any(m["face"] and m["card"] == theirs for m in log(page)), log(page)

        # the flights land; the trick is finished and the next card led: the trick goes to its winner
        page.evaluate("() => { window.motionHold = false; document.getAnimations().forEach(a => a.play()); }")
        played = [mine]
        for _ in range(8):
            if any(m["ghost"] for m in log(page)):
                break
            if service.snapshot(code, None).view.to_json()["to_act"] == 0:
                played.append(click_a_card(page))
            else:
                page.wait_for_function(SHOWS, arg=move(service, code, people), timeout=15000)
        assert any(m["ghost"] for m in log(page)), log(page)
        places = settled(page)
        assert places["faces"] >= 1 and places["cards"] == 13 - len(played)
        assert places["astray"] == [] and places["moved"] == [], places
    finally:
        context.close()


def hand_over_table(app, service, code: str) -> str:
    """A table of four people where a whole hand was played and everyone but seat 0 has
    pressed Continue; returns seat 0's session cookie."""
    from spades.tables import Player

    people, cookie = table_of_four(app, service, code)
    while service.snapshot(code, None).view.to_json()["phase"] != "hand_over":
        move(service, code, people)
    for seat in (1, 2, 3):
        service.act(code, Player(people[seat]), "deal", service.snapshot(code, None).view.to_json()["version"])
    return cookie


def open_hand_over(app, live_server, browser, service, code: str, **context_options):
    context, page = open_table(live_server, browser, code, hand_over_table(app, service, code), **context_options)
    expect(page.locator("#felt .trick.last .face")).to_have_count(4)
    return context, page


def test_the_deal_fans_in_and_the_last_trick_goes_to_its_winner(app, live_server, browser, service):
    context, page = open_hand_over(app, live_server, browser, service, "FANIN1")
    try:
        assert log(page) == []  # the page and the socket's first picture: nothing moves
        page.get_by_role("button", name="Continue").click()
        expect(page.locator("#hand .card")).to_have_count(13)
        fanned = [m for m in log(page) if m["hand"]]
        assert len({m["card"] for m in fanned}) == 13, fanned
        delays = sorted({m["delay"] for m in fanned})
        assert len(delays) == 13 and delays[0] == 0, delays  # staggered, one after another
        assert len([m for m in log(page) if m["ghost"]]) == 4  # the last trick's four cards
        places = settled(page)
        assert places == {"faces": 0, "cards": 13, "astray": [], "moved": []}, places
    finally:
        context.close()


def test_reduced_motion_moves_no_card(live_server, page: Page):
    page.emulate_media(reduced_motion="reduce")
    start_practice_page(page, live_server)
    play_cards(page, 3)
    assert log(page) == []
    assert page.evaluate("() => window.motionMost") == 0
    places = settled(page)
    assert places["astray"] == [] and places["moved"] == [], places


def test_reduced_motion_deals_without_a_fan(app, live_server, browser, service):
    context, page = open_hand_over(app, live_server, browser, service, "FANIN2", reduced_motion="reduce")
    try:
        page.get_by_role("button", name="Continue").click()
        expect(page.locator("#hand .card")).to_have_count(13)
        frames = page.evaluate("() => window.motionFrames")  # a fan would show within these frames
        page.wait_for_function("(n) => window.motionFrames > n + 20", arg=frames, timeout=3000)
        assert log(page) == []
        assert page.evaluate("() => window.motionMost") == 0
        assert page.locator(".motion-layer > *").count() == 0
    finally:
        context.close()
