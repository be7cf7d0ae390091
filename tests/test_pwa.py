"""The site as an installable app, over HTTP: every page links the manifest, its theme
colour and the home-screen icon; the manifest says what an installable app needs; the
icons are PNGs of the sizes it says; the service worker is served from the root, not
cached, with the static files it keeps; and the security headers let all of them load."""

from __future__ import annotations

import json
import re
import struct

from spades.web.site.headers import POLICY


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_every_page_links_the_manifest_theme_colour_and_icons(client):
    for path in ("/", "/me", "/signin"):
        html = client.get(path).get_data(as_text=True)
        assert '<link rel="manifest" href="/static/manifest.webmanifest">' in html, path
        assert '<meta name="theme-color" content="#134a2d">' in html
        assert '<link rel="apple-touch-icon" href="/static/apple-touch-icon.png">' in html
        assert '<script src="/static/pwa.js" defer></script>' in html


def test_the_manifest_names_the_app_and_its_icons(client):
    r = client.get("/static/manifest.webmanifest")
    assert r.status_code == 200
    assert r.mimetype == "application/manifest+json"
    manifest = json.loads(r.get_data())
    assert manifest["name"] == "Spades with friends" and manifest["short_name"] == "Spades"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/" and manifest["display"] == "standalone"
    assert manifest["theme_color"] == "#134a2d" and manifest["background_color"] == "#eef1ec"
    sizes = {}
    for icon in manifest["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200 and got.mimetype == "image/png" == icon["type"]
        width, height = png_size(got.get_data())
        assert icon["sizes"] == f"{width}x{height}"
        sizes.setdefault(icon.get("purpose", "any"), set()).add(width)
    assert sizes["any"] >= {192, 512}
    assert 512 in sizes["maskable"]
    touch = client.get("/static/apple-touch-icon.png")
    assert touch.mimetype == "image/png" and png_size(touch.get_data()) == (180, 180)


def test_the_service_worker_is_served_from_the_root_uncached_with_the_static_files(client):
    r = client.get("/sw.js")
    assert r.status_code == 200
    assert r.mimetype == "text/javascript"
    assert r.headers["Cache-Control"] == "no-cache"
    assert r.headers["Service-Worker-Allowed"] == "/"
    text = r.get_data(as_text=True)
    head = json.loads(re.match(r"self\.SPADES = (.*);\n", text).group(1))
    assert re.fullmatch(r"[0-9a-f]{16}", head["version"])
    assert {"/static/site.css", "/static/pwa.js", "/static/icon-192.png", "/static/manifest.webmanifest",
            "/static/htmx-2.0.11.min.js"} <= set(head["files"])
    assert "/static/sw.js" not in head["files"]
    for url in head["files"]:  # the worker's install fails if any of them does not load
        assert client.get(url).status_code == 200, url
    assert 'addEventListener("push"' in text and 'addEventListener("notificationclick"' in text
    assert client.get("/sw.js").get_data() == r.get_data()  # one version while the files stay the same


def test_the_security_policy_allows_the_manifest_worker_and_icons(client):
    r = client.get("/")
    assert r.headers["Content-Security-Policy"] == POLICY
    policy = dict(part.split(" ", 1) for part in POLICY.split("; "))
    # none of manifest-src, worker-src or img-src narrows 'self'
    assert policy["default-src"] == "'self'" and "manifest-src" not in policy and "worker-src" not in policy
    assert policy["script-src"] == "'self'" and policy["img-src"].startswith("'self'")
    assert client.get("/sw.js").headers["X-Content-Type-Options"] == "nosniff"
