"""The schema's migrations, one list for both engines, and the two ways of applying them.

``MIGRATIONS``: functions of a ``Schema`` (tables, columns, indexes), applied in the order
they are registered, each once, and recorded by their function's name: a migration is
never renamed, reordered or changed once released, so every database from before opens
with nothing lost. ``SqliteSchema`` builds them with sqlite-utils, as it always has here,
and ``sqlite_migrations`` records them as sqlite-utils' ``Migrations`` do (table
``_sqlite_migrations``, set ``spades``); ``PgSchema`` writes the same tables in portable
DDL (TEXT, BIGINT and DOUBLE PRECISION, an ``id`` primary key an identity). The engines
(``spades.storage.engines``) decide when to apply them.

Imports: stdlib and sqlite-utils only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations as SqliteMigrations


class Schema(Protocol):
    """What a migration does, on either engine. ``engine``: ``"sqlite"`` or ``"postgresql"``
    (for the rare statement written twice, a trigger). Column types are ``str``, ``int``
    and ``float``; ``foreign_keys`` are (column, other table, its column)."""

    engine: str

    def create_table(self, name: str, columns: dict[str, type], pk: str | tuple[str, ...], *,
                     not_null: Iterable[str] = (), defaults: dict[str, Any] | None = None,
                     foreign_keys: Iterable[tuple[str, str, str]] = ()) -> None: ...

    def add_column(self, table: str, column: str, type_: type, not_null_default: Any = None) -> None: ...

    def create_index(self, table: str, columns: list[str], *, unique: bool = False) -> None: ...

    def execute(self, sql: str) -> None: ...


Migration = Callable[[Schema], None]
MIGRATIONS: list[Migration] = []
MIGRATION_SET = "spades"  # the name migrations are recorded under


def migration(fn: Migration) -> Migration:
    """Register a migration, named by its function: they apply in the order registered."""
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_tables_matches_seats_actions(s: Schema) -> None:
    s.create_table("players", {"id": str, "name": str, "emoji": str, "created": float}, pk="id")
    s.create_table("tables", {"code": str, "created": float, "host": str, "options": str, "status": str}, pk="code")
    s.create_table(
        "matches",
        {"id": int, "table_code": str, "number": int, "seed": str, "rules": str,
         "version": int, "created": float, "finished": int, "winner": int},
        pk="id", foreign_keys=[("table_code", "tables", "code")],
    )
    s.create_index("matches", ["table_code", "number"], unique=True)
    s.create_table(
        "seats", {"table_code": str, "seat": int, "kind": str, "player_id": str, "name": str},
        pk=("table_code", "seat"), foreign_keys=[("table_code", "tables", "code")],
    )
    s.create_index("seats", ["player_id"])
    # Append-only: one row per accepted move; (match_id, version) is the move's identity,
    # so a move can never be stored twice.
    s.create_table(
        "actions", {"match_id": int, "version": int, "seat": int, "action": str, "at": float},
        pk=("match_id", "version"), foreign_keys=[("match_id", "matches", "id")],
    )


@migration
def m002_lobby(s: Schema) -> None:
    """Rooms where friends gather before a match: who joined, in which order, and the
    host's choice of partner. ``seats.emoji``: the emoji each person chose for the table."""
    s.add_column("seats", "emoji", str, not_null_default="")
    # partner: a member number, 0 for a bot, NULL while the host has not chosen
    s.create_table("rooms", {"code": str, "partner": int, "started": float}, pk="code",
                   foreign_keys=[("code", "tables", "code")])
    # number: join order within the room (1 is the creator); state: in, left or removed
    s.create_table(
        "room_members",
        {"table_code": str, "number": int, "player_id": str, "name": str, "emoji": str,
         "state": str, "joined": float},
        pk=("table_code", "number"), foreign_keys=[("table_code", "tables", "code")],
    )
    s.create_index("room_members", ["table_code", "player_id"], unique=True)
    s.create_index("room_members", ["player_id"])


# m002_lobby (the play-with-friends issue) goes above this line: migrations apply in the
# order they are registered.
@migration
def m003_accounts(s: Schema) -> None:
    """Accounts, sign-in codes and ratings.

    ``users.id`` IS the account's canonical player id (the ``pid`` a signed-in session
    carries), so seats need no second key. ``session_gen`` is bumped by "sign out on every
    device"; a session whose copy differs is cleared. ``login_codes`` keeps only an HMAC of
    each code. ``seats.left_player_id``: the person who left that seat for good when a bot
    took it over (the row then has ``kind = 'bot'``); records count only ``kind = 'human'``
    seats, so a game someone left never counts toward the leaver's record.
    """
    s.create_table(
        "users", {"id": str, "email": str, "name": str, "emoji": str, "created": float, "session_gen": int},
        pk="id", not_null={"email", "session_gen"}, defaults={"session_gen": 0},
    )
    s.create_index("users", ["email"], unique=True)
    s.create_table(
        "login_codes",
        {"id": int, "email": str, "code_hash": str, "created": float, "expires": float,
         "tries": int, "used": int, "voided": int},
        pk="id", defaults={"tries": 0, "used": 0, "voided": 0},
    )
    s.create_index("login_codes", ["email", "id"])
    s.add_column("seats", "left_player_id", str)
    s.create_index("seats", ["left_player_id"])
    s.create_table("ratings", {"player_id": str, "mu": float, "sigma": float, "matches": int, "updated": float},
                   pk="player_id")
    # one row per finished match already counted in the ratings (each match rates once)
    s.create_table("rated_matches", {"match_id": int, "at": float}, pk="match_id",
                   foreign_keys=[("match_id", "matches", "id")])


@migration
def m004_match_seats(s: Schema) -> None:
    """Who sat where in each finished match, frozen when it finished (``match_seats``).

    ``seats`` holds a table's seating now; a rematch may rearrange it (a new partner), so
    a person's record reads finished matches from here. A trigger copies the seats the
    moment a match's ``finished`` turns 1: a seat left to a bot during the match is
    frozen as the bot's (``kind = 'bot'``, ``left_player_id`` = who left)."""
    s.create_table(
        "match_seats",
        {"match_id": int, "seat": int, "kind": str, "player_id": str, "left_player_id": str, "name": str},
        pk=("match_id", "seat"), foreign_keys=[("match_id", "matches", "id")],
    )
    s.create_index("match_seats", ["player_id"])
    if s.engine == "sqlite":
        s.execute("""
        CREATE TRIGGER match_seats_on_finish AFTER UPDATE OF finished ON matches
        WHEN NEW.finished = 1 AND OLD.finished = 0
        BEGIN
            INSERT OR IGNORE INTO match_seats (match_id, seat, kind, player_id, left_player_id, name)
            SELECT NEW.id, seat, kind, player_id, left_player_id, name FROM seats WHERE table_code = NEW.table_code;
        END""")
    else:
        s.execute("""
        CREATE FUNCTION match_seats_on_finish() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO match_seats (match_id, seat, kind, player_id, left_player_id, name)
            SELECT NEW.id, seat, kind, player_id, left_player_id, name FROM seats WHERE table_code = NEW.table_code
            ON CONFLICT DO NOTHING;
            RETURN NULL;
        END $$""")
        s.execute("CREATE TRIGGER match_seats_on_finish AFTER UPDATE OF finished ON matches FOR EACH ROW "
                  "WHEN (NEW.finished = 1 AND OLD.finished = 0) EXECUTE FUNCTION match_seats_on_finish()")
    # matches finished before this migration: their table's seating now is the best we know
    s.execute("INSERT INTO match_seats (match_id, seat, kind, player_id, left_player_id, name) "
              "SELECT m.id, s.seat, s.kind, s.player_id, s.left_player_id, s.name FROM matches m "
              "JOIN seats s ON s.table_code = m.table_code WHERE m.finished = 1 ON CONFLICT DO NOTHING")


@migration
def m005_clocks(s: Schema) -> None:
    """Clocks (``spades.clocks``), kept here so they survive a restart and fire once.

    ``clocks``: the deadline (epoch seconds) of the seat to act in a match, one row per
    match, for the version it was set at: a move at any other version makes it stale.
    ``seat_clocks``: each seat's record with the clock during a match (timeouts in a row,
    ever timed out, autopilot). ``holds``: a seat whose player's last connection closed,
    held ``until``; ``fired`` once a bot took the seat over (until the player is back)."""
    s.create_table("clocks", {"match_id": int, "seat": int, "version": int, "deadline": float},
                   pk="match_id", foreign_keys=[("match_id", "matches", "id")])
    s.create_index("clocks", ["deadline"])
    s.create_table(
        "seat_clocks", {"match_id": int, "seat": int, "timeouts_in_row": int, "timed_out": int, "autopilot": int},
        pk=("match_id", "seat"), foreign_keys=[("match_id", "matches", "id")])
    s.create_table("holds", {"table_code": str, "seat": int, "dropped_at": float, "until": float, "fired": int},
                   pk=("table_code", "seat"), foreign_keys=[("table_code", "tables", "code")])
    s.create_index("holds", ["until"])


@migration
def m006_signins(s: Schema) -> None:
    """One row per signed-in session (``sid``, kept in the signed cookie): signing out ends
    that row, so a copy of the cookie is signed out too. Sessions from before carry no sid
    and are signed out once."""
    s.create_table("signins", {"sid": str, "user_id": str, "created": float, "ended": float}, pk="sid",
                   foreign_keys=[("user_id", "users", "id")])
    s.create_index("signins", ["user_id"])


@migration
def m007_code_askers(s: Schema) -> None:
    """A sign-in code belongs to the browser that asked for it (``asker``, a random id kept
    in that browser's session): only it may try the code, and asking again voids only its
    own earlier code, so a stranger can neither burn nor void a person's code. Codes from
    before have no asker and can no longer be used."""
    s.add_column("login_codes", "asker", str, not_null_default="")
    s.create_index("login_codes", ["email", "asker", "id"])


@migration
def m008_tourneys(s: Schema) -> None:
    """Tourneys (``spades.tourney.service``): one row each, with the engine's state as its
    JSON (``engine``: the knockout bracket, or the Swiss rounds); the teams (``token``: the
    link a first player sends the partner; ``state``: in, removed, dropped, merged); the
    people and bot partners in them (a person is in at most one team of a tourney);
    every pairing with its due time, its table and its result (``hands`` NULL until it
    has one; 0 for a walkover or a no-show); and who pressed Ready for which pairing."""
    s.create_table(
        "tourneys",
        {"code": str, "name": str, "format": str, "rounds": int, "team_limit": int, "start_at": float,
         "checkin_s": float, "listed": int, "bot_fill": int, "director": str, "status": str, "created": float,
         "started": float, "finished": float, "seed": str, "engine": str, "note": str},
        pk="code", not_null={"name", "format", "status"})
    s.create_index("tourneys", ["status"])
    s.create_table(
        "tourney_teams",
        {"tourney_code": str, "id": int, "token": str, "solo": int, "bot": int, "state": str, "note": str,
         "seed": int, "created": float},
        pk=("tourney_code", "id"), foreign_keys=[("tourney_code", "tourneys", "code")])
    s.create_index("tourney_teams", ["tourney_code", "token"], unique=True)
    s.create_table(
        "tourney_players",
        {"tourney_code": str, "team_id": int, "slot": int, "player_id": str, "name": str, "emoji": str,
         "bot": int, "checked_in": float, "joined": float},
        pk=("tourney_code", "team_id", "slot"), foreign_keys=[("tourney_code", "tourneys", "code")])
    # a person is in at most one team of a tourney (bots have no player id: NULLs never clash)
    s.create_index("tourney_players", ["tourney_code", "player_id"], unique=True)
    s.create_index("tourney_players", ["player_id"])
    s.create_table(
        "tourney_matches",
        {"tourney_code": str, "round": int, "slot": int, "team_a": int, "team_b": int, "target": int,
         "due": float, "table_code": str, "winner": int, "score_a": int, "score_b": int, "hands": int,
         "walkover": int, "note": str, "done": float},
        pk=("tourney_code", "round", "slot"), foreign_keys=[("tourney_code", "tourneys", "code")])
    s.create_index("tourney_matches", ["table_code"])
    s.create_table(
        "tourney_ready", {"tourney_code": str, "round": int, "slot": int, "player_id": str, "at": float},
        pk=("tourney_code", "round", "slot", "player_id"), foreign_keys=[("tourney_code", "tourneys", "code")])


@migration
def m009_fair_deals(s: Schema) -> None:
    """Provably fair deals (``spades.fairness``, docs/fairness.md).

    ``deal_secrets``: each match's secret, by table and match number (a room keeps its
    first match's before the start, to show that deal's commitment); every hand's server
    seed is derived from it. ``hands``: each hand dealt from it, with the contributions it
    was dealt with (a JSON list). Matches from before deal from their seed as they always
    did: they are marked with an empty secret, so no secret is ever drawn for them."""
    s.create_table("deal_secrets", {"table_code": str, "match_number": int, "secret": str, "created": float},
                   pk=("table_code", "match_number"), not_null={"secret"})
    s.create_table("hands", {"table_code": str, "match_number": int, "hand": int, "contributions": str,
                             "dealt": float},
                   pk=("table_code", "match_number", "hand"), not_null={"contributions"})
    s.execute("INSERT INTO deal_secrets (table_code, match_number, secret, created) "
              "SELECT table_code, number, '', created FROM matches")


@migration
def m010_signin_guards(s: Schema) -> None:
    """Guards on signing in that no stranger can fill for a person (``spades.accounts``).

    ``signin_guards``: one row per address asked for, its wrong code tries in a row from
    everywhere (``failures``, back to 0 when the address signs in) and, once they reach the
    cap, until when browsers that never signed in to it are refused (``locked_until``); a
    code asked for it first updates the row, so two asks at once are counted one after
    the other on both engines. ``login_codes.trusted``: the code was asked by a browser
    that signed in to the address before (it does not count against the address's codes
    an hour). ``signins.seen``: when the session was last used, to within a day (NULL for
    sessions from before: counted from their next use)."""
    s.create_table("signin_guards", {"email": str, "failures": int, "locked_until": float, "asked": float},
                   pk="email", not_null={"failures", "locked_until"}, defaults={"failures": 0, "locked_until": 0.0})
    s.add_column("login_codes", "trusted", int, not_null_default=0)
    s.create_index("login_codes", ["email", "created"])
    s.add_column("signins", "seen", float)


@migration
def m011_talk(s: Schema) -> None:
    """Talk at the table and the people one plays with (``spades.storage.talk``).

    ``chat_lines``: a table's messages and reactions, numbered from 1 per table (the
    number is what pages name a message by), with the sender's person id (never shown),
    name and emoji as they were, their seat (NULL: a watcher), the chat it went to
    (``players`` or ``watchers``) and its ``kind`` (``text`` or ``reaction``).
    ``chat_silenced``: the people the host silenced at a table. ``mutes`` and ``blocks``:
    whom a person (an account, or a browser's id) muted or blocked. ``reports``: a
    reported message with the messages before it (JSON), for whoever runs the site.
    ``invitations``: a table a person was invited to, shown on their Rejoin list."""
    s.create_table("chat_lines", {"table_code": str, "number": int, "at": float, "person": str, "name": str,
                                  "emoji": str, "seat": int, "room": str, "kind": str, "text": str},
                   pk=("table_code", "number"), not_null={"person", "room", "kind", "text"})
    s.create_table("chat_silenced", {"table_code": str, "person": str, "at": float}, pk=("table_code", "person"))
    for name in ("mutes", "blocks"):
        s.create_table(name, {"owner": str, "person": str, "at": float}, pk=("owner", "person"))
        s.create_index(name, ["person"])
    s.create_table("reports", {"id": int, "at": float, "table_code": str, "number": int, "reporter": str,
                               "reporter_name": str, "reported": str, "reported_name": str, "text": str,
                               "context": str}, pk="id", not_null={"table_code", "reporter", "reported"})
    s.create_table("invitations", {"id": int, "person": str, "table_code": str, "by_name": str, "at": float},
                   pk="id", not_null={"person", "table_code"})
    s.create_index("invitations", ["person"])


@migration
def m012_analyses(s: Schema) -> None:
    """Finished matches' analyses (``spades.tables.analyses``): one per table and match
    number, stored once when done (``data``: the analysed hands as JSON)."""
    s.create_table("analyses", {"table_code": str, "match_number": int, "data": str, "created": float},
                   pk=("table_code", "match_number"), not_null={"data"})


@migration
def m014_turns(s: Schema) -> None:
    """Turn-based tables (``spades.storage.turns``): whom each table waits on now.

    ``turns``: one row per person a turn-based table waits on (the person to move, or
    between hands each person who has not pressed Continue), with their seat, since when
    (``since``), until when (``deadline``, NULL without a clock), ``turn`` (which wait this
    is: a new one starts the row again), whether they had no page of the table open when
    it began (``notify``: a notice is due) and whether the push notice, the mail and the
    80% warning went out (``pushed``, ``notified``, ``warned``). ``notice_prefs``: a
    person's choice about notice mails, and when the last one went out (one an hour)."""
    s.create_table("turns", {"table_code": str, "person": str, "seat": int, "turn": str, "since": float,
                             "deadline": float, "notify": int, "pushed": int, "notified": int, "warned": int},
                   pk=("table_code", "person"), not_null={"turn", "since"},
                   defaults={"notify": 0, "pushed": 0, "notified": 0, "warned": 0})
    s.create_index("turns", ["person"])
    s.create_index("turns", ["deadline"])
    s.create_table("notice_prefs", {"person": str, "mail_off": int, "last_mail": float}, pk="person",
                   defaults={"mail_off": 0})


@migration
def m015_push(s: Schema) -> None:
    """Push subscriptions (``spades.storage.push``): a browser's push service endpoint, the
    person it belongs to, and the keys (base64url) notices to it are encrypted to."""
    s.create_table("push_subscriptions", {"endpoint": str, "person": str, "p256dh": str, "auth": str,
                                          "created": float},
                   pk="endpoint", not_null={"person", "p256dh", "auth"})
    s.create_index("push_subscriptions", ["person"])


@migration
def m016_turns_away(s: Schema) -> None:
    """``turns.away``: when the person's last page of the table closed during a wait that
    began with a page open (NULL: a page is open, or none was as it began and ``notify``
    says so); the notices tell them once a short grace has passed (``spades.notices``)."""
    s.add_column("turns", "away", float)


@migration
def m017_cutthroat_ratings(s: Schema) -> None:
    """Cutthroat ratings (``spades.accounts``): each person's rating from matches without
    partners (three or four players, each a side alone), kept apart from the partnership
    rating in ``ratings``, which is left as it was. A finished match is still rated once,
    in one of the two (``rated_matches``)."""
    s.create_table("cutthroat_ratings",
                   {"player_id": str, "mu": float, "sigma": float, "matches": int, "updated": float},
                   pk="player_id")


@migration
def m018_takebacks(s: Schema) -> None:
    """``matches.takebacks``: how many times its person took a move back (undo, at a
    practice table). The moves taken back are gone from ``actions``; a match with any
    says "with takebacks" and is not rated."""
    s.add_column("matches", "takebacks", int, not_null_default=0)


@migration
def m019_circles(s: Schema) -> None:
    """Circles, a friend group's home (``spades.storage.circles``, ``spades.circles``).

    ``circles``: one row each, by its short address (``slug``), with its owner and the
    invite link's current ``invite_nonce`` (renewing the link draws a new one, so an old
    link is told apart as replaced). ``circle_members``: who belongs (``role`` owner or
    member; ``state`` in, left or removed, with ``left`` when). ``circle_seasons``: a
    circle's seasons, numbered from 1, each ``started`` and due to ``ends`` (a month), and
    ``closed`` once over. ``circle_tables``: a table played for a circle, in the season it
    was started in. ``circle_results``: a finished match of a circle's table, as the
    standings read it (the season it finished in, who sat where, each side's score, the
    winning side), kept once so a page never replays a match."""
    s.create_table("circles", {"slug": str, "name": str, "owner": str, "created": float, "invite_nonce": str,
                               "invite_made": float}, pk="slug", not_null={"name", "owner", "invite_nonce"})
    s.create_index("circles", ["owner", "created"])
    s.create_table("circle_members", {"slug": str, "person": str, "role": str, "state": str, "joined": float,
                                      "left": float},
                   pk=("slug", "person"), not_null={"role", "state"})
    s.create_index("circle_members", ["person"])
    s.create_table("circle_seasons", {"slug": str, "number": int, "started": float, "ends": float, "closed": float},
                   pk=("slug", "number"), not_null={"started", "ends"})
    s.create_table("circle_tables", {"table_code": str, "slug": str, "season": int, "by": str, "created": float},
                   pk="table_code", not_null={"slug"})
    s.create_index("circle_tables", ["slug", "created"])
    s.create_table("circle_results", {"match_id": int, "slug": str, "season": int, "table_code": str, "number": int,
                                      "finished": float, "partners": int, "seats": str, "sides": str, "scores": str,
                                      "winner": int},
                   pk="match_id", not_null={"slug", "seats", "sides", "scores"})
    s.create_index("circle_results", ["slug", "season", "finished"])


@migration
def m020_boards(s: Schema) -> None:
    """Duplicate boards (``spades.storage.boards``, ``spades.circles.boards``).

    ``board_weeks``: a circle's week of boards, by its ``id``: how many ``boards``, the
    ``rules`` every table of the week plays (JSON), the week's ``seed`` (server-side
    only: the week's deal secret is made from it, and it is each table's match seed),
    when it ``starts`` and ``ends``, and ``closed`` when its owner closed it early.
    ``board_tables``: each table that plays the week's boards (a table plays one week)."""
    s.create_table("board_weeks", {"id": str, "circle": str, "boards": int, "rules": str, "seed": str,
                                   "starts": float, "ends": float, "closed": float, "created": float, "made_by": str},
                   pk="id", not_null={"circle", "boards", "rules", "seed", "starts", "ends"})
    s.create_index("board_weeks", ["circle", "starts"])
    s.create_table("board_tables", {"table_code": str, "week": str, "created": float},
                   pk="table_code", not_null={"week"})
    s.create_index("board_tables", ["week", "created"])


@migration
def m021_game_nights(s: Schema) -> None:
    """Game nights (``spades.storage.nights``, ``spades.circles.nights``).

    ``game_nights``: a circle's scheduled night, by its ``id``: its next occurrence's
    wall-clock start (``local``) in the IANA ``zone`` and as epoch seconds (``starts``),
    ``weekly`` or not, the ``first`` occurrence's start, how many occurrences went by
    (``occurrence``), its ``state`` (scheduled, cancelled, over). ``night_answers``: each
    member's yes, maybe or no to one occurrence. ``night_presence``: when each member's
    circle page last said "here". ``night_sent``: each reminder mail, push notice and move
    to a table (``kind``), once per person and occurrence. ``night_tables``: the tables an
    occurrence made and who sat at them. ``night_settings``: the circle's pairing rule;
    ``night_pairs``: its fixed pairs; ``night_mail_off``: who turned its nights' mails off."""
    s.create_table("game_nights", {"id": str, "circle": str, "local": str, "zone": str, "starts": float,
                                   "weekly": int, "first": str, "occurrence": int, "state": str, "created": float,
                                   "made_by": str},
                   pk="id", not_null={"circle", "local", "zone", "starts", "state"})
    s.create_index("game_nights", ["circle", "state", "starts"])
    s.create_index("game_nights", ["state", "starts"])
    s.create_table("night_answers", {"night": str, "occurrence": int, "person": str, "answer": str, "at": float},
                   pk=("night", "occurrence", "person"), not_null={"answer"})
    s.create_table("night_presence", {"circle": str, "person": str, "seen": float}, pk=("circle", "person"))
    s.create_table("night_sent", {"night": str, "occurrence": int, "person": str, "kind": str, "at": float},
                   pk=("night", "occurrence", "person", "kind"))
    s.create_table("night_tables", {"code": str, "night": str, "occurrence": int, "people": str, "created": float},
                   pk="code", not_null={"night", "people"})
    s.create_index("night_tables", ["night", "occurrence"])
    s.create_table("night_settings", {"circle": str, "pairing": str}, pk="circle", not_null={"pairing"})
    s.create_table("night_pairs", {"circle": str, "person": str, "partner": str}, pk=("circle", "person"),
                   not_null={"partner"})
    s.create_table("night_mail_off", {"circle": str, "person": str, "at": float}, pk=("circle", "person"))


@migration
def m022_tourney_duplicate(s: Schema) -> None:
    """``tourneys.duplicate``: every table of a round is dealt the same hands, compared as
    duplicate (``spades.tourney.duplicate``)."""
    s.add_column("tourneys", "duplicate", int, not_null_default=0)


@migration
def m023_night_reminded(s: Schema) -> None:
    """``night_reminded``: when each member was last mailed a game night's reminder of a
    circle, one row per circle and person, claimed by a conditional upsert
    (``spades.storage.nights.ClaimNightReminder``), so a member gets at most one a day
    from a circle however many nights it schedules and however many processes send."""
    s.create_table("night_reminded", {"circle": str, "person": str, "at": float}, pk=("circle", "person"),
                   not_null={"at"})


@migration
def m024_board_players(s: Schema) -> None:
    """``board_players``: who played each week of boards, and at which table, one row per
    person and week (its key), written in the transaction that seats them and never
    deleted: leaving a seat, someone else taking it, or a sign-in moving the seat does not
    make a person new to the week's boards. Filled from the weeks' seats as they are now."""
    s.create_table("board_players", {"week": str, "person": str, "table_code": str, "at": float},
                   pk=("week", "person"), not_null={"table_code"})
    s.create_index("board_players", ["table_code"])
    s.execute("INSERT INTO board_players (week, person, table_code, at) "
              "SELECT b.week, p.person, MIN(b.table_code), MIN(b.created) FROM board_tables b JOIN ("
              "SELECT table_code, player_id AS person FROM seats WHERE player_id IS NOT NULL "
              "UNION SELECT table_code, left_player_id FROM seats WHERE left_player_id IS NOT NULL "
              "UNION SELECT m.table_code, ms.player_id FROM match_seats ms JOIN matches m ON m.id = ms.match_id "
              "WHERE ms.player_id IS NOT NULL "
              "UNION SELECT m.table_code, ms.left_player_id FROM match_seats ms JOIN matches m ON m.id = ms.match_id "
              "WHERE ms.left_player_id IS NOT NULL) p ON p.table_code = b.table_code "
              "WHERE p.person NOT LIKE 'bot:%' GROUP BY b.week, p.person")



class SqliteSchema:
    """``Schema`` on SQLite: sqlite-utils builds the tables, as it always has here."""

    engine = "sqlite"

    def __init__(self, db: Database) -> None:
        self.db = db

    def create_table(self, name: str, columns: dict[str, type], pk: str | tuple[str, ...], *,
                     not_null: Iterable[str] = (), defaults: dict[str, Any] | None = None,
                     foreign_keys: Iterable[tuple[str, str, str]] = ()) -> None:
        self.db.table(name).create(columns, pk=pk, not_null=set(not_null) or None, defaults=defaults,
                                   foreign_keys=list(foreign_keys) or None)

    def add_column(self, table: str, column: str, type_: type, not_null_default: Any = None) -> None:
        self.db.table(table).add_column(column, type_, not_null_default=not_null_default)

    def create_index(self, table: str, columns: list[str], *, unique: bool = False) -> None:
        self.db.table(table).create_index(columns, unique=unique)

    def execute(self, sql: str) -> None:
        self.db.execute(sql)


_PG_TYPES = {str: "TEXT", int: "BIGINT", float: "DOUBLE PRECISION"}


def _name(identifier: str) -> str:
    return f'"{identifier}"'


def _literal(value: Any) -> str:
    """A default value as SQL (the migrations' defaults are numbers and strings)."""
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


class PgSchema:
    """``Schema`` on PostgreSQL: the same tables in portable DDL (an ``id`` primary key of
    type int is an identity column, as SQLite's INTEGER PRIMARY KEY numbers rows itself),
    indexes named as sqlite-utils names them."""

    engine = "postgresql"

    def __init__(self, conn: Any) -> None:
        self.conn = conn  # a psycopg connection, in the transaction that applies the migrations

    def create_table(self, name: str, columns: dict[str, type], pk: str | tuple[str, ...], *,
                     not_null: Iterable[str] = (), defaults: dict[str, Any] | None = None,
                     foreign_keys: Iterable[tuple[str, str, str]] = ()) -> None:
        keys = (pk,) if isinstance(pk, str) else tuple(pk)
        required, defaults = set(not_null), defaults or {}
        parts = []
        for column, type_ in columns.items():
            part = f"{_name(column)} {_PG_TYPES[type_]}"
            if keys == (column,) == ("id",) and type_ is int:
                part += " GENERATED BY DEFAULT AS IDENTITY"
            if column in required:
                part += " NOT NULL"
            if column in defaults:
                part += f" DEFAULT {_literal(defaults[column])}"
            parts.append(part)
        parts.append(f"PRIMARY KEY ({', '.join(map(_name, keys))})")
        parts += [f"FOREIGN KEY ({_name(c)}) REFERENCES {_name(t)} ({_name(o)})" for c, t, o in foreign_keys]
        self.execute(f"CREATE TABLE {_name(name)} ({', '.join(parts)})")

    def add_column(self, table: str, column: str, type_: type, not_null_default: Any = None) -> None:
        default = "" if not_null_default is None else f" NOT NULL DEFAULT {_literal(not_null_default)}"
        self.execute(f"ALTER TABLE {_name(table)} ADD COLUMN {_name(column)} {_PG_TYPES[type_]}{default}")

    def create_index(self, table: str, columns: list[str], *, unique: bool = False) -> None:
        index = _name(f"idx_{table}_{'_'.join(columns)}")
        self.execute(f"CREATE {'UNIQUE ' if unique else ''}INDEX {index} ON {_name(table)} "
                     f"({', '.join(map(_name, columns))})")

    def execute(self, sql: str) -> None:
        self.conn.execute(sql)  # as written: no placeholders (a function body has its own $ and %)


def sqlite_migrations() -> SqliteMigrations:
    """``MIGRATIONS`` as sqlite-utils applies and records them (``_sqlite_migrations``)."""
    runner = SqliteMigrations(MIGRATION_SET)
    for fn in MIGRATIONS:
        runner(name=fn.__name__)(_on_sqlite(fn))
    return runner


def _on_sqlite(fn: Migration) -> Callable[[Database], None]:
    """The migration as sqlite-utils calls it: with the database, not a ``Schema``."""

    def apply(db: Database) -> None:
        fn(SqliteSchema(db))

    apply.__name__ = fn.__name__
    return apply


@migration
def m025_signin_agents(s: Schema) -> None:
    """``signins.agent``: the browser's User-Agent as it signed in (at most 300 characters),
    so that a person's devices can be named in words on ``/me``. NULL for sessions from before."""
    s.add_column("signins", "agent", str)


@migration
def m026_circle_channels(s: Schema) -> None:
    """``circle_channels``: a circle's Discord or Slack channel (its incoming webhook's URL,
    a secret; ``tail``: its last characters, all a page shows), which of the circle's news
    it gets (``kinds``, comma-separated), whether it is on (``state``; ``reason``: why it
    was turned off) and until when it must not be posted to (``paced_until``: the service
    asked to wait). ``channel_posts``: each message for a channel, stored before it is
    sent (a restart loses none): its key (one per thing told: a match, a night's
    reminder...), so it is queued once, its body in the service's own format, when it is
    next due, its tries, its state (``queued``, ``sent``, ``failed``) and the lease of the
    process sending it (one process sends each). ``discord_starts``: a table asked for with
    ``/spades`` in Discord, made when its link is first opened."""
    s.create_table("circle_channels", {"circle": str, "service": str, "url": str, "tail": str, "kinds": str,
                                       "state": str, "reason": str, "set_by": str, "set_at": float,
                                       "paced_until": float},
                   pk="circle", not_null={"service", "url", "tail", "kinds", "state"})
    s.create_table("channel_posts", {"key": str, "circle": str, "kind": str, "body": str, "created": float,
                                     "due": float, "tries": int, "state": str, "error": str, "sent_at": float,
                                     "lease_owner": str, "lease_until": float},
                   pk="key", not_null={"circle", "kind", "body", "created", "due", "tries", "state"})
    s.create_index("channel_posts", ["state", "due"])
    s.create_index("channel_posts", ["circle", "state"])
    s.create_table("discord_starts", {"token": str, "code": str, "created": float}, pk="token",
                   not_null={"code", "created"})
