"""Notices in the browser (Web Push): a person allows them on their profile page, and the
site sends "Your turn at …" to every browser they allowed, even with the site closed.

Routes (JSON, for ``static/pwa.js``): ``GET /push/key`` gives the site's public VAPID key
(``{"key": "<applicationServerKey>"}``); ``POST /push/subscribe`` keeps the browser's
``PushSubscription`` (its ``toJSON()``: ``endpoint``, ``keys.p256dh``, ``keys.auth``) for
this person, and ``POST /push/unsubscribe`` (``{"endpoint": …}``) forgets it. Both posts
carry the ``X-CSRF-Token`` header; a malformed subscription is a 400 whose JSON
``error`` is the sentence to show; success is a 204. One client address may subscribe
``SUBSCRIBE_PER_ADDRESS`` times (then 429), and a person keeps 20 browsers at most.

``notify(app, person, title, body, url)``: what the turn notices call (as
``app.extensions["spades.push"]``, that function for this app), from any thread, with
or without a request.

Settings (defaults in ``create_app``): ``VAPID_PRIVATE_KEY`` (env
``SPADES_VAPID_PRIVATE_KEY``: a PEM or the base64url raw key; default: made once into
``instance/vapid_private.pem``), ``VAPID_SUBJECT`` (env ``SPADES_VAPID_SUBJECT``: a
``mailto:`` or ``https:`` contact for push services; default ``mailto:`` the
``SPADES_MAIL_FROM`` address, else ``mailto:admin@localhost``), ``PUSH_HOSTS`` (the push
services sent to, ``spades.push.PUSH_HOSTS``) and ``PUSH_ALLOW_LOOPBACK`` (endpoints on
127.0.0.1 or ::1 over http too; on when testing).

Imports: Flask, ``spades.push``, the web layer's identity and limits, and the accounts' services.
"""

from __future__ import annotations

import functools
import os
import threading

from flask import Blueprint, Flask, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from ...push import BadSubscription, Notices, check_endpoint, parse_subscription, subject_for
from ...push import vapid_key as load_vapid_key
from ..site.identity import player_id
from ..site.limits import limiter
from .services import forget_subscription, has_push, keep_subscription

bp = Blueprint("push", __name__, url_prefix="/push")
_making = threading.Lock()
# a browser subscribes once and again now and then; a stream of them is someone filling the table
SUBSCRIBE_PER_ADDRESS = "60 per hour"


def notices(app: Flask) -> Notices:
    """The app's notices (its VAPID key loaded, or made on first need)."""
    found = app.extensions.get("spades.push.notices")
    if found is None:
        with _making:
            found = app.extensions.get("spades.push.notices")
            if found is None:
                key = load_vapid_key(app.config.get("VAPID_PRIVATE_KEY"), app.instance_path)
                sender = app.config.get("SPADES_MAIL_FROM") or os.environ.get("SPADES_MAIL_FROM")
                found = Notices(app.extensions["spades.tables"].store, key,
                                subject_for(app.config.get("VAPID_SUBJECT"), sender),
                                hosts=tuple(app.config["PUSH_HOSTS"]), loopback=bool(app.config["PUSH_ALLOW_LOOPBACK"]))
                app.extensions["spades.push.notices"] = found
    return found


def notify(app: Flask, person: str, title: str, body: str, url: str) -> int:
    """Send the notice ``title`` / ``body`` with the link ``url`` (a path on this site, such
    as ``/g/ABCDEF``) to every browser where ``person`` (an account's or a browser's player
    id) allowed notices; the number of browsers it went to. Subscriptions their push
    service says are gone are removed; other failures are logged and not counted. Needs no
    request or app context; waits for each push service (5 s at most each), so call it
    from a background thread."""
    if not has_push(app, person):
        return 0  # most people: no key is loaded (or made) for them
    return notices(app).notify(person, title, body, url)


def _refuse(sentence: str, status: int = 400):
    return jsonify(error=sentence), status


@bp.errorhandler(HTTPException)
def _refused(e: HTTPException):
    """A refusal of these routes (a stale CSRF token, too many, too large) in the same JSON
    as their own: the script that posted shows the sentence."""
    if e.code is None or e.code >= 500:
        return e
    return _refuse(e.description or "That did not work. Reload the page and try again.", e.code)


@bp.get("/key")
def key():
    return jsonify(key=notices(current_app).key.application_server_key)


@bp.post("/subscribe")
@limiter.limit(SUBSCRIBE_PER_ADDRESS, error_message="Too many browsers asked for notices from here. Try again later.")
def subscribe():
    config = current_app.config
    try:
        sub = parse_subscription(request.get_json(silent=True), config["PUSH_HOSTS"],
                                 config["PUSH_ALLOW_LOOPBACK"])
    except BadSubscription as e:
        return _refuse(str(e))
    person = player_id(create=True)
    assert person is not None
    keep_subscription(person, sub)
    return "", 204


@bp.post("/unsubscribe")
def unsubscribe():
    data = request.get_json(silent=True)
    config = current_app.config
    try:
        endpoint = check_endpoint(data.get("endpoint") if isinstance(data, dict) else None,
                                  config["PUSH_HOSTS"], config["PUSH_ALLOW_LOOPBACK"])
    except BadSubscription as e:
        return _refuse(str(e))
    forget_subscription(endpoint, player_id())
    return "", 204


def init_app(app: Flask) -> None:
    """Register the routes, and keep ``notify`` for this app in ``app.extensions["spades.push"]``
    (``(person, title, body, url) -> int``: what the turn notices, ``spades.notices``, send
    with); call it before the notices start."""
    app.extensions["spades.push"] = functools.partial(notify, app)
    app.register_blueprint(bp)
