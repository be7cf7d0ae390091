"""A circle's Discord or Slack channel on the site: the owner pastes the channel's incoming
webhook, picks the news it gets, or removes it (``spades.circles.channel`` builds and
queues the news; the sender's thread posts it).

- ``POST /c/<slug>/channel`` (``url``): the webhook checked (``service_of``: its sentence on
  the form, 400, nothing kept), then a short post sent to it at once ("Spades for <circle>
  will post here."); one that fails brings the form back with what the channel answered
  (502) and keeps nothing; one that lands keeps the channel, every kind of news on. At
  most ``CIRCLE_CHANNEL_PER_PERSON`` ("10 per hour") of these test posts a person (429).
- ``POST /c/<slug>/channel/kinds`` (``kinds``, repeated: ``tables``, ``nights``,
  ``matches``, ``seasons``, ``boards``): which news it gets.
- ``POST /c/<slug>/channel/remove``: no more posts there.

Each answers 303 to the circle's page (``#channel``); a refused webhook brings the form
back on a page of its own (``templates/circles/channel_form.html``) with its sentence.
Only the owner may (403 to other members, 404 to anyone not in the circle, as the
circle's other owner routes). The page's
part (``templates/circles/_channel.html``): the owner sees the service and the URL's last
characters (``tail``), never the URL; another member sees that the circle posts to a
Discord or Slack channel, nothing more; a channel the sender turned off shows its reason
to the owner, with the form for a new webhook. The URL is never logged.

``CHANNEL_VIA`` (tests only): the loopback fakes' address, where the test post goes.

Imports: Flask, ``spades.circles`` (its channel news and webhooks), ``spades.storage``, the
circles' web services, the web layer's limits and the turn notices' address (no other
blueprint: ``home`` calls ``init_app``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Flask, abort, current_app, flash, redirect, render_template, request
from flask import session as flask_session
from werkzeug.exceptions import HTTPException

from ...circles.channel import KIND_WORDS, KINDS, ChannelNews, test_body
from ...circles.webhooks import DISCORD, BadWebhook, post_once, service_of, tail_of
from ...storage import CircleRow
from ...storage.channels import OFF
from ..rooms.notices import site_address, tick_every
from ..site.limits import hit, in_minutes
from .services import NOT_HERE, Refusal, circles, membership, owner_refusal

CIRCLE_CHANNEL_PER_PERSON = "10 per hour"  # webhooks tried (each sends a test post), per person
SERVICE_WORDS = {DISCORD: "Discord", "slack": "Slack"}


# -- the services -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChannelView:
    """What the circle's page shows of its channel to one member: ``owner`` (the form and
    controls), ``service`` ("Discord", "Slack"; "" with no channel), ``tail`` (the owner's
    alone), ``kinds`` chosen, ``off`` (the sender stopped posting: ``reason``), ``said``
    (the form's sentence after a refused webhook)."""

    owner: bool
    service: str = ""
    tail: str = ""
    kinds: frozenset[str] = frozenset()
    off: bool = False
    reason: str = ""
    said: str = ""
    choices: tuple[tuple[str, str], ...] = tuple(KIND_WORDS.items())


def channel_view(row: CircleRow, uid: str, said: str = "") -> ChannelView:
    owner = row.owner == uid
    channel = circles().store.channel(row.slug)
    if channel is None:
        return ChannelView(owner=owner, said=said)
    service = SERVICE_WORDS.get(channel.service, channel.service)
    if not owner:
        return ChannelView(owner=False, service=service)
    return ChannelView(owner=True, service=service, tail=channel.tail, kinds=frozenset(channel.kinds),
                       off=channel.state == OFF, reason=channel.reason, said=said)


def set_channel(row: CircleRow, uid: str, url: str) -> str | Refusal:
    """The owner's webhook for the circle, kept once a test post landed: the sentence
    that says so. 403 to other members; 400 (the form's sentence) for an address that is
    not a webhook; 429 past the test posts' limit; 502 when the test post failed."""
    refused = owner_refusal(row, uid, "Only the circle's owner may set its channel.")
    if refused is not None:
        return refused
    url = url.strip()
    try:
        service = service_of(url)
    except BadWebhook as e:
        return Refusal(400, str(e), form=True)
    limit = current_app.config.get("CIRCLE_CHANNEL_PER_PERSON", CIRCLE_CHANNEL_PER_PERSON)
    wait = hit(limit, uid, "circle-channel")
    if wait is not None:
        return Refusal(429, f"You have tried the most webhooks one person may in an hour. Try again in "
                            f"{in_minutes(wait)}.", form=True)
    sent = post_once(url, test_body(service, row.name), via=current_app.config.get("CHANNEL_VIA"))
    if not sent.ok:
        return Refusal(502, f"The test post did not land, so nothing was saved. {sent.words}", form=True)
    circles().store.put_channel(row.slug, service, url, tail_of(url), KINDS, uid)
    return f"Posting to a {SERVICE_WORDS[service]} channel: a test post was sent there."


def set_kinds(row: CircleRow, uid: str, asked: Sequence[str]) -> str | Refusal:
    """Which news the circle's channel gets (unknown kinds are left out)."""
    refused = owner_refusal(row, uid, "Only the circle's owner may choose what its channel gets.")
    if refused is not None:
        return refused
    kinds = tuple(k for k in KINDS if k in asked)
    if not circles().store.set_channel_kinds(row.slug, kinds):
        return Refusal(409, "The circle has no channel now. Reload the page.")
    return "Saved: the channel gets " + (", ".join(KIND_WORDS[k].lower() for k in kinds) if kinds else
                                         "no news (nothing is posted)") + "."


def remove_channel(row: CircleRow, uid: str) -> str | Refusal:
    refused = owner_refusal(row, uid, "Only the circle's owner may remove its channel.")
    if refused is not None:
        return refused
    circles().store.remove_channel(row.slug)
    return "The circle no longer posts to a channel."


# -- the routes -----------------------------------------------------------------------------------
bp = Blueprint("circle_channel", __name__)


@bp.errorhandler(404)
def not_here(e: HTTPException):
    """The circles' own 404 (whether the circle exists or not)."""
    body = render_template("errors/error.html", status=404, title="Nothing here", message=e.description or NOT_HERE)
    return body, 404


def _member_of(slug: str) -> tuple[CircleRow, str]:
    """The circle and this person, or 404 for anyone not in it now."""
    uid = flask_session.get("uid") or None
    found = membership(slug, uid)
    if found is None or uid is None:
        abort(404, description=NOT_HERE)
    return found[0], uid


def _answer(row: CircleRow, uid: str, said: str | Refusal):
    """303 to the circle's page (its sentence flashed); a refusal for the form: the form
    again on a page of its own, saying it; any other: its status and sentence."""
    if isinstance(said, Refusal):
        if not said.form:
            abort(said.status, description=said.message)
        body = render_template("circles/channel_form.html", circle=row, channel=channel_view(row, uid, said.message))
        return body, said.status, dict(said.headers)
    flash(said)
    return redirect(f"/c/{row.slug}#channel", 303)


@bp.post("/c/<slug>/channel")
def set_route(slug: str):
    row, uid = _member_of(slug)
    return _answer(row, uid, set_channel(row, uid, request.form.get("url", "")[:1000]))


@bp.post("/c/<slug>/channel/kinds")
def kinds_route(slug: str):
    row, uid = _member_of(slug)
    return _answer(row, uid, set_kinds(row, uid, request.form.getlist("kinds")[:20]))


@bp.post("/c/<slug>/channel/remove")
def remove_route(slug: str):
    row, uid = _member_of(slug)
    return _answer(row, uid, remove_channel(row, uid))


def part(slug: str, uid: str) -> dict[str, Any]:
    """The circle page's ``channel`` (``home.page_part``)."""
    row = circles().store.circle(slug)
    return {"channel": channel_view(row, uid)} if row is not None else {}


def init_app(app: Flask) -> None:
    """The routes, and the circles' channel news on the site's public address (``home``'s
    ``init_app`` calls it, and registers ``part`` for the circle's page)."""
    app.register_blueprint(bp)
    tables = app.extensions["spades.tables"]
    news = ChannelNews(tables.store, site_address(app.config.get("PUBLIC_URL")), clock=tables.now)
    app.extensions["spades.circles"].news = news
    # a week of boards closes by its time: its news is looked for every minute
    tick_every(app, float(app.config.get("CHANNEL_NEWS_TICK_S", 0 if app.testing else 60)), "channel news",
               news.weeks_tick)


__all__ = ["CIRCLE_CHANNEL_PER_PERSON", "ChannelView", "bp", "channel_view", "init_app", "part",
           "remove_channel", "set_channel", "set_kinds"]
