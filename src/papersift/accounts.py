"""Readers' accounts: argon2id password hashes, rate-limited login, session tokens, the personal reader.

Passwords are kept only as argon2id hashes; session tokens and CSRF tokens are random and only their
blake2b hashes are stored. A personal install has one reader (``Settings.reader``) with no password, made
on first use, so the CLI and the web UI work without logging in.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from papersift.settings import Settings
from papersift.store import Store, StoreError
from papersift.store.readers import Reader

LOCKOUT = timedelta(minutes=15)
MIN_PASSWORD = 8


class LoginError(StoreError):
    """Wrong name or password, or too many attempts (the message says which, never which part was wrong)."""


def _hasher() -> PasswordHasher:
    return PasswordHasher()


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.blake2b(token.encode(), digest_size=32).hexdigest()


def hash_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise StoreError(f"a password has at least {MIN_PASSWORD} characters")
    return _hasher().hash(password)


def create_reader(store: Store, name: str, password: str | None, email: str | None = None) -> Reader:
    return store.add_reader(
        name, hash_password(password) if password is not None else None, new_token(), email
    )


def personal_reader(store: Store, settings: Settings) -> Reader:
    """The reader of a personal install (made on first use, no password)."""
    return store.reader(settings.reader) or create_reader(store, settings.reader, None)


def cli_reader(store: Store, settings: Settings, name: str | None) -> Reader:
    """The reader a CLI command acts for: ``--reader NAME`` (must exist) or the personal reader."""
    if name is None or name == settings.reader:
        return personal_reader(store, settings)
    reader = store.reader(name)
    if reader is None:
        raise StoreError(f"no reader named {name!r}; create one with `papersift reader add {name}`")
    return reader


def login(store: Store, settings: Settings, name: str, password: str) -> Reader:
    """The reader whose password this is; LoginError on a wrong one or after too many recent failures."""
    since = datetime.now(UTC) - LOCKOUT
    if store.login_failures(name, since) >= settings.login_attempts:
        raise LoginError("too many failed logins for this name; try again in 15 minutes")
    reader = store.reader(name)
    ok = False
    if reader is not None and reader.password_hash is not None:
        try:
            ok = _hasher().verify(reader.password_hash, password)
        except (VerificationError, InvalidHashError):
            ok = False
    else:
        _hasher().hash(password or "x")  # same cost whether or not the name exists
    if not ok or reader is None:
        store.add_login_failure(name)
        raise LoginError("wrong name or password")
    return reader


def open_session(store: Store, settings: Settings, reader: Reader) -> str:
    """A new session token for ``reader`` (put it in a cookie; only its hash is stored)."""
    token = new_token()
    store.add_session(reader.id, token_hash(token), datetime.now(UTC) + timedelta(days=settings.session_days))
    return token


def session_reader(store: Store, token: str | None) -> Reader | None:
    return store.session_reader(token_hash(token)) if token else None


def csrf_token(session_token: str) -> str:
    """The CSRF token bound to a session (forms carry it; a cross-site page cannot read it)."""
    return hmac.new(session_token.encode(), b"csrf", hashlib.sha256).hexdigest()


def csrf_ok(session_token: str, sent: str | None) -> bool:
    return sent is not None and hmac.compare_digest(csrf_token(session_token), sent)
