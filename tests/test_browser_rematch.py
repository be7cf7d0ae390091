"""A rematch with a new partner, in real Chromium, three friends in their own browser
contexts: Hana (the host) creates a table for three, Ari and Bo join by the link, Hana
picks Ari as partner and starts. The match (five hands) is played through each person's
own ``view.json`` and ``act`` requests, the bot moving by itself. Then Hana, on her page,
picks Bo as her partner for the rematch and presses Rematch, so Ari and Bo change seats.

Without reloading any page, every open page must follow its person to their new seat:
the bottom plate shows that person's own name with "(you)" (and no other plate says
"(you)"), the cards shown are exactly the hand of that person's own seat view, and the
person who is first to act sees their turn (the bid box or "Your turn")."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from conftest import OPEN_PANEL, PLATE
from playwright.sync_api import APIRequestContext, Page, expect

EMOJI = {"Hana": "🦊", "Ari": "🐼", "Bo": "🐨"}
MATCH_TIMEOUT = 120.0  # seconds for the five hands (a loaded machine, the other test worker busy)
SETTLE_MS = 5000  # how long a page may take to follow the rematch


class Person:
    """One browser context: its page and its own requests (the same cookies)."""

    def __init__(self, name: str, page: Page, base: str) -> None:
        self.name, self.page, self.base = name, page, base
        self.request: APIRequestContext = page.context.request
        self.code = ""
        self.csrf = ""

    def view(self) -> dict:
        response = self.request.get(f"{self.base}/g/{self.code}/view.json")
        assert response.ok, (self.name, response.status, response.text()[:300])
        return response.json()

    def act(self, version: int, action: str) -> int:
        """Post a move as htmx would (so a refusal keeps its status); returns the status."""
        response = self.request.post(
            f"{self.base}/g/{self.code}/act",
            form={"csrf": self.csrf, "version": str(version), "action": action},
            headers={"HX-Request": "true", "X-CSRF-Token": self.csrf},
            max_redirects=0,
        )
        return response.status


def pick_emoji(page: Page, who: str) -> None:
    page.locator(f"label:has(input[name=emoji][value='{EMOJI[who]}'])").click()


def choose(legal: list) -> str:
    """A legal move: look at the cards, bid 3 (or the first number), or the first card."""
    if "look" in legal:
        return "look"
    if 3 in legal:
        return "3"
    numbers = [a for a in legal if isinstance(a, int) and a > 0]
    return str(numbers[0] if numbers else legal[0])


def play_match(people: list[Person], timeout: float = MATCH_TIMEOUT) -> dict[str, int]:
    """Every person moves when it is their turn; the host deals each next hand without
    waiting. Returns how many moves of each kind were made, once the match is over."""
    host = people[0]
    counts = {"moves": 0, "deals": 0, "stale": 0}
    deadline = time.monotonic() + timeout
    while True:
        assert time.monotonic() < deadline, f"the match did not end in {timeout:.0f} s: {counts}"
        moved = False
        for person in people:
            v = person.view()
            if v["finished"]:
                return counts
            if v["phase"] in ("bidding", "playing") and v["legal"]:
                status = person.act(v["version"], choose(v["legal"]))
                kind = "moves"
            elif v["phase"] == "hand_over" and person is host:
                status = person.act(v["version"], "deal_now")
                kind = "deals"
            else:
                continue
            if status == 409:  # a bot moved in between: look again
                counts["stale"] += 1
                continue
            assert status == 200, (person.name, v["phase"], v["legal"][:3], status)
            counts[kind] += 1
            moved = True
        if not moved:
            time.sleep(0.01)  # a bot's turn


def wait_for(what: str, check: Callable[[], tuple[bool, object]], timeout_ms: int = SETTLE_MS) -> object:
    """Poll ``check`` (ok, detail) until ok; an AssertionError with the last detail if not."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        ok, detail = check()
        if ok:
            return detail
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: {detail}")
        time.sleep(0.05)


def shown_hand(page: Page) -> list[str]:
    return page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)")


def check_page_follows_seat(person: Person, view: dict) -> list[str]:
    """What is wrong with this person's page after the rematch (empty if nothing)."""
    problems = []
    page = person.page
    try:
        expect(page.locator(PLATE["bottom"] + " .plate-name")).to_contain_text(f"{person.name} (you)",
                                                                               timeout=SETTLE_MS)
    except AssertionError:
        problems.append(f"{person.name}'s bottom plate reads "
                        f"{page.locator(PLATE['bottom'] + ' .plate-name').inner_text()!r}, not '{person.name} (you)'")
    others = [t for t in page.locator(".plate-name").all_inner_texts()
              if "(you)" in t and not t.startswith(f"{person.name} (you)")]
    if others:
        problems.append(f"{person.name}'s page shows (you) next to someone else: {others}")
    try:
        wait_for(f"{person.name}'s cards", lambda: (shown_hand(page) == view["hand"], shown_hand(page)))
    except AssertionError:
        problems.append(f"{person.name}'s page shows the cards {shown_hand(page)}, "
                        f"but {person.name}'s seat {view['seat']} holds {view['hand']}")
    return problems


def test_rematch_with_a_new_partner_moves_every_open_page_to_its_new_seat(live_server, browser):
    contexts = [browser.new_context() for _ in range(3)]
    pages = [c.new_page() for c in contexts]
    hana, ari, bo = people = [Person(n, p, live_server) for n, p in zip(("Hana", "Ari", "Bo"), pages)]
    try:
        # the host creates a short match for three people
        hana.page.goto(live_server + "/new")
        hana.page.get_by_label("Your name").fill("Hana")
        pick_emoji(hana.page, "Hana")
        hana.page.locator("label:has(input[name=humans][value='3'])").click()
        hana.page.locator("select[name=end]").select_option("hands-5")
        hana.page.locator("label:has(input[name=tempo][value='relaxed'])").click()
        hana.page.get_by_role("button", name="Create the table").click()
        hana.page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        code = hana.page.locator(".join-code strong").inner_text()
        link = hana.page.locator(".join-link input").input_value()
        expect(hana.page.locator("body.live")).to_have_count(1, timeout=10000)

        # Ari and Bo follow the link
        for p in (ari, bo):
            p.page.goto(link)
            p.page.get_by_label("Your name").fill(p.name)
            pick_emoji(p.page, p.name)
            p.page.get_by_role("button", name="Join").click()
            p.page.wait_for_url(re.compile(rf"/g/{code}$"))
            expect(hana.page.locator("#room")).to_contain_text(p.name)
            expect(p.page.locator("body.live")).to_have_count(1, timeout=10000)

        # Ari is the host's partner; the host starts
        hana.page.locator("li.member", has_text="Ari").get_by_role("button", name="Partner").click()
        expect(bo.page.locator("li.member.is-me")).to_contain_text("Other team")
        hana.page.get_by_role("button", name="Start the game").click()
        for p in people:
            expect(p.page.locator("#felt")).to_be_visible(timeout=10000)
            expect(p.page.locator("body.live")).to_have_count(1, timeout=10000)
            expect(p.page.locator(PLATE["bottom"] + " .plate-name")).to_contain_text(f"{p.name} (you)")
            p.code = code
            p.csrf = p.page.locator("input[name=csrf]").first.input_value()
        seats = {p.name: p.view()["seat"] for p in people}
        assert (seats["Ari"] - seats["Hana"]) % 4 == 2 and (seats["Bo"] - seats["Hana"]) % 4 in (1, 3), seats

        # the whole match, by requests (the pages follow live)
        started = time.monotonic()
        counts = play_match(people)
        played_in = time.monotonic() - started
        assert counts["deals"] >= 4, counts
        panel = hana.page.locator(OPEN_PANEL + " form.rematch")
        # the match was played by requests as fast as the server takes them; each page
        # applies every change's fragments in turn, and a slow machine's pages lag behind
        expect(panel).to_be_visible(timeout=40000)

        # on her page, the host picks Bo as her new partner and starts the rematch
        offset = (seats["Bo"] - seats["Hana"]) % 4
        panel.locator(f"label:has(input[name=partner][value='{offset}'])").click()
        expect(panel.locator(f"input[name=partner][value='{offset}']")).to_be_checked()
        panel.get_by_role("button", name="Rematch").click()

        # the seat views after the rematch, once the new hand is dealt
        def dealt() -> tuple[bool, object]:
            views = {p.name: p.view() for p in people}
            ok = all(not v["finished"] and v["hand_number"] == 1 and v["hand"] and len(v["hand"]) == 13
                     for v in views.values())
            return ok, {n: (v["seat"], v["phase"], v["hand_number"], v["finished"]) for n, v in views.items()}

        wait_for("the rematch is dealt", dealt, timeout_ms=10000)
        views = {p.name: p.view() for p in people}
        new_seats = {n: v["seat"] for n, v in views.items()}
        assert new_seats == {"Hana": seats["Hana"], "Bo": seats["Ari"], "Ari": seats["Bo"]}, (seats, new_seats)

        # no page was reloaded: each must now show its person's own seat
        problems = []
        for p in people:
            problems += check_page_follows_seat(p, views[p.name])

        # the first person to act (after any bot bid) sees their turn on their page
        def someone_to_act() -> tuple[bool, object]:
            now = {p.name: p.view() for p in people}
            turn = [n for n, v in now.items() if v["legal"]]
            return bool(turn), turn[0] if turn else {n: v["to_act"] for n, v in now.items()}

        first = wait_for("a person's turn", someone_to_act)
        page = {p.name: p.page for p in people}[first]
        mine = page.locator(".bidbox").or_(page.locator("#told .turn", has_text="Your turn"))
        try:
            expect(mine.first).to_be_visible(timeout=SETTLE_MS)
        except AssertionError:
            problems.append(f"it is {first}'s turn (seat {new_seats[first]}), but {first}'s page says "
                            f"{page.locator('.status').inner_text()!r} and shows no bid box")

        assert not problems, "after the rematch, without a reload:\n" + "\n".join(problems)
        print(f"match played in {played_in:.1f} s: {counts}")
    finally:
        for c in contexts:
            c.close()
