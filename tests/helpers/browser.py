"""Browser pages: signing in, turns, hands played, widths, cards shown."""

from __future__ import annotations

import re
import time

from conftest import OPEN_PANEL
from playwright.sync_api import Browser, Locator, Page, expect

from spades.web.table.pictures import card

MY_TURN_OR_HAND_OVER = """(prev) => {
  const v = document.getElementById('turn');  // the table's version the page shows
  if (!v || v.dataset.version === prev) return false;
  return !!(document.querySelector('.fan.playable') || document.querySelector('#result > *')
            || document.querySelector('.bidbox'));
}"""


def version(page: Page) -> str:
    return page.locator("#turn").get_attribute("data-version")


def box(found: Locator) -> dict:
    """Where the first element ``found`` names is drawn. A frame from the socket may swap
    its fragment (a seat's presence, the end's links) between finding it and measuring
    it: the element measured is then gone, so it is found again."""
    for _ in range(10):
        first = found.first
        first.wait_for(state="visible")
        b = first.bounding_box()
        if b is not None:
            return b
    raise AssertionError(f"{found} is never drawn")


def wait_for_me(page: Page, prev: str) -> None:
    page.wait_for_function(MY_TURN_OR_HAND_OVER, arg=prev, timeout=15000)


def play_until_hand_over(pages: list[Page], timeout: float = 90) -> None:
    """Each page bids (the suggested 3) or plays its first legal card when it is its turn."""
    deadline = time.monotonic() + timeout
    while True:
        done = 0
        for p in pages:
            if p.locator(OPEN_PANEL).count():
                done += 1
            elif p.locator(".bidbox").count():
                p.get_by_role("button", name="Bid", exact=True).click()
                expect(p.locator(".bidbox")).to_have_count(0)
            elif p.locator(".fan.playable .card.legal").count():
                n = p.locator("#hand .card").count()
                p.locator(".fan.playable .card.legal").first.click()
                expect(p.locator("#hand .card")).to_have_count(n - 1)
        if done == len(pages):
            return
        assert time.monotonic() < deadline, "the hand did not end"
        pages[0].wait_for_timeout(30)


PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][SHDC]|BJ|LJ)(?![A-Za-z0-9])")
# what the page says of cards: its text (screen readers' words too) and the attributes that
# name a card or a move (a form's CSRF token and a deal's contribution are random text)
CARDS_IN_DOM = """() => {
  const out = [document.body.innerText];
  for (const e of document.querySelectorAll('*')) {
    for (const a of e.attributes) {
      if (/^(data-card|data-legal|aria-label|title|alt)$/.test(a.name)
          || (a.name === 'value' && !/^(csrf|contribution)$/.test(e.getAttribute('name') || ''))) out.push(a.value);
    }
  }
  return out.join('\\n');
}"""


def moved(page: Page, version: int) -> None:
    """Wait until the page shows a later moment of the table than ``version`` (its move was taken)."""
    page.wait_for_function("(v) => document.getElementById('turn').dataset.version !== v", arg=str(version),
                           timeout=15000)


def my_turn_or_the_end(page: Page) -> None:
    """Wait until the page (seat 0's) shows its own turn or the hand's result: at a
    practice table the bots play on by themselves between the person's moves."""
    page.wait_for_function("() => document.getElementById('turn').dataset.seat === '0'"
                           " || document.querySelector('#panel #result > *')", timeout=15000)


def play_a_hand(page: Page, service, code: str, pid: str) -> dict:
    """Seat 0's page plays its hand by clicking (a bid, then the first playable card each
    turn) until the hand is over; the seat's view then."""
    for _ in range(18):  # a bid and at most 17 cards of one's own
        my_turn_or_the_end(page)
        v = service.snapshot(code, pid).view.to_json()
        if v["phase"] not in ("bidding", "playing"):
            break
        expect(page.locator("#turn")).to_have_attribute("data-version", str(v["version"]), timeout=15000)
        if v["phase"] == "bidding":
            page.get_by_role("button", name="Bid", exact=True).click()  # the box holds the hint's bid
        else:
            page.locator("#hand .fan.playable .card.legal").first.click()
        moved(page, v["version"])
    return service.snapshot(code, pid).view.to_json()
def others_cards_on(page: Page, match, seat: int | None) -> set[str]:
    """The cards other seats hold now that this page's markup holds (it must hold none)."""
    return cards_on(page, {str(c) for s in range(match.shape.players) if s != seat for c in match.cards(s)})


def cards_on(page: Page, held: set[str]) -> set[str]:
    """Those of ``held`` that the page names, by notation or in words."""
    said = page.evaluate(CARDS_IN_DOM)
    return (set(CARD_TOKEN.findall(said)) & held) | {t for t in held if re.search(rf"\b{card(t).label}\b", said)}


def new_context(browser: Browser, viewport: dict, motion: str = "reduce"):
    """A browser of its own; ``motion``: the person's motion preference (still, unless "no-preference")."""
    return browser.new_context(viewport=viewport, reduced_motion=motion)


def signed_in(app, live_server: str, browser: Browser, pid: str, viewport: dict, motion: str = "reduce") -> Page:
    """A page whose session is ``pid``'s (a table made for them by the service)."""
    client = app.test_client()
    with client.session_transaction() as session:
        session["pid"] = pid
    client.get("/")
    context = new_context(browser, viewport, motion)
    context.add_cookies([{"name": "session", "value": client.get_cookie("session").value, "url": live_server}])
    return context.new_page()


SHOWN = re.compile(r'(?:data-card|value)="([2-9TJQKA][SHDC])"')
# what sticks out past the screen's right edge: the page's scroll width, then every element
# that does (named by the outermost of them, whose parent fits); text for screen readers
# only (.sr-only: clipped to one pixel, one line so that it reads as one) is never drawn.
# Measured once the page has loaded: after a form's post, the new page's text is there
# (and found by a test) before its stylesheets, and the browser, which draws nothing
# until they are in, would measure the page unstyled
TOO_WIDE = """() => new Promise(done => {
  const measure = () => {
    const out = [], w = innerWidth, sw = document.documentElement.scrollWidth;
    const past = (e) => e.getBoundingClientRect().right > w + 0.5;
    if (sw > w) out.push('the page scrolls sideways: ' + sw + ' px wide');
    for (const e of document.querySelectorAll('body *')) {
      if (past(e) && !past(e.parentElement) && !e.closest(".sr-only")) {
        out.push(Math.round(e.getBoundingClientRect().right) + ' px: ' + e.outerHTML.slice(0, 90));
      }
    }
    done(out);
  };
  if (document.readyState === "complete") measure(); else addEventListener("load", measure, {once: true});
})"""
