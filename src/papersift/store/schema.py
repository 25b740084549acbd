"""The reader tables' schema, written once for both SQL backends: accounts, sessions, login failures,
library entries and tags, digests (times as ISO text, JSON as text, so ``papersift migrate`` copies rows
as they are). ``ACCOUNTS`` is formatted with a dialect's ``types`` (``Dialect.types``).
"""

from __future__ import annotations

# the readers' tables (SQLite migration 3, PostgreSQL migration 2)
ACCOUNTS = """
CREATE TABLE readers (
    id {identity},
    name TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    feed_token TEXT NOT NULL UNIQUE,
    email TEXT,
    created TEXT NOT NULL,
    interests TEXT NOT NULL DEFAULT '{{}}'
);
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    reader {key} NOT NULL REFERENCES readers (id) ON DELETE CASCADE,
    expires TEXT{bytewise} NOT NULL
);
CREATE TABLE login_failures (name TEXT NOT NULL, at TEXT{bytewise} NOT NULL);
CREATE INDEX login_failures_name ON login_failures (name, at);
CREATE TABLE library (
    reader {key} NOT NULL REFERENCES readers (id) ON DELETE CASCADE,
    key TEXT{bytewise} NOT NULL,
    paper_id TEXT,
    title TEXT NOT NULL,
    authors TEXT NOT NULL,
    abstract TEXT NOT NULL,
    year INTEGER,
    doi TEXT,
    url TEXT,
    venue TEXT,
    note TEXT NOT NULL DEFAULT '',
    rating INTEGER NOT NULL DEFAULT 0,
    read INTEGER NOT NULL DEFAULT 0,
    added TEXT{bytewise} NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (reader, key)
){clustered};
CREATE TABLE tags (
    reader {key} NOT NULL,
    key TEXT{bytewise} NOT NULL,
    tag TEXT{bytewise} NOT NULL,
    PRIMARY KEY (reader, key, tag)
){clustered};
CREATE TABLE digests (
    id {identity},
    reader {key} NOT NULL REFERENCES readers (id) ON DELETE CASCADE,
    day TEXT{bytewise} NOT NULL,
    channel TEXT NOT NULL,
    subject TEXT NOT NULL,
    text TEXT NOT NULL,
    html TEXT NOT NULL,
    papers TEXT NOT NULL,
    sent TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    UNIQUE (reader, day, channel)
)
"""

# login failures per client address too; pruning by time (SQLite migration 4, PostgreSQL migration 3)
LOGINS = """
ALTER TABLE login_failures ADD COLUMN address TEXT;
CREATE INDEX login_failures_address ON login_failures (address, at);
CREATE INDEX login_failures_at ON login_failures (at);
CREATE INDEX sessions_expires ON sessions (expires)
"""

# readers may opt out of the lab's counts; entries found by paper (SQLite 5, PostgreSQL 4: store/signals.py)
SIGNALS = """
ALTER TABLE readers ADD COLUMN counted INTEGER NOT NULL DEFAULT 1;
CREATE INDEX library_paper ON library (paper_id) WHERE paper_id IS NOT NULL
"""


def accounts(types: dict[str, str]) -> str:
    """The readers' tables in a dialect's column types."""
    return ACCOUNTS.format(**types)
