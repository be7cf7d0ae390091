"""Web Push: the site's VAPID keys, checking a subscription a browser hands over, and
sending a notice to the browsers of one person.

A notice is a JSON object ``{"title", "body", "url"}``, encrypted to the browser's keys
(aes128gcm, RFC 8291) and signed with the site's VAPID key (RFC 8292) by pywebpush. It
says whose turn it is and where, never a card. A push service that answers 404 or 410
has forgotten the browser: its subscription is removed.

The VAPID key: ``VAPID_PRIVATE_KEY`` (a PEM, or the base64url raw 32-byte key) when
given, otherwise the one kept in ``instance/vapid_private.pem``, created on first need.
Browsers subscribe with its public key, so it must not change while they are subscribed.

Imports: stdlib, cryptography, pywebpush and ``spades.storage``. No Flask: the web layer
(``spades.web.accounts.push``) builds ``Notices`` from its config.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import logging
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from email.utils import parseaddr
from typing import Any, Literal
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from .storage import Store

log = logging.getLogger(__name__)

KEY_FILE = "vapid_private.pem"
TTL_S = 12 * 3600  # a push service keeps a notice this long for a browser that is away
TIMEOUT_S = 5.0  # for one push service's answer: a notice is never worth a stuck thread
MAX_ENDPOINT = 1024
# push services take about 4 KB a message; a notice is a line or two
MAX_TITLE, MAX_BODY, MAX_URL = 100, 300, 500
# the hosts of the push services browsers use (Chrome and its kin, Firefox, Safari, Edge):
# only these are sent to, on port 443, so a made-up subscription cannot make the site post
# anywhere it likes. Each is matched exactly; ``*.`` stands for one label of letters,
# digits and hyphens (Windows' service has a host per region: wns2-bl2p.notify.windows.com)
PUSH_HOSTS = ("fcm.googleapis.com", "android.googleapis.com", "updates.push.services.mozilla.com",
              "web.push.apple.com", "*.notify.windows.com")
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")

Outcome = Literal["sent", "gone", "failed"]


class BadSubscription(ValueError):
    """A subscription that cannot be used; its message is the sentence a person sees."""


# -- keys ------------------------------------------------------------------------------------
def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    """base64url with or without padding; ValueError for anything else."""
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as e:
        raise ValueError("not base64url") from e


@dataclass(frozen=True)
class VapidKey:
    """The site's VAPID key pair."""

    private: ec.EllipticCurvePrivateKey

    @property
    def application_server_key(self) -> str:
        """The public key as browsers take it (``applicationServerKey``): the uncompressed
        P-256 point, base64url."""
        return b64url(self.private.public_key().public_bytes(serialization.Encoding.X962,
                                                             serialization.PublicFormat.UncompressedPoint))

    def pem(self) -> bytes:
        return self.private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption())


def parse_key(text: str) -> VapidKey:
    """A private key from a PEM or the base64url raw 32-byte key; ValueError otherwise."""
    text = text.strip()
    if "-----BEGIN" in text:
        key = serialization.load_pem_private_key(text.encode("ascii"), password=None)
    else:
        raw = unb64url(text)
        if len(raw) != 32:
            raise ValueError("a raw VAPID key has 32 bytes")
        key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        raise ValueError("a VAPID key is a P-256 key")
    return VapidKey(key)


def vapid_key(setting: str | None, instance_path: str) -> VapidKey:
    """The key given in the settings, or the one kept in ``instance/``, made on first need
    (O_EXCL: two workers starting together agree on one key). ValueError for a bad one."""
    if setting:
        return parse_key(setting)
    path = os.path.join(instance_path, KEY_FILE)
    try:
        with open(path) as f:
            return parse_key(f.read())
    except FileNotFoundError:
        pass
    os.makedirs(instance_path, exist_ok=True)
    made = VapidKey(ec.generate_private_key(ec.SECP256R1()))
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        with open(path) as f:  # the other worker's, written whole before it closed
            return parse_key(f.read())
    with os.fdopen(fd, "wb") as f:
        f.write(made.pem())
    return made


def check_subject(subject: str) -> str:
    """A VAPID subject: a ``mailto:`` address or an ``https:`` page; ValueError otherwise."""
    if subject.startswith("mailto:") and "@" in subject[7:] and " " not in subject:
        return subject
    if subject.startswith("https://") and len(subject) > 8 and " " not in subject:
        return subject
    raise ValueError("VAPID_SUBJECT must be a mailto: address or an https: address")


def subject_for(setting: str | None, mail_sender: str | None) -> str:
    """Who push services may write to about this site's notices (VAPID's ``sub``): the
    setting, else ``mailto:`` the mail sender's address, else ``mailto:admin@localhost``."""
    if setting:
        return setting
    address = parseaddr(mail_sender or "")[1]
    return f"mailto:{address}" if "@" in address else "mailto:admin@localhost"


# -- subscriptions ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Subscription:
    """A browser's push subscription: its endpoint and keys (base64url)."""

    endpoint: str
    p256dh: str
    auth: str

    def info(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def _host_allowed(host: str, hosts: Iterable[str]) -> bool:
    """Whether ``host`` is one of ``hosts`` exactly (a ``*.`` in one: any one label there)."""
    for allowed in hosts:
        if allowed.startswith("*."):
            label, dot, rest = host.partition(".")
            if dot and rest == allowed[2:] and _LABEL.fullmatch(label):
                return True
        elif host == allowed:
            return True
    return False


def check_endpoint(endpoint: object, hosts: Iterable[str] = PUSH_HOSTS, loopback: bool = False) -> str:
    """The endpoint if it is an https URL on port 443 of a known push service's own host
    (``hosts``; no other port, and no subdomain of one), or, with ``loopback``, any http or
    https URL on 127.0.0.1 or ::1 (the tests' push service); raises BadSubscription with
    the reason."""
    if not isinstance(endpoint, str) or not endpoint:
        raise BadSubscription("The subscription has no endpoint.")
    if len(endpoint) > MAX_ENDPOINT or not endpoint.isascii() or any(c.isspace() for c in endpoint):
        raise BadSubscription("The subscription's endpoint is not a web address.")
    try:
        url = urlsplit(endpoint)
        host = (url.hostname or "").lower()
        url.port  # noqa: B018 -- raises ValueError for a port that is not a number
    except ValueError as e:
        raise BadSubscription("The subscription's endpoint is not a web address.") from e
    try:
        is_loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        is_loopback = False
    if loopback and is_loopback and url.scheme in ("http", "https"):
        return endpoint
    if url.scheme != "https" or not host:
        raise BadSubscription("The subscription's endpoint must be an https address.")
    if url.username is not None:
        raise BadSubscription("The subscription's endpoint is not a web address.")
    if not _host_allowed(host, hosts) or url.port not in (None, 443):
        raise BadSubscription("This browser's push service is not one this site sends notices to.")
    return endpoint


def parse_subscription(data: object, hosts: Iterable[str] = PUSH_HOSTS, loopback: bool = False) -> Subscription:
    """A subscription from the JSON a browser's ``PushSubscription.toJSON()`` gives:
    ``{"endpoint": …, "keys": {"p256dh": …, "auth": …}}``. Raises BadSubscription with the
    sentence to show."""
    if not isinstance(data, dict):
        raise BadSubscription("Send the browser's push subscription as a JSON object.")
    endpoint = check_endpoint(data.get("endpoint"), hosts, loopback)
    keys = data.get("keys")
    if not isinstance(keys, dict):
        raise BadSubscription("The subscription has no keys.")
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    try:
        point = unb64url(p256dh)  # type: ignore[arg-type]
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        if len(point) != 65:
            raise ValueError("not an uncompressed point")
    except (ValueError, TypeError) as e:
        raise BadSubscription("The subscription's p256dh key is not a P-256 public key.") from e
    try:
        secret = unb64url(auth)  # type: ignore[arg-type]
    except ValueError as e:
        raise BadSubscription("The subscription's auth secret is not base64url.") from e
    if len(secret) != 16:
        raise BadSubscription("The subscription's auth secret must be 16 bytes.")
    return Subscription(endpoint, p256dh, auth)  # type: ignore[arg-type]


# -- sending ---------------------------------------------------------------------------------
def send(subscription: Subscription, payload: dict[str, Any], key: VapidKey, subject: str,
         ttl: int = TTL_S, timeout: float = TIMEOUT_S) -> Outcome:
    """Encrypt ``payload`` (as JSON) to the browser and hand it to its push service:
    ``"sent"``, ``"gone"`` (the service answered 404 or 410: the browser unsubscribed or
    the subscription expired) or ``"failed"`` (anything else; logged)."""
    data = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    claims = {"sub": subject}  # a new dict each time: pywebpush writes aud and exp into it
    try:
        webpush(subscription.info(), data=data, vapid_private_key=Vapid(private_key=key.private),
                vapid_claims=claims, ttl=ttl, timeout=timeout, content_encoding="aes128gcm")
    except WebPushException as e:
        status = e.status_code
        if status in (404, 410):
            return "gone"
        log.warning("push to %s failed: %s", urlsplit(subscription.endpoint).hostname, status or e.message)
        return "failed"
    except (requests.RequestException, ValueError, TypeError) as e:
        log.warning("push to %s failed: %s", urlsplit(subscription.endpoint).hostname, e)
        return "failed"
    except Exception:  # a notice is never worth the caller's thread
        log.exception("push to %s failed", urlsplit(subscription.endpoint).hostname)
        return "failed"
    return "sent"


@dataclass(frozen=True)
class Notices:
    """Notices to people's browsers: their subscriptions in ``store``, sent with ``key``."""

    store: Store
    key: VapidKey
    subject: str
    ttl: int = TTL_S
    timeout: float = TIMEOUT_S
    hosts: tuple[str, ...] = PUSH_HOSTS
    loopback: bool = False

    def notify(self, person: str, title: str, body: str, url: str) -> int:
        """Send ``{"title", "body", "url"}`` to every browser of ``person``; the number of
        browsers whose push service took it. Subscriptions the push service says are gone
        are removed, and so is one whose endpoint ``check_endpoint`` would not take now
        (kept before the check was as strict): nothing is posted to it. A title, body or
        link longer than ``MAX_TITLE``, ``MAX_BODY`` or ``MAX_URL`` characters is cut.
        Blocks for each push service's answer (``timeout`` at most each): call it from a
        background thread, never under a table's lock."""
        payload = {"title": title[:MAX_TITLE], "body": body[:MAX_BODY], "url": url[:MAX_URL]}
        sent = 0
        for row in self.store.push_subscriptions(person):
            try:
                check_endpoint(row.endpoint, self.hosts, self.loopback)
            except BadSubscription:
                self.store.remove_push_subscription(row.endpoint)
                continue
            outcome = send(Subscription(row.endpoint, row.p256dh, row.auth), payload, self.key, self.subject,
                           ttl=self.ttl, timeout=self.timeout)
            if outcome == "sent":
                sent += 1
            elif outcome == "gone":
                self.store.remove_push_subscription(row.endpoint)
        return sent
