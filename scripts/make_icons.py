"""Draw the app's icons: a gold spade on the green felt, as PNG files in ``static/``.

``icon-192.png`` and ``icon-512.png`` (the manifest's icons; the 512 one is also the
maskable icon, so the spade stays inside the middle 80% a launcher may crop to) and
``apple-touch-icon.png`` (180 px, for iOS home screens). Run once after changing the
drawing: ``python scripts/make_icons.py``; the PNGs are kept in the repository.

Imports: the standard library only (zlib and struct write the PNG).
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "static"
FELT = (0x1F, 0x6B, 0x43)  # --felt in site.css
GOLD = (0xF2, 0xC1, 0x4E)  # --gold
SAMPLES = 4  # per side of a pixel: smooth edges


def inside_spade(x: float, y: float) -> bool:
    """Whether (x, y), in a unit square with y pointing down, is inside the spade."""
    # the blade: the heart curve (X² + Y² - 1)³ ≤ X² Y³ upside down, its point at the top
    bx, by = (x - 0.5) * 3.2, (y - 0.37) * 3.75
    if (bx * bx + by * by - 1) ** 3 <= bx * bx * by ** 3:
        return True
    # the stem: a foot that widens towards the bottom
    if 0.6 <= y <= 0.9:
        half = 0.03 + 0.14 * ((y - 0.6) / 0.3) ** 2
        return abs(x - 0.5) <= half
    return False


def draw(size: int, scale: float) -> bytes:
    """The icon's RGB rows: the felt everywhere, the spade ``scale`` of the side, centred."""
    rows = bytearray()
    off = (1 - scale) / 2
    for py in range(size):
        rows.append(0)  # filter type: none
        for px in range(size):
            hits = 0
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    x = ((px + (sx + 0.5) / SAMPLES) / size - off) / scale
                    y = ((py + (sy + 0.5) / SAMPLES) / size - off) / scale
                    hits += inside_spade(x, y)
            a = hits / (SAMPLES * SAMPLES)
            rows.extend(round(f * (1 - a) + g * a) for f, g in zip(FELT, GOLD))
    return bytes(rows)


def png(size: int, rgb_rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rgb_rows, 9))
            + chunk(b"IEND", b""))


def main() -> None:
    for name, size, scale in (("icon-192.png", 192, 0.8), ("icon-512.png", 512, 0.62),
                              ("apple-touch-icon.png", 180, 0.75)):
        (STATIC / name).write_bytes(png(size, draw(size, scale)))
        print(f"static/{name}: {size}x{size}")


if __name__ == "__main__":
    main()
