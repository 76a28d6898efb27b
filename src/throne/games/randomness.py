"""Unguessable, replayable randomness for every engine: game secrets and keyed per-purpose generators.

A game's secret is 128 bits from :mod:`secrets`. Every random draw of a game (deals, refills, reshuffles,
leader pools, the start player, random picks) comes from a :class:`KeyedRandom` derived from the secret and a
purpose label, so a game is still its secret plus its moves and replays exactly, yet nothing a seat sees
reveals the secret or any other draw (BLAKE2b keyed with the secret is a PRF). The generator is defined here
byte for byte — BLAKE2b in counter mode, rejection sampling, Fisher–Yates — so it never depends on CPython's
``random`` module or ``hash()``.

Integer seeds are accepted for tests, benchmarks and research (they are keyed the same way but are only as
hard to guess as the integer). Generator version 1 (:data:`LEGACY_RNG`) is the old ``random.Random(int)``
scheme, kept only so that records and stored games made with it replay exactly (:mod:`.legacy_rng`).
"""

from __future__ import annotations

import secrets as _secrets
from collections.abc import MutableSequence, Sequence
from hashlib import blake2b
from typing import TypeVar

T = TypeVar("T")

RNG_VERSION = 2
"""The generator version of new games and records (the ``"rng"`` field)."""
LEGACY_RNG = 1
"""The old ``random.Random(int seed)`` scheme: records without an ``"rng"`` field."""
RNG_VERSIONS = (LEGACY_RNG, RNG_VERSION)

SECRET_BYTES = 16
"""128 bits: the size of a fresh game secret."""
MAX_SECRET_BYTES = 64

Seed = int | str
"""A game seed: a hex secret (at least 32 hex digits) or, for tests and research, a non-negative integer."""

_PERSON_SEED = b"throne.seed.v2"
_PERSON_PURPOSE = b"throne.rng.v2"
_BLOCK = 64


class SeedError(ValueError):
    """A seed that is neither a non-negative integer nor a hex secret of 32 to 128 digits."""


def new_secret() -> str:
    """A fresh game secret: 128 bits from the operating system, as 32 lowercase hex digits."""
    return _secrets.token_hex(SECRET_BYTES)


def check_seed(seed: object) -> Seed:
    """``seed`` itself when it is a valid seed; raises :class:`SeedError` otherwise."""
    if isinstance(seed, bool):
        raise SeedError(f"a seed must be an integer or a hex secret, not {seed!r}")
    if isinstance(seed, int):
        if seed < 0:
            raise SeedError(f"an integer seed must be non-negative, not {seed}")
        return seed
    if isinstance(seed, str):
        _secret_bytes(seed)
        return seed
    raise SeedError(f"a seed must be an integer or a hex secret, not {type(seed).__name__}")


def check_version(rng: object) -> int:
    if isinstance(rng, bool) or rng not in RNG_VERSIONS:
        raise SeedError(f"unknown generator version {rng!r}: expected one of {list(RNG_VERSIONS)}")
    assert isinstance(rng, int)
    return rng


def _secret_bytes(secret: str) -> bytes:
    if not 2 * SECRET_BYTES <= len(secret) <= 2 * MAX_SECRET_BYTES or len(secret) % 2:
        raise SeedError(f"a secret must have an even number of 32 to 128 hex digits, got {len(secret)}")
    try:
        return bytes.fromhex(secret)
    except ValueError:
        raise SeedError("a secret must be written in hex digits") from None


def seed_key(seed: Seed) -> bytes:
    """The BLAKE2b key of a seed: the secret's own bytes, or a fixed hash of an integer seed."""
    check_seed(seed)
    if isinstance(seed, str):
        return _secret_bytes(seed)
    return blake2b(str(seed).encode(), digest_size=32, person=_PERSON_SEED).digest()


class KeyedRandom:
    """A deterministic generator for one purpose of one game: the draws of ``random.Random`` that the
    engines use (``randbelow``, ``randrange``, ``choice``, ``shuffle``, ``random``, ``getrandbits``).

    Output block ``i`` is ``BLAKE2b(i as 8 bytes, key=K)`` with ``K = BLAKE2b(purpose, key=seed_key(seed))``
    (personalisation ``throne.rng.v2``).
    Two purposes give independent streams; knowing any outputs does not help to predict others.
    """

    __slots__ = ("_buf", "_counter", "_key")

    def __init__(self, seed: Seed, purpose: str) -> None:
        key = seed_key(seed)
        self._key = blake2b(purpose.encode(), key=key, digest_size=32, person=_PERSON_PURPOSE).digest()
        self._counter = 0
        self._buf = b""

    def _bytes(self, n: int) -> bytes:
        while len(self._buf) < n:
            block = blake2b(self._counter.to_bytes(8, "big"), key=self._key, digest_size=_BLOCK).digest()
            self._counter += 1
            self._buf += block
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        return int.from_bytes(self._bytes((k + 7) // 8), "big") >> (-k % 8)

    def randbelow(self, n: int) -> int:
        """Uniform in ``[0, n)``: rejection sampling over ``n.bit_length()`` bits (no modulo bias)."""
        if n <= 0:
            raise ValueError(f"randbelow needs a positive bound, not {n}")
        k = n.bit_length()
        r = self.getrandbits(k)
        while r >= n:
            r = self.getrandbits(k)
        return r

    def randrange(self, start: int, stop: int | None = None) -> int:
        if stop is None:
            start, stop = 0, start
        if stop <= start:
            raise ValueError(f"empty range [{start}, {stop})")
        return start + self.randbelow(stop - start)

    def choice(self, seq: Sequence[T]) -> T:
        if not seq:
            raise IndexError("cannot choose from an empty sequence")
        return seq[self.randbelow(len(seq))]

    def shuffle(self, x: MutableSequence[T]) -> None:
        """Fisher–Yates, in place: every permutation equally likely."""
        for i in range(len(x) - 1, 0, -1):
            j = self.randbelow(i + 1)
            x[i], x[j] = x[j], x[i]

    def random(self) -> float:
        """A float in ``[0, 1)`` with 53 random bits."""
        return self.getrandbits(53) / 9007199254740992.0


def keyed(seed: Seed, purpose: str) -> KeyedRandom:
    """The generator of ``purpose`` (e.g. ``"deal"``, ``"harbor/3"``) for the game with this seed."""
    return KeyedRandom(seed, purpose)
