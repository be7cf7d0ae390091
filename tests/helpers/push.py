"""Web Push: the site's VAPID key and a browser's subscription keys."""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field

import http_ece
from conftest import csrf_of
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

SITE_KEY = ec.generate_private_key(ec.SECP256R1())
SITE_PEM = SITE_KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()).decode()


def vapid_config() -> dict:
    """The settings of an app that sends Web Push notices (its VAPID key and subject)."""
    return {"VAPID_PRIVATE_KEY": SITE_PEM, "VAPID_SUBJECT": "mailto:games@spades.test",
            "PUBLIC_URL": "https://spades.example"}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# -- a browser's side of a subscription --------------------------------------------------------
@dataclass
class BrowserKeys:
    """What a browser makes when it subscribes: a P-256 key pair and a 16-byte auth secret."""

    private: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self, endpoint: str) -> dict:
        point = self.private.public_key().public_bytes(serialization.Encoding.X962,
                                                       serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": endpoint, "expirationTime": None, "keys": {"p256dh": b64url(point),
                                                                      "auth": b64url(self.auth)}}

    def decrypt(self, body: bytes) -> dict:
        return json.loads(http_ece.decrypt(body, private_key=self.private, auth_secret=self.auth,
                                           version="aes128gcm"))


def subscribe(client, subscription, csrf: str | None = "read"):
    headers = {} if csrf is None else {"X-CSRF-Token": csrf_of(client) if csrf == "read" else csrf}
    if isinstance(subscription, (bytes, str)):
        return client.post("/push/subscribe", data=subscription, headers=headers, content_type="application/json")
    return client.post("/push/subscribe", json=subscription, headers=headers)
