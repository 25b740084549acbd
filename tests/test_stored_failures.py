"""Failures are stored as data (``records/messages.stored``: a message's key, its arguments, a message
argument as data in turn, and its English) and read back as the message, never parsed from English: a model
call's failure, a generated text's (a failed check's too), a full text's and a digest's, on SQLite and
PostgreSQL. A long argument is shortened to fit, a plain text stays a text, and the failures stored in the
old text form (``… [say key(…)]``, ``… [check reason(…)]``) are data after the migration that converts them
(``store/old_failures.py``)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import orjson
import pytest

from papersift.reading.checks import fail
from papersift.records.catalogs import said
from papersift.records.messages import Message, restored, say, stored
from papersift.store import Store, postgres, sqlite
from papersift.store.old_failures import failures_as_data
from papersift.store.records import DigestText, ReadingKey
from papersift.store.rows import now

DAY = date(2026, 8, 21)
PAPER = "2401.00001"
KEY = ReadingKey(PAPER, 1, "m", "tldr-2", "zh", "tldr")
UNREADABLE = say(  # three messages deep, as eprints.py keeps an e-print it cannot read
    "fulltext_unreadable", problem=say("extract_of", id=PAPER, problem=say("extract_unknown_kind"))
)


def _column(store: Store, table: str, column: str) -> str:
    """The one value of ``column`` in ``table`` as the store keeps it."""
    (row,) = store._rows(f"SELECT {column} FROM {table}")  # type: ignore[attr-defined]
    return str(row[column])


def _fail_everywhere(store: Store, error: str) -> int:
    """Store ``error`` as each kind of failure; the digest's reader."""
    store.add_llm_failure("m", error)
    store.claim_reading(KEY, stale_before=now())
    store.finish_reading(KEY, None, error)
    store.put_fulltext_failure(PAPER, 1, error)
    reader = store.add_account("ada", None, "token")
    digest = store.queue_digest(reader.id, DAY, "email", DigestText("s", "text", "<p>h</p>", (PAPER,)))
    store.mark_digest(digest.id, sent=False, error=error)
    return reader.id


def _read_everywhere(store: Store, reader: int) -> list[str | None]:
    """Each kind of failure as the store reads it back (a full text's from its column: nothing reads it)."""
    reading = store.reading(KEY)
    assert reading is not None
    (digest,) = store.digests(reader)
    fulltext = restored(_column(store, "fulltexts", "error"))
    return [store.llm_failures()[0].reason, reading.error, fulltext, digest.error]


def test_a_nested_message_is_stored_as_data_and_read_back_as_the_message(store: Store) -> None:
    reader = _fail_everywhere(store, UNREADABLE)
    data = orjson.loads(_column(store, "readings", "error"))
    assert data["key"] == "fulltext_unreadable" and data["args"]["problem"]["args"]["problem"] == {
        "key": "extract_unknown_kind",
        "args": {},
        "text": "neither a TeX source (gzipped tar, gzipped .tex, tar) nor a PDF",
    }
    for again in _read_everywhere(store, reader):
        assert isinstance(again, Message) and again == UNREADABLE and again.args == UNREADABLE.args
        inner = again.args["problem"]
        assert isinstance(inner, Message) and inner.key == "extract_of" and inner.args["id"] == PAPER
        assert said(again, "zh") == said(UNREADABLE, "zh") != again  # said in 中文 from its parts


def test_a_plain_text_failure_stays_a_text(store: Store) -> None:
    reader = _fail_everywhere(store, "SMTP said 550: mailbox unavailable")
    assert orjson.loads(_column(store, "digests", "error")) == {"text": "SMTP said 550: mailbox unavailable"}
    for again in _read_everywhere(store, reader):
        assert again == "SMTP said 550: mailbox unavailable" and not isinstance(again, Message)


def test_a_failed_check_is_stored_as_its_message_and_counted_by_its_key(store: Store) -> None:
    store.claim_reading(KEY, stale_before=now())
    store.finish_reading(KEY, None, fail("wrong_language", asked="zh", got="en").sentence())
    reading = store.reading(KEY)
    assert reading is not None and isinstance(reading.error, Message)
    assert reading.error.key == "check_wrong_language" and reading.error.args["asked"] == "中文"
    assert said(reading.error, "zh") == "要求用中文，模型却用英文作答"


def test_a_long_argument_is_shortened_so_that_the_data_fits() -> None:
    answer = "Rate limit reached for requests. " * 150  # an endpoint's 4,950-character answer
    long = say("model_answered_saying", status="429", message=answer)
    kept = stored(long, 1000)
    again = restored(kept)
    assert len(kept) <= 1000 < len(stored(long))
    assert isinstance(again, Message) and again.key == "model_answered_saying"
    assert again.args["status"] == "429"  # a short argument kept whole
    message = str(again.args["message"])
    assert message.endswith("…") and answer.startswith(message[:-1]) and len(message) < len(answer)
    text = stored("plain " * 400, 1000)  # a plain text: shortened the same way
    assert len(text) <= 1000 and restored(text).endswith("…") and restored(text).startswith("plain plain")


OLD_FORM = {  # what the store kept before the migration: a message's English, then what it was made of
    "llm_failures": "the endpoint answered 429 three times: slow down [say model_answered_times_saying("
    'status="429", times=times_3(), message="slow down")]',
    "readings": "the model answered in English where 中文 was asked "
    '[check wrong_language(asked="zh", got="en")]',
    "fulltexts": f"cannot read it: {PAPER}: neither a TeX source (gzipped tar, gzipped .tex, tar) nor a PDF "
    f'[say fulltext_unreadable(problem=extract_of(id="{PAPER}", problem=extract_unknown_kind()))]',
    "digests": 'SMTP said 550 [say no_such_key(x="1")]',  # a key not known: the text as it is
}


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_failures_stored_in_the_old_text_form_are_data_after_the_migration(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = sqlite if backend == "sqlite" else postgres
    where = str(tmp_path / "papersift.db") if backend == "sqlite" else request.getfixturevalue("pg_dsn")

    def opened() -> Store:
        return sqlite.SqliteStore(where) if backend == "sqlite" else postgres.PostgresStore(where)

    with monkeypatch.context() as before:  # a store as the version before the migration left it
        before.setattr(module, "MIGRATIONS", module.MIGRATIONS[: module.MIGRATIONS.index(failures_as_data)])
        old = opened()
        reader = _fail_everywhere(old, "written over below")
        with old._tx() as tx:  # type: ignore[attr-defined]
            for table, text in OLD_FORM.items():
                column = "reason" if table == "llm_failures" else "error"
                tx.execute(f"UPDATE {table} SET {column} = ?", (text,))
        old.close()
    store = opened()
    model, check, fulltext, digest = _read_everywhere(store, reader)
    assert isinstance(model, Message) and model.key == "model_answered_times_saying"
    assert said(model, "zh") == said(
        say("model_answered_times_saying", status="429", times=say("three_times"), message="slow down"), "zh"
    )
    assert isinstance(check, Message) and check.key == "check_wrong_language"
    assert said(check, "zh") == "要求用中文，模型却用英文作答"  # its languages said as messages again
    assert isinstance(fulltext, Message) and said(fulltext, "zh") == said(UNREADABLE, "zh")
    assert digest == OLD_FORM["digests"] and not isinstance(digest, Message)
    assert orjson.loads(_column(store, "digests", "error")) == {"text": OLD_FORM["digests"]}
    store.close()
