"""A relay between a browser and the site's socket that can refuse or shut it."""

from __future__ import annotations

import socket
import threading
from urllib.parse import urlsplit


def refuse(client: socket.socket) -> None:
    """Close a connection just accepted with a reset: refused."""
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    client.close()


def shut(conns: set[socket.socket]) -> None:
    """Reset every connection of ``conns`` and forget them."""
    for s in conns:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    conns.clear()


class Relay:
    """A TCP relay from a loopback port to the site that can be cut and restored."""

    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self.upstream = (parts.hostname, parts.port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.cut = False
        self.open: set[socket.socket] = set()
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.cut:
                refuse(client)
                continue
            server = socket.create_connection(self.upstream)
            with self.lock:
                self.open |= {client, server}
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self.pump, args=(a, b), daemon=True).start()

    def pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def drop(self) -> None:
        """Reset every connection and refuse new ones, until ``restore``."""
        self.cut = True
        with self.lock:
            shut(self.open)

    def restore(self) -> None:
        self.cut = False

    def close(self) -> None:
        self.drop()
        self.listener.close()
