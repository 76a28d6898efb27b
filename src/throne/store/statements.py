"""The store's most frequent statements, built once at import rather than on every call.

Building a statement (select, where, join) on every call cost the write process about as much as running
it: with these built once, a game's set-up and end took 3.1 ms of store CPU instead of about 5
(docs/BENCHMARKS.md). SQLAlchemy compiles each of these once and caches it; the values travel as bound
parameters: `game_id` and `seat_id` in the WHERE clauses, and every column named in the values given to an
insert or an update.
"""

from __future__ import annotations

from sqlalchemy import bindparam, insert, or_, select, update

from throne.store.models import Game, Seat, User

_games, _seats, _users = Game.__table__, Seat.__table__, User.__table__

GAME_ROW = select(_games).where(_games.c.id == bindparam("game_id"))
GAME_ROW_LOCKED = GAME_ROW.with_for_update()
SEATS_WITH_USERNAMES = (
    select(_seats, _users.c.username)
    .outerjoin(_users, _users.c.id == _seats.c.user_id)
    .where(_seats.c.game_id == bindparam("game_id"))
)
PLACES = select(_seats.c.id, _seats.c.seat, _seats.c.user_id, _seats.c.kind).where(
    _seats.c.game_id == bindparam("game_id")
)

INSERT_USER = insert(_users)
INSERT_GAME = insert(_games)
INSERT_SEAT = insert(_seats)
UPDATE_GAME = update(_games).where(_games.c.id == bindparam("game_id"))
UPDATE_SEAT = update(_seats).where(_seats.c.id == bindparam("seat_id"))

# A live game's guarded update (a takeback, an ending without a move): it matches only while the game is live
# at exactly `at_ply` and, fenced, while no newer owner's token than `fence_token` is stored.
UPDATE_LIVE_GAME = update(_games).where(
    _games.c.id == bindparam("game_id"), _games.c.status == "live", _games.c.ply == bindparam("at_ply")
)
UPDATE_LIVE_GAME_FENCED = UPDATE_LIVE_GAME.where(
    or_(_games.c.fence.is_(None), _games.c.fence <= bindparam("fence_token"))
)
