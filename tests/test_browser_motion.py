"""The table in motion, in real Chromium: a played card flies to the trick, a finished
trick goes to its winner, a new hand fans in, nothing is left displaced or behind once the
table is still, and under prefers-reduced-motion nothing moves at all.

Each page gets a recorder before its scripts run: every ``Element.animate`` call is
logged with what it moved, every animation frame counts the running animations, and every
card that was ever a face on the felt is noted."""

from __future__ import annotations

import dataclasses
import re

from playwright.sync_api import Page, expect
from test_browser import version, wait_for_me

RECORDER = """(() => {
  window.motionLog = [];
  window.motionMost = 0;
  window.motionFrames = 0;
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (frames, options) {
    window.motionLog.push({card: this.dataset.card || null, face: this.matches("#felt .trick .face"),
                           hand: this.matches("#hand .card"), ghost: this.classList.contains("motion-ghost"),
                           delay: (options && options.delay) || 0});
    return animate.call(this, frames, options);
  };
  const count = () => { window.motionMost = Math.max(window.motionMost, document.getAnimations().length);
                        window.motionFrames++; requestAnimationFrame(count); };
  requestAnimationFrame(count);
  window.motionShown = [];
  new MutationObserver(() => document.querySelectorAll("#felt .trick .face[data-card]").forEach(el => {
    if (!window.motionShown.includes(el.dataset.card)) window.motionShown.push(el.dataset.card);
  })).observe(document, {childList: true, subtree: true});
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
    """Where everything is once nothing moves, with the pointer off the hand (a card under
    the pointer is raised on purpose: that is hover, not motion left behind)."""
    page.mouse.move(1, 1)
    page.wait_for_function(STILL, timeout=3000)
    return page.evaluate(PLACES)


def test_a_played_card_flies_to_the_trick_and_the_trick_to_its_winner(live_server, page: Page):
    start_practice_page(page, live_server)
    played = play_cards(page, 3)
    moved, shown = log(page), page.evaluate("() => window.motionShown")
    # each of this seat's cards the felt showed flew into the trick (on a busy machine the
    # socket may bring the bots' moves first, the trick already swept: that card never
    # showed, and the answer to the click, older, is not swapped in)
    assert set(played) & set(shown), (played, shown)
    for card in set(played) & set(shown):
        assert any(m["face"] and m["card"] == card for m in moved), (card, moved)
    # the bots answer at once: their updates came mid-flight, and the flight went on in the new felt
    assert any(sum(m["face"] and m["card"] == card for m in moved) >= 2 for card in played), moved
    # the bots' cards came over the socket and flew in from their plates
    assert {m["card"] for m in moved if m["face"]} - set(played)
    # at least one finished trick went to its winner (on a busy machine the socket may bring
    # the next lead before the whole trick showed: nothing to sweep then, so play on a little)
    for _ in range(4):
        if any(m["ghost"] for m in log(page)):
            break
        played += play_cards(page, 1)
    assert any(m["ghost"] for m in log(page)), log(page)
    places = settled(page)
    assert places["faces"] >= 1 and places["cards"] == 13 - len(played)
    assert places["astray"] == [] and places["moved"] == [], places


def hand_over_table(app, service, code: str) -> str:
    """A table of four people where a whole hand was played and everyone but seat 0 has
    pressed Continue; returns seat 0's session cookie."""
    from spades.rules_config import Rules
    from spades.storage import SeatRow
    from spades.tables import Player

    people = [f"{code.lower()}-{s}" for s in range(4)]
    service.store.create_table(code, people[0], {"kind": "friends", "level": "easy", "humans": 4},
                               [SeatRow(s, "human", people[s], name, "🦊")
                                for s, name in enumerate(["Ann", "Bo", "Cy", "Di"])],
                               "motion", dataclasses.asdict(Rules(tempo="off")))
    while (v := service.snapshot(code, None).view)["phase"] != "hand_over":
        seat = v["to_act"]
        legal = service.snapshot(code, people[seat]).view["legal"]
        service.act(code, Player(people[seat]), "3" if v["phase"] == "bidding" else legal[0], v["version"])
    for seat in (1, 2, 3):
        service.act(code, Player(people[seat]), "deal", service.snapshot(code, None).view["version"])
    client = app.test_client()
    with client.session_transaction() as session:
        session["pid"], session["csrf"] = people[0], "token"
    client.get("/")
    return client.get_cookie("session").value


def open_hand_over(app, live_server, browser, service, code: str, **context_options):
    context = browser.new_context(**context_options)
    context.add_cookies([{"name": "session", "value": hand_over_table(app, service, code), "url": live_server}])
    page = context.new_page()
    page.add_init_script(RECORDER)
    page.goto(f"{live_server}/g/{code}")
    expect(page.locator("body.live")).to_have_count(1, timeout=10000)
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
