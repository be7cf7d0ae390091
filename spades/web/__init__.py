"""The web layer: ``create_app`` builds the Flask application.

Areas are blueprints: ``lobby`` (home page, practice), ``table`` (the table page and its
moves), ``talk`` (the table's chat: mute, report, the reports page), ``live`` (the
WebSocket), ``errors`` (friendly error pages), ``auth`` (optional sign-in with an emailed
code), ``profile`` (``/me`` and Rejoin Games), ``people`` (the people one plays with:
Invite again, block), ``notices`` (turn-based tables: the your-turn list, notice mails),
``replay`` (a finished match step by step, and its score sheet), ``analysis`` (a finished
match's every bid and card weighed), ``rules`` (``/rules``: how to play), ``tourney``
(``/t``: tourneys, their service in ``app.extensions["spades.tourneys"]``), ``circles``
(``/c``: a friend group's home, its service in ``app.extensions["spades.circles"]``), ``push``
(notices in the browser, ``spades.web.accounts.push.notify``) and ``pwa`` (the service worker that
makes the site an app). The table service
(``spades.tables``) lives in ``app.extensions["spades.tables"]``, the socket hub
(``spades.web.table.hub``) in ``app.extensions["spades.hub"]``, the accounts
(``spades.accounts``) in ``app.extensions["spades.accounts"]``.

Configuration (all optional; ``bash scripts/serve`` needs none):
- ``DATABASE`` (env ``SPADES_DATABASE``): SQLite file, default ``instance/spades.db``, or
  a ``postgresql://`` URL (a database several machines share).
- ``REDIS_URL`` (env ``SPADES_REDIS_URL``): several processes of the site share this Redis
  (``spades.tables.cluster``: table events, one owner per table, tourneys' lock) and, unless
  ``RATELIMIT_STORAGE_URI`` says otherwise, their rate limits. ``CLUSTER_LEASE_S`` (3):
  how long after a process dies its tables move to another. Unset: one process, no Redis.
- ``SECRET_KEY`` (env ``SPADES_SECRET_KEY``): generated once into ``instance/secret_key``.
- ``PLAY_DELAYS``: seconds between bot moves per play speed (tests set them to 0); env
  ``SPADES_PLAY_DELAY`` sets one delay for every speed.
- ``BOT_POOL``: an executor for the bots (tests pass a thread pool); default a process pool
  of ``BOT_WORKERS`` workers (env ``SPADES_BOT_WORKERS``, 2). ``BOT_THINK_LIMIT``: seconds
  before a fallback move.
- ``ANALYSIS_POOL``: an executor for finished matches' analyses (tests pass a thread
  pool); default ``ANALYSIS_WORKERS`` (env ``SPADES_ANALYSIS_WORKERS``, 2) processes of
  lowered priority, started on the first analysis. ``ANALYSIS_BUDGET``: the analyst's
  work per decision in seconds of Hard's work count (``spades.bots.analysis.BUDGET_S``).
- ``TRUSTED_ORIGINS``: extra ``scheme://host`` origins allowed to open the WebSocket.
- ``SEED_SOURCE``: a function giving each new match's seed (tests fix it; default random).
- ``FAIRNESS_CACHE_S`` (60): seconds the ``/fairness`` figures are kept (they scan every deal).
- ``RESUME_TABLES``: load unfinished tables at start-up so their bots carry on (default on).
- ``CHANNEL_TICK_S`` (2; 0 in tests unless set): how often circles' channel posts are sent
  (``spades.circles.delivery``, a thread of its own). ``CHANNEL_VIA``: tests only, a fake's base URL.
  ``CHANNEL_NEWS_TICK_S`` (60; 0 in tests unless set): how often weeks of boards that closed by
  their time are looked for, to tell the circles' channels.
- ``NOTICE_TICK_S`` (60; env ``SPADES_NOTICE_TICK_S``): how often the "your turn" notices
  of turn-based tables are looked for (``spades.web.rooms.notices``); 0: never (tests tick).
  ``NOTICE_AWAY_S`` (120; env ``SPADES_NOTICE_AWAY_S``): a person whose every page of a
  table waiting on them closed is told after this long, unless one opened again.
  ``TURN_LIST_POLL_S`` (15): how often an open home or Games page asks for its your-turn list.
- ``ADMIN_EMAILS`` (env ``SPADES_ADMIN_EMAILS``, comma-separated): the accounts that run
  the site and read ``/admin/reports`` (reported chat messages). Empty: nobody.
- ``CLOCK_SECONDS_OVERRIDE``: tests only (never set in production config): every turn at a
  timed table gets this many seconds, whatever its tempo, so a browser test sees a timeout.
- ``RATELIMIT_STORAGE_URI`` / ``RATELIMIT_ENABLED``: rate limits (``spades.web.site.limits``;
  a Redis storage counts in memory while Redis does not answer).
- ``PRACTICE_PER_PERSON`` (30 per hour), ``PRACTICE_PER_ADDRESS`` (60 per hour),
  ``FRIENDS_TABLES_PER_PERSON`` (20 per hour), ``FRIENDS_TABLES_PER_ADDRESS`` (40 per hour),
  ``TOURNEYS_PER_PERSON`` (5 per hour), ``TOURNEYS_PER_ADDRESS`` (10 per hour): how many
  practice tables, tables for friends and tourneys one person and one client address may
  make (flask-limiter strings; env ``SPADES_`` + the name, e.g. for a venue behind one
  address). A listed tourney needs a signed-in director.
- ``PUBLIC_URL`` (env ``SPADES_PUBLIC_URL``, e.g. ``https://spades.example``): the site's
  address in invitation mails and in the turn notices, which are not sent without it (the
  log says so once at start; ``scripts/serve`` sets it to the address it serves on).
  Without it, an invitation's link is built from the request's host
  only when Flask checked that host against ``TRUSTED_HOSTS`` (env
  ``SPADES_TRUSTED_HOSTS``, comma-separated; other hosts then get a 400) or it is loopback.
- ``TOURNEY_TICK_S`` (1): how often tourneys' timers are checked (0: never; tests tick by
  hand). ``TOURNEY_RULES_OVERRIDE``: tests only, merged into every tourney table's rules
  (one hand a match). ``TOURNEY_SEED_SOURCE``: each tourney's seed (tests fix it).
- ``SESSION_CHECK_S``: how often an open socket re-checks its signed-in session (10 s).
- ``SOCKETS_PER_PERSON`` (8), ``SOCKETS_PER_ADDRESS`` (100; env
  ``SPADES_SOCKETS_PER_ADDRESS``, for a venue behind one address): open WebSockets allowed;
  the next one is closed with a reason. ``SOCKET_QUEUE`` (64): changes waiting for one
  socket before it counts as stuck and is closed (its page reconnects).
  ``SOCKET_MOVES_PER_S`` (20, bursts of twice that; env ``SPADES_SOCKET_MOVES_PER_S``):
  moves one table socket may send a second (``spades.web.table.live``); past it they are refused.
  ``SOCK_SERVER_OPTIONS["max_message_size"]`` (4 KiB): the largest message a page may send.
- ``MAX_REQUESTS_PER_ADDRESS`` (50; env ``SPADES_MAX_REQUESTS_PER_ADDRESS``): requests in
  progress from one client address (WebSockets not counted); the next is answered 429.
  ``BODY_TIMEOUT_S`` (5; env ``SPADES_BODY_TIMEOUT_S``): a request body must arrive within
  this many seconds of the app first reading it, or it is answered 408 and its connection
  closed (``spades.web.site.guard``; 0 turns either off).
- ``SESSION_COOKIE_SECURE`` (env ``SPADES_SESSION_COOKIE_SECURE=1``): Secure cookies even
  where the server cannot tell it is behind https (they are Secure on https requests anyway).
- ``VAPID_PRIVATE_KEY`` (env ``SPADES_VAPID_PRIVATE_KEY``: a PEM or the base64url raw key;
  a bad one stops the start), ``VAPID_SUBJECT`` (env ``SPADES_VAPID_SUBJECT``: ``mailto:``
  or ``https:``), ``PUSH_HOSTS``, ``PUSH_ALLOW_LOOPBACK`` (on when testing): notices in the
  browser (``spades.web.accounts.push``); without a key one is made once into
  ``instance/vapid_private.pem``.
- ``SESSION_IDLE_DAYS`` (30; env ``SPADES_SESSION_IDLE_DAYS``): a signed-in session unused
  this long is signed out (``spades.accounts``), and the session cookie lasts as long from
  its last day of use (``PERMANENT_SESSION_LIFETIME``). ``MAIL_HOURLY_CAP`` (500; env
  ``SPADES_MAIL_HOURLY_CAP``): messages the whole site may send in an hour, counted in the
  rate limits' storage (``spades.web.site.allowance``).

Imports: Flask and friends, ``spades.tables``, ``spades.storage``, ``spades.push`` and the core.
"""

from __future__ import annotations

import atexit
import logging
import os
import secrets
from datetime import timedelta
from typing import Any

from flask import Flask

from ..bots.worker import AnalysisWorkers
from ..circles import CircleService
from ..circles.delivery import ChannelSender
from ..push import PUSH_HOSTS, check_subject, parse_key
from ..storage import Store
from ..tables import TableService
from ..tables.analyses import AnalysisQueue, analysis_channel
from ..tables.cluster import Cluster
from ..tourney.service import TourneyService
from .site.guard import Guard
from .table.hub import Hub

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# what one person and one client address may make (spades.web.site.limits.making)
MAKING_LIMITS = {
    "PRACTICE_PER_PERSON": "30 per hour", "PRACTICE_PER_ADDRESS": "60 per hour",
    "FRIENDS_TABLES_PER_PERSON": "20 per hour", "FRIENDS_TABLES_PER_ADDRESS": "40 per hour",
    "TOURNEYS_PER_PERSON": "5 per hour", "TOURNEYS_PER_ADDRESS": "10 per hour",
}


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The application, configured from ``config``, the environment and ``instance/``."""
    app = Flask("spades", root_path=ROOT, instance_path=os.path.join(ROOT, "instance"),
                template_folder="templates", static_folder="static")
    app.config.update(
        DATABASE=os.environ.get("SPADES_DATABASE") or os.path.join(app.instance_path, "spades.db"),
        PLAY_DELAYS=None,
        BOT_POOL=None,
        BOT_WORKERS=int(os.environ.get("SPADES_BOT_WORKERS", "2")),
        BOT_THINK_LIMIT=5.0,
        BOT_BUDGET=None,
        ANALYSIS_POOL=None,
        ANALYSIS_WORKERS=int(os.environ.get("SPADES_ANALYSIS_WORKERS", "2")),
        ANALYSIS_BUDGET=None,
        TRUSTED_ORIGINS=(),
        RESUME_TABLES=True,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        # the cookie is sent again only when the session changes, not with every answer
        # (signing it is a good part of a move's cost), and once a day of use
        # (``spades.web.site.identity``): its lifetime, SESSION_IDLE_DAYS, runs from that day
        SESSION_REFRESH_EACH_REQUEST=False,
        SESSION_IDLE_DAYS=float(os.environ.get("SPADES_SESSION_IDLE_DAYS", "30")),
        MAIL_HOURLY_CAP=int(os.environ.get("SPADES_MAIL_HOURLY_CAP", "500")),
        SOCK_SERVER_OPTIONS={"ping_interval": 25, "max_message_size": 4096},
        PUBLIC_URL=os.environ.get("SPADES_PUBLIC_URL") or None,
        TRUSTED_HOSTS=[h.strip() for h in os.environ.get("SPADES_TRUSTED_HOSTS", "").split(",") if h.strip()] or None,
        SOCKETS_PER_PERSON=8,
        SOCKETS_PER_ADDRESS=int(os.environ.get("SPADES_SOCKETS_PER_ADDRESS", "100")),
        SOCKET_QUEUE=64,
        SOCKET_MOVES_PER_S=float(os.environ.get("SPADES_SOCKET_MOVES_PER_S", "20")),
        MAX_REQUESTS_PER_ADDRESS=int(os.environ.get("SPADES_MAX_REQUESTS_PER_ADDRESS", "50")),
        BODY_TIMEOUT_S=float(os.environ.get("SPADES_BODY_TIMEOUT_S", "5")),
        MAX_CONTENT_LENGTH=64 * 1024,
        TOURNEY_TICK_S=1.0,
        NOTICE_TICK_S=float(os.environ.get("SPADES_NOTICE_TICK_S", "60")),
        NOTICE_AWAY_S=float(os.environ.get("SPADES_NOTICE_AWAY_S", "120")),
        TURN_LIST_POLL_S=15,
        **{name: os.environ.get(f"SPADES_{name}", default) for name, default in MAKING_LIMITS.items()},
        REDIS_URL=os.environ.get("SPADES_REDIS_URL") or None,
        CLUSTER_LEASE_S=3.0,
        VAPID_PRIVATE_KEY=os.environ.get("SPADES_VAPID_PRIVATE_KEY") or None,
        VAPID_SUBJECT=os.environ.get("SPADES_VAPID_SUBJECT") or None,
        PUSH_HOSTS=PUSH_HOSTS,
        ADMIN_EMAILS=tuple(e.strip().lower() for e in os.environ.get("SPADES_ADMIN_EMAILS", "").split(",")
                           if e.strip()),
    )
    if os.environ.get("SPADES_PLAY_DELAY"):
        delay = float(os.environ["SPADES_PLAY_DELAY"])
        app.config["PLAY_DELAYS"] = {"slow": delay, "normal": delay, "fast": delay}
    if os.environ.get("SPADES_SECRET_KEY"):
        app.config["SECRET_KEY"] = os.environ["SPADES_SECRET_KEY"]
    if config:
        app.config.update(config)
    if "PERMANENT_SESSION_LIFETIME" not in (config or {}):
        # the cookie lasts no longer than the server keeps an unused signed-in session
        app.config["PERMANENT_SESSION_LIFETIME"] = timedelta(days=float(app.config["SESSION_IDLE_DAYS"]))
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _instance_secret(app.instance_path)
    app.config.setdefault("PUSH_ALLOW_LOOPBACK", app.testing)
    if app.config["VAPID_PRIVATE_KEY"]:
        parse_key(app.config["VAPID_PRIVATE_KEY"])  # a bad key stops the start, not the first notice
    if app.config["VAPID_SUBJECT"]:
        check_subject(app.config["VAPID_SUBJECT"])
    if not app.debug and not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    if app.config["REDIS_URL"]:
        app.config.setdefault("RATELIMIT_STORAGE_URI", app.config["REDIS_URL"])
    store = Store(app.config["DATABASE"])
    cluster = (Cluster(app.config["REDIS_URL"], lease_s=app.config["CLUSTER_LEASE_S"])
               if app.config["REDIS_URL"] else None)
    service = TableService(
        store,
        play_delays=app.config["PLAY_DELAYS"],
        think_limit=app.config["BOT_THINK_LIMIT"],
        bot_budget=app.config["BOT_BUDGET"],
        pool=app.config["BOT_POOL"],
        pool_workers=app.config["BOT_WORKERS"],
        new_seed=app.config.get("SEED_SOURCE"),
        clock_seconds=app.config.get("CLOCK_SECONDS_OVERRIDE"),
        cluster=cluster,
    )
    app.extensions["spades.tables"] = service
    app.extensions["spades.hub"] = Hub(app, service, per_person=app.config["SOCKETS_PER_PERSON"],
                                       per_address=app.config["SOCKETS_PER_ADDRESS"],
                                       queue_size=app.config["SOCKET_QUEUE"])
    tourneys = TourneyService(store, service, new_seed=app.config.get("TOURNEY_SEED_SOURCE"),
                              rules_override=app.config.get("TOURNEY_RULES_OVERRIDE"))
    app.extensions["spades.tourneys"] = tourneys
    app.extensions["spades.circles"] = CircleService(store, service, app.config["SECRET_KEY"])  # /c: circles
    budget = app.config["ANALYSIS_BUDGET"]
    app.extensions["spades.analyses"] = AnalysisQueue(
        store, app.config["ANALYSIS_POOL"], workers=app.config["ANALYSIS_WORKERS"],
        on_change=lambda code, number: service.bus.publish_page(analysis_channel(code, number)),
        remote=AnalysisWorkers(cluster.url, outage=cluster.outage) if cluster is not None else None,
        **({} if budget is None else {"budget_s": budget}))
    atexit.register(close_app, app)

    from .accounts import auth, people, privacy, profile, push
    from .accounts import data as account_data
    from .accounts import delete as account_delete
    from .accounts import devices as account_devices
    from .circles import boards, nights
    from .circles import home as circles
    from .matches import analysis, replay, secrecy
    from .matches.fairness import bp as fairness_bp
    from .rooms import lobby, notices
    from .site import discord as discord_site
    from .site import errors, headers, identity, limits, pwa, rules
    from .table import live, markup, talk
    from .table import page as table
    from .tourney import pages as tourney

    identity.init_app(app)
    headers.init_app(app)
    markup.init_app(app)
    limits.init_app(app, cluster.outage if cluster is not None else None)
    errors.init_app(app)
    app.register_blueprint(lobby.bp)
    app.register_blueprint(table.bp)
    talk.init_app(app)
    app.register_blueprint(fairness_bp)  # /fairness: how deals are made, and the figures over every deal
    live.init_app(app)
    auth.init_app(app)
    profile.init_app(app)
    people.init_app(app)
    push.init_app(app)  # before the notices: they send with it
    notices.init_app(app)
    replay.init_app(app)
    analysis.init_app(app)  # /g/<CODE>/analysis: a finished match's every bid and card weighed
    rules.init_app(app)  # /rules: how to play, and the rules at a table
    tourney.init_app(app)
    circles.init_app(app)  # /c: circles, a friend group's home
    boards.init_app(app)  # /c/<slug>/boards: a circle's weeks of duplicate boards
    secrecy.init_app(app)  # records shut while other tables play the same deals
    nights.init_app(app)  # /c/<slug>/nights: a circle's game nights (after push: it sends notices)
    account_data.init_app(app)  # /me/data.json: everything the site keeps about a person
    account_delete.init_app(app)  # /me/delete: an account deleted for good
    account_devices.init_app(app)  # /me/devices, /me/email: devices signed in, the account's address
    privacy.init_app(app)  # /privacy
    pwa.init_app(app)
    discord_site.init_app(app)  # /discord: /spades in Discord (off without DISCORD_PUBLIC_KEY)
    # outermost of the app's own layers: a slow or greedy client is refused before Flask
    # does any work for it (a ProxyFix, when used, goes around this one)
    app.wsgi_app = Guard(app.wsgi_app, per_address=app.config["MAX_REQUESTS_PER_ADDRESS"],  # type: ignore[method-assign]
                         body_timeout=app.config["BODY_TIMEOUT_S"])

    if app.config["RESUME_TABLES"]:
        service.resume_all()
        tourneys.resume()
    if app.config["TOURNEY_TICK_S"]:
        tourneys.keep_ticking(app.config["TOURNEY_TICK_S"])
    app.extensions["spades.channel_sender"] = sender = ChannelSender(store, via=app.config.get("CHANNEL_VIA"))
    sender.start(float(app.config.get("CHANNEL_TICK_S", 0 if app.testing else 2)))  # circles' channel posts
    return app


def _instance_secret(instance_path: str) -> str:
    """The secret key kept in ``instance/secret_key``, created on first start."""
    path = os.path.join(instance_path, "secret_key")
    os.makedirs(instance_path, exist_ok=True)
    try:
        with open(path) as f:
            key = f.read().strip()
        if key:
            return key
    except FileNotFoundError:
        pass
    key = secrets.token_hex(32)
    # O_EXCL: two workers starting together agree on one key (the loser reads the winner's)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        with open(path) as f:
            return f.read().strip()
    with os.fdopen(fd, "w") as f:
        f.write(key)
    return key


def close_app(app: Flask) -> None:
    """Stop the app's tables and tourneys: no timer fires and no bot is asked any more, and
    in a cluster its tables go to the other processes at once. Called by gunicorn as its
    worker exits (``worker_exit`` in gunicorn.conf.py), before the interpreter shuts the bot
    pool down, and again, harmlessly, at exit."""
    if app.extensions.get("spades.closed"):
        return
    app.extensions["spades.closed"] = True
    if "spades.notices.stop" in app.extensions:
        app.extensions["spades.notices.stop"].set()
    if "spades.channel_sender" in app.extensions:
        app.extensions["spades.channel_sender"].stop()
    app.extensions["spades.tourneys"].close()
    app.extensions["spades.analyses"].close()
    app.extensions["spades.tables"].close()
