//! The two databases the audit sink writes to: PostgreSQL and SQLite, each behind its own
//! feature. Both get the same table, `mcpgen_audit`, created by the migrations below, and the
//! same batched, idempotent insert (`ON CONFLICT (call_id) DO NOTHING`).

use std::time::Duration;

use super::DbUrlError;
use crate::event::AuditEvent;

/// Migrations, in order: (version, PostgreSQL, SQLite). Applied once each, recorded in
/// `mcpgen_audit_migrations`. Version 2 adds the call id (unique: the key of the idempotent
/// insert; rows from before it take their `id`, which keyed them then) and the code-mode fields.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (
        1,
        "CREATE TABLE IF NOT EXISTS mcpgen_audit (
        id TEXT PRIMARY KEY,
        time TIMESTAMPTZ NOT NULL,
        request_id TEXT,
        principal TEXT,
        key_id TEXT,
        tool TEXT NOT NULL,
        operation_id TEXT,
        status TEXT NOT NULL,
        duration_ms BIGINT NOT NULL,
        upstream_status INTEGER,
        args_sha256 TEXT NOT NULL,
        args JSONB,
        error TEXT,
        trace_id TEXT,
        inserted_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS mcpgen_audit_time ON mcpgen_audit (time);
    CREATE INDEX IF NOT EXISTS mcpgen_audit_principal_tool ON mcpgen_audit (principal, tool, time);
    CREATE INDEX IF NOT EXISTS mcpgen_audit_status ON mcpgen_audit (status, time);",
        "CREATE TABLE IF NOT EXISTS mcpgen_audit (
        id TEXT PRIMARY KEY,
        time TEXT NOT NULL,
        request_id TEXT,
        principal TEXT,
        key_id TEXT,
        tool TEXT NOT NULL,
        operation_id TEXT,
        status TEXT NOT NULL,
        duration_ms INTEGER NOT NULL,
        upstream_status INTEGER,
        args_sha256 TEXT NOT NULL,
        args TEXT,
        error TEXT,
        trace_id TEXT,
        inserted_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX IF NOT EXISTS mcpgen_audit_time ON mcpgen_audit (time);
    CREATE INDEX IF NOT EXISTS mcpgen_audit_principal_tool ON mcpgen_audit (principal, tool, time);
    CREATE INDEX IF NOT EXISTS mcpgen_audit_status ON mcpgen_audit (status, time);",
    ),
    (
        2,
        "ALTER TABLE mcpgen_audit ADD COLUMN IF NOT EXISTS call_id TEXT;
        ALTER TABLE mcpgen_audit ADD COLUMN IF NOT EXISTS parent_call_id TEXT;
        ALTER TABLE mcpgen_audit ADD COLUMN IF NOT EXISTS code_sha256 TEXT;
        ALTER TABLE mcpgen_audit ADD COLUMN IF NOT EXISTS inner_calls BIGINT;
        UPDATE mcpgen_audit SET call_id = id WHERE call_id IS NULL;
        CREATE UNIQUE INDEX IF NOT EXISTS mcpgen_audit_call_id ON mcpgen_audit (call_id);
        CREATE INDEX IF NOT EXISTS mcpgen_audit_parent ON mcpgen_audit (parent_call_id);",
        "ALTER TABLE mcpgen_audit ADD COLUMN call_id TEXT;
        ALTER TABLE mcpgen_audit ADD COLUMN parent_call_id TEXT;
        ALTER TABLE mcpgen_audit ADD COLUMN code_sha256 TEXT;
        ALTER TABLE mcpgen_audit ADD COLUMN inner_calls INTEGER;
        UPDATE mcpgen_audit SET call_id = id WHERE call_id IS NULL;
        CREATE UNIQUE INDEX IF NOT EXISTS mcpgen_audit_call_id ON mcpgen_audit (call_id);
        CREATE INDEX IF NOT EXISTS mcpgen_audit_parent ON mcpgen_audit (parent_call_id);",
    ),
];

/// A connection pool to one of the databases.
pub(super) enum Backend {
    #[cfg(feature = "postgres")]
    Postgres(sqlx::PgPool),
    #[cfg(feature = "sqlite")]
    Sqlite(sqlx::SqlitePool),
}

/// How long getting a connection may take before the database counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

impl Backend {
    /// A pool for `url` (`postgres://…`, `postgresql://…` or `sqlite://…`); connects lazily,
    /// so an unreachable database does not stop the start. `durable`: SQLite syncs every
    /// commit (`synchronous = FULL`).
    pub(super) fn connect(url: &str, durable: bool) -> Result<Self, DbUrlError> {
        let scheme = url.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
        match scheme.as_deref() {
            Some("postgres" | "postgresql") => Self::postgres(url),
            Some("sqlite") => Self::sqlite(url, durable),
            _ => Err(DbUrlError::Scheme),
        }
    }

    #[cfg(feature = "postgres")]
    fn postgres(url: &str) -> Result<Self, DbUrlError> {
        use std::str::FromStr;
        let options = sqlx::postgres::PgConnectOptions::from_str(url)
            .map_err(|e| DbUrlError::Invalid(redact(&e.to_string(), url)))?;
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(CONNECT_TIMEOUT)
            .connect_lazy_with(options);
        Ok(Self::Postgres(pool))
    }

    #[cfg(not(feature = "postgres"))]
    fn postgres(_: &str) -> Result<Self, DbUrlError> {
        Err(DbUrlError::NotCompiled("postgres"))
    }

    #[cfg(feature = "sqlite")]
    fn sqlite(url: &str, durable: bool) -> Result<Self, DbUrlError> {
        use std::str::FromStr;

        use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
        let options = SqliteConnectOptions::from_str(url)
            .map_err(|e| DbUrlError::Invalid(redact(&e.to_string(), url)))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(if durable {
                SqliteSynchronous::Full
            } else {
                SqliteSynchronous::Normal
            })
            .busy_timeout(Duration::from_secs(5));
        let pool = sqlx::sqlite::SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(CONNECT_TIMEOUT)
            .connect_lazy_with(options);
        Ok(Self::Sqlite(pool))
    }

    #[cfg(not(feature = "sqlite"))]
    fn sqlite(_: &str, _: bool) -> Result<Self, DbUrlError> {
        Err(DbUrlError::NotCompiled("sqlite"))
    }

    /// Applies the migrations not applied yet (PostgreSQL: under an advisory lock, so
    /// replicas starting together do not race).
    pub(super) async fn migrate(&self) -> Result<(), sqlx::Error> {
        match self {
            #[cfg(feature = "postgres")]
            Self::Postgres(pool) => {
                let mut tx = pool.begin().await?;
                sqlx::query("SELECT pg_advisory_xact_lock(7242019)")
                    .execute(&mut *tx)
                    .await?;
                sqlx::raw_sql(
                    "CREATE TABLE IF NOT EXISTS mcpgen_audit_migrations (
                        version BIGINT PRIMARY KEY,
                        applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                )
                .execute(&mut *tx)
                .await?;
                for (version, sql, _) in MIGRATIONS {
                    let done: Option<(i64,)> = sqlx::query_as(
                        "SELECT version FROM mcpgen_audit_migrations WHERE version = $1",
                    )
                    .bind(version)
                    .fetch_optional(&mut *tx)
                    .await?;
                    if done.is_none() {
                        sqlx::raw_sql(*sql).execute(&mut *tx).await?;
                        sqlx::query("INSERT INTO mcpgen_audit_migrations (version) VALUES ($1)")
                            .bind(version)
                            .execute(&mut *tx)
                            .await?;
                    }
                }
                tx.commit().await
            }
            #[cfg(feature = "sqlite")]
            Self::Sqlite(pool) => {
                let mut tx = pool.begin().await?;
                sqlx::raw_sql(
                    "CREATE TABLE IF NOT EXISTS mcpgen_audit_migrations (
                        version INTEGER PRIMARY KEY,
                        applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))",
                )
                .execute(&mut *tx)
                .await?;
                for (version, _, sql) in MIGRATIONS {
                    let done: Option<(i64,)> = sqlx::query_as(
                        "SELECT version FROM mcpgen_audit_migrations WHERE version = ?",
                    )
                    .bind(version)
                    .fetch_optional(&mut *tx)
                    .await?;
                    if done.is_none() {
                        sqlx::raw_sql(*sql).execute(&mut *tx).await?;
                        sqlx::query("INSERT INTO mcpgen_audit_migrations (version) VALUES (?)")
                            .bind(version)
                            .execute(&mut *tx)
                            .await?;
                    }
                }
                tx.commit().await
            }
        }
    }

    /// Inserts `records` in one transaction; records whose `call_id` is already there are
    /// skipped (a replay after a crash inserts nothing twice).
    pub(super) async fn insert(&self, records: &[AuditEvent]) -> Result<(), sqlx::Error> {
        if records.is_empty() {
            return Ok(());
        }
        match self {
            // PostgreSQL reads the time and the arguments from text with casts; SQLite keeps
            // both as text.
            #[cfg(feature = "postgres")]
            Self::Postgres(pool) => insert_batch(pool, records, "::timestamptz", "::jsonb").await,
            #[cfg(feature = "sqlite")]
            Self::Sqlite(pool) => insert_batch(pool, records, "", "").await,
        }
    }

    /// Closes the pool's connections.
    pub(super) async fn close(&self) {
        match self {
            #[cfg(feature = "postgres")]
            Self::Postgres(pool) => pool.close().await,
            #[cfg(feature = "sqlite")]
            Self::Sqlite(pool) => pool.close().await,
        }
    }
}

/// Rows per `INSERT` statement (18 parameters each, far below either database's limit).
const INSERT_CHUNK: usize = 500;

/// `id` (the primary key from before call ids) takes the call id too.
const INSERT_HEAD: &str = "INSERT INTO mcpgen_audit (id, call_id, parent_call_id, code_sha256, \
     inner_calls, time, request_id, principal, key_id, tool, operation_id, status, duration_ms, \
     upstream_status, args_sha256, args, error, trace_id) ";

/// Inserts `records` into `pool`'s database in one transaction, [`INSERT_CHUNK`] rows per
/// statement, skipping call ids already there; `time_cast` and `args_cast` follow the bound
/// `time` and `args` texts (each database's spelling of the conversion, or nothing).
async fn insert_batch<DB>(
    pool: &sqlx::Pool<DB>,
    records: &[AuditEvent],
    time_cast: &str,
    args_cast: &str,
) -> Result<(), sqlx::Error>
where
    DB: sqlx::Database,
    DB::Arguments: sqlx::IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    String: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<String>: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    &'static str: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<i64>: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<i32>: for<'q> sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    let mut tx = pool.begin().await?;
    for chunk in records.chunks(INSERT_CHUNK) {
        let mut query = sqlx::QueryBuilder::<DB>::new(INSERT_HEAD);
        query.push_values(chunk, |mut row, e| {
            row.push_bind(e.call_id.clone())
                .push_bind(e.call_id.clone())
                .push_bind(e.parent_call_id.clone())
                .push_bind(e.code_sha256.clone())
                .push_bind(e.inner_calls.map(i64::from))
                .push_bind(e.time.clone())
                .push_unseparated(time_cast)
                .push_bind(e.request_id.clone())
                .push_bind(e.principal.clone())
                .push_bind(e.key_id.clone())
                .push_bind(e.tool.clone())
                .push_bind(e.operation_id.clone())
                .push_bind(e.status.as_str())
                .push_bind(duration(e.duration_ms))
                .push_bind(e.upstream_status.map(i32::from))
                .push_bind(e.args_sha256.clone())
                .push_bind(e.args.as_ref().map(|a| a.to_string()))
                .push_unseparated(args_cast)
                .push_bind(e.error.clone())
                .push_bind(e.trace_id.clone());
        });
        query.push(" ON CONFLICT (call_id) DO NOTHING");
        query.build().execute(&mut *tx).await?;
    }
    tx.commit().await
}

fn duration(ms: u64) -> i64 {
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// `message` with the password of `url`, if any, replaced.
#[cfg(any(feature = "postgres", feature = "sqlite"))]
fn redact(message: &str, url: &str) -> String {
    match super::password_of(url) {
        Some(password) if !password.is_empty() => message.replace(password, "***"),
        _ => message.to_owned(),
    }
}
