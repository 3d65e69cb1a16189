//! The audit database flags of a generated server: `--audit-db`, `--audit-db-spool`,
//! `--audit-db-unavailable` (durability is `--audit-fsync`, as for the file).

use std::path::PathBuf;

use mcpgen_audit::{DbSink, DbSinkConfig, DbUnavailable, Fsync, spool_path};

/// Where audit records go besides the file and the log.
#[derive(Debug, Clone, clap::Args)]
pub struct AuditDbArgs {
    /// Also record every tool call as a row of `mcpgen_audit` in this database:
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` or `sqlite:///path/to/audit.db` (the
    /// table is created at start; `--audit-fsync` sets the durability).
    #[arg(
        long,
        env = "MCPGEN_AUDIT_DB",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub audit_db: Option<String>,
    /// File that keeps audit records while the database is unreachable, replayed in order
    /// when it is back [default: mcpgen-audit.spool, or mcpgen-audit.NAME.spool with
    /// --replica-name NAME]. One process per file: a second process given a spool in use
    /// stops at start.
    #[arg(long, env = "MCPGEN_AUDIT_DB_SPOOL", value_name = "FILE")]
    pub audit_db_spool: Option<PathBuf>,
    /// While the audit database is unreachable: `spool` (keep serving; records wait in the
    /// spool file) or `refuse` (refuse new calls, and `/readyz` reports not ready).
    #[arg(
        long,
        env = "MCPGEN_AUDIT_DB_UNAVAILABLE",
        value_enum,
        default_value = "spool"
    )]
    pub audit_db_unavailable: DbUnavailable,
}

impl AuditDbArgs {
    /// The database sink the flags ask for, if any, spooling to `--audit-db-spool` or the
    /// default spool of the replica named `replica`. Errors name the flag and the fix.
    pub(super) fn sink(
        &self,
        fsync: Fsync,
        replica: Option<&str>,
    ) -> Result<Option<DbSink>, String> {
        let Some(url) = &self.audit_db else {
            return Ok(None);
        };
        let config = DbSinkConfig {
            url: url.clone(),
            fsync,
            spool: self
                .audit_db_spool
                .clone()
                .unwrap_or_else(|| spool_path(replica)),
            unavailable: self.audit_db_unavailable,
        };
        DbSink::open(config).map(Some).map_err(|e| e.to_string())
    }
}
