"""The two backends' migrations: from ``schema.SHARED_FROM`` on they are one list
(``schema.shared_migrations``) in each dialect's types, so a migration both backends need is written once
and numbered alike on both."""

from __future__ import annotations

from papersift.store import postgres, schema, sqlite


def test_from_the_shared_migration_on_both_backends_run_the_one_list_in_their_own_types() -> None:
    for migrations, types, keyword_index in (
        (sqlite.MIGRATIONS, sqlite.SqliteDialect.types, sqlite.rebuild_keyword_index),
        (postgres.MIGRATIONS, postgres.PostgresDialect.types, postgres.rebuild_keyword_index),
    ):
        assert migrations[schema.SHARED_FROM - 1 :] == schema.shared_migrations(types, keyword_index)
    assert len(sqlite.MIGRATIONS) == len(postgres.MIGRATIONS)  # a store's version means the same on both
    sqlite_llm, postgres_llm = (m[schema.SHARED_FROM - 1] for m in (sqlite.MIGRATIONS, postgres.MIGRATIONS))
    assert "WITHOUT ROWID" in sqlite_llm and 'COLLATE "C"' in postgres_llm  # each in its own dialect
