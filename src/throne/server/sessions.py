"""Signed session cookies (itsdangerous), seat tokens and password hashing (argon2)."""

from __future__ import annotations

import hashlib
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, URLSafeTimedSerializer

COOKIE = "throne_session"
MAX_AGE = 60 * 60 * 24 * 60  # 60 days

_hasher = PasswordHasher()


class SessionSigner:
    def __init__(self, secret: str) -> None:
        self._s = URLSafeTimedSerializer(secret, salt="throne-session")

    def dump(self, user_id: int) -> str:
        return self._s.dumps({"uid": user_id})

    def load(self, cookie: str | None) -> int | None:
        if not cookie:
            return None
        try:
            data = self._s.loads(cookie, max_age=MAX_AGE)
        except BadSignature:
            return None
        uid = data.get("uid") if isinstance(data, dict) else None
        return uid if isinstance(uid, int) else None


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """Only this hash is stored, so a copy of the database does not hand out seats."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    if not password_hash:
        return False
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False
