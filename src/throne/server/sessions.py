"""Signed session cookies (itsdangerous), seat tokens and password hashing (argon2)."""

from __future__ import annotations

import hashlib
import secrets
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, URLSafeTimedSerializer

COOKIE = "throne_session"
MAX_AGE = 60 * 60 * 24 * 60  # 60 days

_hasher = PasswordHasher()


class SessionSigner:
    """A cookie names a user and the user's session epoch when it was made: it is valid while that epoch is
    current (logout and password changes raise it) and for at most MAX_AGE."""

    def __init__(self, secret: str) -> None:
        self._s = URLSafeTimedSerializer(secret, salt="throne-session")

    def dump(self, user_id: int, epoch: int = 0) -> str:
        return self._s.dumps({"uid": user_id, "v": epoch})

    def load(self, cookie: str | None) -> tuple[int, int] | None:
        """(user id, session epoch) of a genuine, unexpired cookie (epoch 0 for cookies older than epochs)."""
        if not cookie:
            return None
        try:
            data = self._s.loads(cookie, max_age=MAX_AGE)
        except BadSignature:
            return None
        if not isinstance(data, dict):
            return None
        uid, epoch = data.get("uid"), data.get("v", 0)
        if not isinstance(uid, int) or not isinstance(epoch, int) or isinstance(uid, bool):
            return None
        return uid, epoch


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """Only this hash is stored, so a copy of the database does not hand out seats."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


@cache
def _dummy_hash() -> str:
    """A hash with the real parameters, verified when there is no account, so both answers cost the same."""
    return _hasher.hash(secrets.token_urlsafe(16))


def verify_password(password_hash: str | None, password: str) -> bool:
    """True when `password` matches; an absent account costs one full argon2 verify too (no timing oracle)."""
    try:
        if not password_hash:
            _hasher.verify(_dummy_hash(), password)
            return False
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
