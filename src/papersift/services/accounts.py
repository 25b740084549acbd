"""Readers' accounts: argon2id password hashes, throttled login, session tokens, the personal reader.

Passwords are kept only as argon2id hashes; session tokens are random and only their blake2b hashes are
stored. A personal install has one reader (``Settings.reader``) with no password, made on first use, so the
CLI and the web UI work without logging in.

Wrong passwords are counted per name and per client address: after ``Settings.login_attempts`` of them
(four times as many for an address: a lab behind one NAT), each further one doubles the wait before the
next try, up to ``NAME_BACKOFF_MAX`` for a name (so nobody can keep a reader out for long) and
``Settings.login_backoff_max`` for an address. A refused try costs no hashing and is not counted. The
login is three steps so that the argon2 work (``password_matches``) needs no store and no lock:
``login_wait`` then ``password_matches`` then ``finish_login``; ``login`` runs the three.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from papersift.records.messages import say
from papersift.settings import Settings
from papersift.store import Store, StoreError
from papersift.store.records import Account

FAILURE_MEMORY = timedelta(days=1)  # failures older than this are forgotten (and pruned)
NAME_BACKOFF_MAX = 60.0  # seconds: the longest a name waits, whoever guesses at it
ADDRESS_FACTOR = 4  # an address may fail this many times more often than a name before its back-off
MIN_PASSWORD = 8


class LoginError(StoreError):
    """Wrong name or password, or too many attempts (the message says which, never which part was wrong)."""


class LoginThrottled(LoginError):
    """Too many recent wrong passwords for this name or from this address: ``wait`` seconds first."""

    def __init__(self, wait: float) -> None:
        self.wait = math.ceil(wait)
        super().__init__(say("too_many_logins", seconds=self.wait))


def _hasher() -> PasswordHasher:
    return PasswordHasher()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.blake2b(token.encode(), digest_size=32).hexdigest()


def hash_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise StoreError(say("password_too_short", n=MIN_PASSWORD))
    return _hasher().hash(password)


def create_account(store: Store, name: str, password: str | None, email: str | None = None) -> Account:
    return store.add_account(
        name, hash_password(password) if password is not None else None, new_token(), email
    )


def personal_account(store: Store, settings: Settings) -> Account:
    """The reader of a personal install (made on first use, no password)."""
    return store.account(settings.reader) or create_account(store, settings.reader, None)


def cli_reader(store: Store, settings: Settings, name: str | None) -> Account:
    """The reader a CLI command acts for: ``--reader NAME`` (must exist) or the personal reader."""
    if name is None or name == settings.reader:
        return personal_account(store, settings)
    reader = store.account(name)
    if reader is None:
        raise StoreError(say("no_reader_named", name=repr(name), plain=name))
    return reader


def backoff(failures: int, free: int, first: float, cap: float) -> float:
    """Seconds to wait after ``failures`` recent wrong passwords when ``free`` of them cost nothing."""
    if failures < free:
        return 0.0
    return min(cap, first * 2.0 ** min(failures - free, 64))


def login_wait(store: Store, settings: Settings, name: str, address: str) -> float:
    """Seconds before ``name`` may try again from ``address`` (0: go ahead)."""
    now = datetime.now(UTC)
    since = now - FAILURE_MEMORY
    waits = [0.0]
    for failures, cap, free in (
        (store.login_failures(since, name=name), NAME_BACKOFF_MAX, settings.login_attempts),
        (
            store.login_failures(since, address=address),
            settings.login_backoff_max,
            settings.login_attempts * ADDRESS_FACTOR,
        ),
    ):
        count, last = failures
        if last is not None:
            pause = backoff(count, free, settings.login_backoff, min(cap, settings.login_backoff_max))
            waits.append(pause - (now - last).total_seconds())
    return max(waits)


def password_matches(reader: Account | None, password: str) -> bool:
    """The argon2 check (CPU only: call it outside any lock, off the event loop). A missing reader costs
    a hash too, so a wrong name takes as long as a wrong password."""
    if reader is None or reader.password_hash is None:
        _hasher().hash(password or "x")
        return False
    try:
        return _hasher().verify(reader.password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def finish_login(store: Store, name: str, address: str, reader: Account | None, ok: bool) -> Account:
    """``reader`` when its password matched; else count the failure, forget old ones, raise LoginError."""
    if not ok or reader is None:
        store.add_login_failure(name, address)
        store.prune_logins(datetime.now(UTC) - FAILURE_MEMORY)
        raise LoginError(say("wrong_login"))
    return reader


def login(store: Store, settings: Settings, name: str, password: str, address: str = "local") -> Account:
    """The reader whose password this is; LoginThrottled while backing off, LoginError on a wrong one."""
    wait = login_wait(store, settings, name, address)
    if wait > 0:
        raise LoginThrottled(wait)
    reader = store.account(name)
    return finish_login(store, name, address, reader, password_matches(reader, password))


def open_session(store: Store, settings: Settings, reader: Account) -> str:
    """A new session token for ``reader`` (put it in a cookie; only its hash is stored)."""
    token = new_token()
    store.add_session(reader.id, token_hash(token), datetime.now(UTC) + timedelta(days=settings.session_days))
    return token


def session_account(store: Store, token: str | None) -> Account | None:
    return store.session_account(token_hash(token)) if token else None
