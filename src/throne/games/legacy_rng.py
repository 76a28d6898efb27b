"""Generator version 1, kept only to replay records and stored games made before version 2.

Version 1 dealt with ``random.Random(int seed)`` and drew each later random outcome of Hidden Leaders from
``random.Random(hash(position tuple))``. ``hash()`` of a tuple is a CPython implementation detail, so it is
re-implemented here exactly as 64-bit CPython 3.8+ computes it (xxHash-style tuple hash over integer hashes
modulo 2**61 - 1): old games replay identically on any Python version. ``random.Random`` seeded with an
integer (Mersenne Twister, ``shuffle``, ``randrange``, ``choice``) is stable across CPython versions.

Never use this for a new game: a 31-bit seed is found by brute force from a single seat's view.
"""

from __future__ import annotations

import random

_MASK = (1 << 64) - 1
_MODULUS = (1 << 61) - 1
_PRIME_1 = 11400714785074694791
_PRIME_2 = 14029467366897019727
_PRIME_5 = 2870177450012600261


def _int_hash(x: int) -> int:
    h = abs(x) % _MODULUS
    if x < 0:
        h = -h
    return -2 if h == -1 else h


def tuple_hash(items: tuple[int | tuple, ...]) -> int:
    """``hash(items)`` as 64-bit CPython >= 3.8 computes it, for tuples of ints and nested such tuples."""
    acc = _PRIME_5
    for item in items:
        lane = (tuple_hash(item) if isinstance(item, tuple) else _int_hash(item)) & _MASK
        acc = (acc + lane * _PRIME_2) & _MASK
        acc = ((acc << 31) | (acc >> 33)) & _MASK
        acc = (acc * _PRIME_1) & _MASK
    acc = (acc + (len(items) ^ (_PRIME_5 ^ 3527539))) & _MASK
    if acc == _MASK:
        return 1546275796
    return acc - (1 << 64) if acc >= 1 << 63 else acc


def dealer(seed: int) -> random.Random:
    """The version-1 generator of a deal."""
    return random.Random(seed)


def position_generator(key: tuple[int | tuple, ...]) -> random.Random:
    """The version-1 generator of a random outcome, seeded from the hash of the position key."""
    return random.Random(tuple_hash(key))
