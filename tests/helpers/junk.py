"""Junk text that forms and pages must survive."""

from __future__ import annotations

NASTY = ["²", "١٢", "٣", "9" * 40, "-1", "0", "14", "1e3", " 3 ", "", "\x00", "\r\nX: y", "<script>", "nil",
         "blind_nil", "look", "deal", "deal_now", "QS", "ZZ", "bot", "🦊", "a" * 5000, "x@", "é" * 30]
