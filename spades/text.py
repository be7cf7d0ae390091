"""Text a person sends, as the site keeps it: a chat line, a name (at a table, on the
profile, of a tourney). Every place where such a text comes in passes it through
``clean_text`` before it checks its length or whether anything is left.

Taken out: control characters (a tab or a line break becomes a space), the characters
that turn the direction of the text around them (embeddings, overrides, isolates and the
direction marks), which would let a line or a name show other than what it holds, and
the other invisible format characters (a zero-width space, a soft hyphen), which let two
names that look the same differ. The zero-width joiners are kept between two visible
characters: emoji such as 👩‍💻 and the words of some scripts are written with them.

Imports: stdlib only.
"""

from __future__ import annotations

import unicodedata

JOINERS = frozenset("\u200c\u200d")  # zero-width non-joiner and joiner


def clean_text(text: str | None) -> str:
    """``text`` as it is kept: control characters out (whitespace among them becomes a
    space), direction and other invisible format characters out (a joiner stays between
    two visible characters), runs of spaces made one, no spaces at the ends. A text that
    comes out empty held nothing to keep: callers refuse it like an empty one.

    >>> clean_text("  a\\x00b\\u202e   c\\n\\td ")
    'ab c d'
    >>> clean_text("\\u202eevil\\u202c.exe"), clean_text("\\u200b\\u2066"), clean_text("👩\\u200d💻")
    ('evil.exe', '', '👩\\u200d💻')
    """
    kept: list[str] = []
    for c in text or "":
        category = unicodedata.category(c)
        if category == "Cc" or category == "Zl" or category == "Zp":
            kept.append(" " if c.isspace() else "")
        elif c in JOINERS:
            kept.append(c)
        elif category == "Cf" or category == "Cs":
            # format characters, the direction controls among them (the marks U+061C,
            # U+200E, U+200F, the embeddings and overrides U+202A-U+202E, the isolates
            # U+2066-U+2069), and lone surrogates
            continue
        else:
            kept.append(c)
    spaced = " ".join("".join(kept).split())
    # a joiner joins two visible characters, or it is taken out
    return "".join(c for i, c in enumerate(spaced)
                   if c not in JOINERS or 0 < i < len(spaced) - 1
                   and not spaced[i - 1].isspace() and spaced[i - 1] not in JOINERS
                   and not spaced[i + 1].isspace())
