"""The site as an app on a phone's home screen: the service worker at ``/sw.js`` and the
types of the manifest and icons (``static/manifest.webmanifest``, ``static/icon-*.png``).

The worker (``static/sw.js``) is served from the root so its scope is the whole site,
``no-cache`` so browsers look for a new one on every visit. It is sent with a first line
naming the static files and a version made from their contents: a change to any static
file makes a new worker, which fetches them again and drops the old cache.

Imports: Flask only.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os

from flask import Blueprint, Flask, Response, current_app

bp = Blueprint("pwa", __name__)
CACHED = (".css", ".js", ".png", ".svg", ".webmanifest")  # the static files the worker keeps
_worker: dict[str, bytes] = {}  # static folder -> the worker as sent (the files do not change while serving)


def worker_script(static_folder: str, static_url: str, fresh: bool = False) -> bytes:
    """``static/sw.js`` with its first line: the static files' URLs and their version
    (read once, or each time when ``fresh``: the debug server, where files change)."""
    found = None if fresh else _worker.get(static_folder)
    if found is None:
        digest = hashlib.sha256()
        files = []
        for name in sorted(os.listdir(static_folder)):
            path = os.path.join(static_folder, name)
            if name == "sw.js" or not name.endswith(CACHED) or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                digest.update(name.encode() + b"\0" + f.read() + b"\0")
            files.append(f"{static_url}/{name}")
        with open(os.path.join(static_folder, "sw.js"), "rb") as f:
            script = f.read()
        digest.update(script)
        head = json.dumps({"version": digest.hexdigest()[:16], "files": files})
        found = f"self.SPADES = {head};\n".encode() + script
        _worker[static_folder] = found
    return found


@bp.get("/sw.js")
def service_worker() -> Response:
    app = current_app
    assert app.static_folder is not None
    body = worker_script(app.static_folder, app.static_url_path or "/static", fresh=app.debug)
    return Response(body, mimetype="text/javascript",
                    headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})


def init_app(app: Flask) -> None:
    # not every system's mime.types knows these
    mimetypes.add_type("application/manifest+json", ".webmanifest")
    mimetypes.add_type("text/javascript", ".js")
    mimetypes.add_type("image/png", ".png")
    app.register_blueprint(bp)
