"""A circle's Discord or Slack channel (``/c/<slug>/channel``, ``spades.circles.channel``):
the owner pastes a webhook and a test post lands in the loopback fake of the service; a
bad address or a failing test post keeps nothing; members see only that the circle
posts to a channel, strangers nothing; the URL is in no page and no export; the news it
gets is chosen; every kind's message passes the service's documented checks; a match's
end is queued once however often the results are recorded."""

from __future__ import annotations

import json
import time

import pytest
from helpers.accounts import finished_match
from helpers.circles import invite_link, make, post, signed_in, text
from helpers.nights import ahead

from spades.circles.boards import close_week, new_week
from spades.circles.webhooks import post_once
from spades.rules_config import Rules
from spades.storage import CircleResultRow, SeatRow

TABLE = {"name": "Ann", "emoji": "🦊", "humans": "2", "mode": "bidding", "level": "easy", "speed": "fast",
         "end": "target-500", "tempo": "normal", "bag_penalty": "on"}


@pytest.fixture
def app_config(discord):
    return {"PUBLIC_URL": "https://spades.example", "CHANNEL_VIA": discord.base, "CHANNEL_TICK_S": 0}


@pytest.fixture
def circle(app):
    """Ann's circle with Bo in it; Cy signed in and in no circle."""
    ann, bo, cy = (signed_in(app, f"{n.lower()}@example.com", n) for n in ("Ann", "Bo", "Cy"))
    slug = make(ann)
    assert post(bo, invite_link(ann, slug).replace("https://spades.example", "")).status_code == 303
    return slug, ann, bo, cy


def store(app):
    return app.extensions["spades.circles"].store


def news(app):
    return app.extensions["spades.circles"].news


def test_the_owner_sets_a_discord_webhook_and_its_test_post_lands(app, circle, discord):
    slug, ann, bo, cy = circle
    url = discord.url()
    r = post(ann, f"/c/{slug}/channel", url=url)
    assert r.status_code == 303 and r.headers["Location"] == f"/c/{slug}#channel"
    [sent] = discord.posts
    assert sent["content"] == "Spades for **Friday Spades** will post here."
    assert sent["allowed_mentions"] == {"parse": []} and discord.violations == []
    channel = store(app).channel(slug)
    assert channel.service == "discord" and set(channel.kinds) == {"tables", "nights", "matches", "seasons", "boards"}
    mine = ann.get(f"/c/{slug}").get_data(as_text=True)
    assert f"Posting to a Discord channel ({channel.tail})" in text(mine) and channel.tail == "…" + url[-6:]
    theirs = bo.get(f"/c/{slug}").get_data(as_text=True)
    assert "This circle posts its news to a Discord channel." in text(theirs)
    assert channel.tail not in theirs and 'action="/c/' + slug + '/channel' not in theirs
    token = url.rsplit("/", 1)[1]
    for page in (mine, theirs):
        assert token not in page and url not in page
    for client in (ann, bo):  # nor in anyone's data export
        export = client.get("/me/data.json").get_data(as_text=True)
        assert token not in export
    assert cy.get(f"/c/{slug}").status_code == 404


def test_the_owner_sets_a_slack_webhook(app, circle, slack):
    slug, ann, _, _ = circle
    app.config["CHANNEL_VIA"] = slack.base
    assert post(ann, f"/c/{slug}/channel", url=slack.url()).status_code == 303
    [sent] = slack.posts
    assert sent["text"] == "Spades for *Friday Spades* will post here." and slack.violations == []
    assert "Posting to a Slack channel" in text(ann.get(f"/c/{slug}").get_data(as_text=True))


@pytest.mark.parametrize("url, said", [
    ("http://discord.com/api/webhooks/123456789012345678/" + "a" * 68, "it must start with https://"),
    ("https://example.com/api/webhooks/123456789012345678/" + "a" * 68, "Only a Discord or a Slack channel"),
    ("https://discord.com/channels/123456789012345678/123456789012345678", "is not an incoming webhook"),
])
def test_a_bad_address_is_refused_with_its_sentence_and_nothing_is_kept(app, circle, discord, url, said):
    slug, ann, _, _ = circle
    r = post(ann, f"/c/{slug}/channel", url=url)
    assert r.status_code == 400 and said in text(r.get_data(as_text=True))
    assert store(app).channel(slug) is None and discord.received == []


def test_a_failing_test_post_keeps_nothing_and_says_what_the_channel_answered(app, circle, discord):
    slug, ann, _, _ = circle
    discord.then(404)
    r = post(ann, f"/c/{slug}/channel", url=discord.url())
    page = text(r.get_data(as_text=True))
    assert r.status_code == 502 and "nothing was saved" in page and "answered 404" in page
    assert store(app).channel(slug) is None and discord.violations == []


def test_members_and_strangers_may_not_set_or_change_it(app, circle, discord):
    slug, ann, bo, cy = circle
    for path, data in (("channel", {"url": discord.url()}), ("channel/kinds", {"kinds": "tables"}),
                       ("channel/remove", {})):
        assert post(bo, f"/c/{slug}/{path}", **data).status_code == 403
        assert post(cy, f"/c/{slug}/{path}", **data).status_code == 404
    assert store(app).channel(slug) is None and discord.received == []
    stranger = app.test_client()
    assert post(stranger, f"/c/{slug}/channel", url=discord.url()).status_code == 404
    assert post(ann, f"/c/{slug}/channel", url=discord.url()).status_code == 303
    assert post(bo, f"/c/{slug}/channel/remove").status_code == 403 and store(app).channel(slug) is not None
    assert post(ann, f"/c/{slug}/channel/remove").status_code == 303 and store(app).channel(slug) is None


def test_a_channel_turned_off_shows_its_reason_and_the_form_again(app, circle, discord):
    slug, ann, bo, _ = circle
    post(ann, f"/c/{slug}/channel", url=discord.url())
    store(app).disable_channel(slug, "The channel's webhook answered 404: it was deleted.")
    page = ann.get(f"/c/{slug}").get_data(as_text=True)
    assert "stopped: The channel's webhook answered 404" in text(page) and 'name="url"' in page
    assert "answered 404" not in text(bo.get(f"/c/{slug}").get_data(as_text=True))


def test_the_kinds_chosen_filter_what_is_queued(app, circle, discord):
    slug, ann, _, _ = circle
    post(ann, f"/c/{slug}/channel", url=discord.url())
    assert post(ann, f"/c/{slug}/channel/kinds", kinds=["matches", "seasons", "nonsense"]).status_code == 303
    assert store(app).channel(slug).kinds == ("matches", "seasons")
    first = post(ann, f"/c/{slug}/table", **TABLE).headers["Location"].rsplit("/", 1)[1]
    assert store(app).channel_posts(slug) == []
    post(ann, f"/c/{slug}/channel/kinds", kinds=["tables"])
    second = post(ann, f"/c/{slug}/table", **TABLE).headers["Location"].rsplit("/", 1)[1]
    assert [(p.key, p.kind) for p in store(app).channel_posts(slug)] == [(f"table:{second}", "tables")]
    body = json.loads(store(app).channel_posts(slug)[0].body)
    assert f"https://spades.example/g/{second}" in json.dumps(body) and first not in json.dumps(body)
    post(ann, f"/c/{slug}/season/next")  # seasons are not chosen now
    assert [p.kind for p in store(app).channel_posts(slug)] == ["tables"]


def _everything(app, slug: str, owner: str) -> None:
    """Every kind of news of the circle, queued through the service and the hooks."""
    told = news(app)
    assert told.table_started(slug, "ABCDEF", "Ann *the* _best_ <@everyone> & co", "Easy bots · to 500")
    for stage in ("day", "soon", "start"):
        assert told.night(slug, "n1", 0, stage, "Friday 18 December 2026, 20:30 (Europe/Paris)", "tomorrow at 20:30",
                          {"a": "yes", "b": "maybe", "c": "no", "d": "yes"}, tables=2)
    seats = [SeatRow(0, "human", owner, "Ann <b>", "🦊"), SeatRow(1, "bot", None, "Rex", "🤖"),
             SeatRow(2, "human", None, "Bo_", "🐼"), SeatRow(3, "bot", None, "Kit", "🤖")]
    circles = app.extensions["spades.circles"]
    finished_match(store(app), "CHANAA", seats, "chan-1")
    circles.link_table(slug, "CHANAA", owner)
    assert circles.record(slug) == 1
    circles.next_season(slug, owner)
    week = new_week(store(app), slug, owner, 4, Rules(), time.time())
    assert told.weeks_seen(slug) == 1
    close_week(store(app), week.id)
    assert told.weeks_seen(slug) == 1 and told.weeks_seen(slug) == 0


@pytest.mark.parametrize("service", ["discord", "slack"])
def test_every_kind_of_news_passes_the_services_checks(app, circle, discord, slack, service):
    slug, ann, _, _ = circle
    fake = discord if service == "discord" else slack
    app.config["CHANNEL_VIA"] = fake.base
    post(ann, f"/c/{slug}/channel", url=fake.url())
    _everything(app, slug, ann.uid)
    posts = store(app).channel_posts(slug)
    assert {p.kind for p in posts} == {"tables", "nights", "matches", "seasons", "boards"}
    assert {p.key for p in posts} >= {"table:ABCDEF", "night:n1:0:day", "night:n1:0:soon", "night:n1:0:start",
                                      f"season:{slug}:1"}
    for p in posts:
        body = json.loads(p.body)
        assert post_once(fake.url(), body, via=fake.base).ok, p.key
        words = json.dumps(body)
        if service == "discord":
            assert body["allowed_mentions"] == {"parse": []} and body["embeds"][0]["url"].startswith("https://")
        else:
            assert "<@everyone>" not in words and "<b>" not in words
            assert body["blocks"][-1]["type"] == "context" and "https://spades.example/" in words
    assert fake.violations == [] and len(fake.posts) == len(posts) + 1
    table = json.loads(posts[0].body)
    if service == "discord":
        assert table["content"].startswith("**Ann \\*the\\* \\_best\\_ \\<\\@everyone\\> & co** started a table")
        assert table["embeds"][0]["url"] == "https://spades.example/g/ABCDEF"
    else:
        assert table["text"].startswith("*Ann *the* _best_ &lt;@everyone&gt; &amp; co* started a table")


def test_a_match_ended_is_queued_once_however_often_results_are_recorded(app, circle, discord):
    slug, ann, _, _ = circle
    post(ann, f"/c/{slug}/channel", url=discord.url())
    circles = app.extensions["spades.circles"]
    seats = [SeatRow(0, "human", ann.uid, "Ann", "🦊"), SeatRow(1, "bot", None, "Rex", "🤖"),
             SeatRow(2, "bot", None, "Ivy", "🤖"), SeatRow(3, "bot", None, "Kit", "🤖")]
    finished_match(store(app), "CHANBB", seats, "chan-2")
    circles.link_table(slug, "CHANBB", ann.uid)
    assert circles.record(slug) == 1 and circles.record(slug) == 0
    [row] = store(app).recent_results(slug, 1)
    assert isinstance(row, CircleResultRow)
    assert news(app).match_ended(slug, row) is False  # told already: the key keeps it once
    [queued] = [p for p in store(app).channel_posts(slug) if p.kind == "matches"]
    assert queued.key == f"match:{row.match_id}"
    assert "https://spades.example/g/CHANBB/record" in queued.body


def test_the_nights_tick_queues_each_reminder_and_the_start_once(app, circle, discord):
    slug, ann, _, _ = circle
    post(ann, f"/c/{slug}/channel", url=discord.url())
    nights = app.extensions["spades.nights"]
    night = nights.schedule(slug, ann.uid, *ahead(2), "Europe/Paris", False)
    nights.answer(slug, ann.uid, night.id, "yes")
    for at in (night.starts - 3600 * 20, night.starts - 3600 * 19, night.starts - 600, night.starts - 500):
        nights.tick(at)
    keys = [p.key for p in store(app).channel_posts(slug)]
    assert keys == [f"night:{night.id}:0:day", f"night:{night.id}:0:soon"]
    body = json.loads(store(app).channel_posts(slug)[0].body)
    assert "1 coming, 0 maybe, 0 not coming" in json.dumps(body) and discord.violations == []


def test_no_public_address_queues_nothing(app, circle, discord, caplog):
    slug, ann, _, _ = circle
    post(ann, f"/c/{slug}/channel", url=discord.url())
    news(app).base_url = None
    assert news(app).table_started(slug, "ABCDEF", "Ann", "Easy") is False
    assert news(app).table_started(slug, "ABCDEG", "Ann", "Easy") is False
    assert store(app).channel_posts(slug) == []
    assert sum("PUBLIC_URL" in r.getMessage() for r in caplog.records) == 1


def test_a_week_of_boards_closing_by_its_time_is_told_by_the_tick(app, circle, discord):
    """Nobody opens the circle's page: the channel news' tick tells the week's end once."""
    slug, ann, _, _ = circle
    post(ann, f"/c/{slug}/channel", url=discord.url())
    week = new_week(store(app), slug, "ann", 4, Rules(), time.time())
    told = news(app)
    assert told.weeks_tick() == 1  # open now
    assert told.weeks_tick(week.ends + 1) == 1 and told.weeks_tick(week.ends + 2) == 0
    assert [p.key for p in store(app).channel_posts(slug)] == [f"boards:{week.id}:open", f"boards:{week.id}:closed"]
    post(ann, f"/c/{slug}/channel/kinds", kinds=["tables"])  # the boards' news no longer wanted
    assert store(app).channels_on("boards") == [] and told.weeks_tick(week.ends + 3) == 0
