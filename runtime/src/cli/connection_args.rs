//! How many connections the HTTP listener serves at once (`--max-connections`) and how many
//! Streamable HTTP sessions it holds, in all and for one principal (`--sessions-max`,
//! `--sessions-max-per-principal`).

use crate::server::builder::ServerBuilder;
use crate::server::config::{
    DEFAULT_MAX_CONNECTIONS, DEFAULT_SESSIONS_MAX, DEFAULT_SESSIONS_MAX_PER_PRINCIPAL,
};

/// The caps on connections and sessions of the HTTP transport.
#[derive(Debug, Clone, clap::Args)]
pub struct ConnectionArgs {
    /// Connections served at once on the HTTP listener. Past it the listener stops accepting:
    /// new connections wait in the kernel's listen backlog until a served one ends (metric
    /// `mcpgen_connections_waited_total`). The default suits a 2-core server: it stays within
    /// the 1,024 open files a process gets by default, and a request refused for want of a
    /// credential holds at most 64 KiB of its body.
    #[arg(
        long,
        env = "MCPGEN_MAX_CONNECTIONS",
        default_value_t = DEFAULT_MAX_CONNECTIONS,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..),
        value_name = "N"
    )]
    pub max_connections: usize,
    /// Streamable HTTP sessions held at once (per catalog). At the cap a new session is
    /// refused with 503 and `Retry-After`, unless its principal has an idle session of its own
    /// to give up; no other principal's session is closed to make room.
    #[arg(
        long,
        env = "MCPGEN_SESSIONS_MAX",
        default_value_t = DEFAULT_SESSIONS_MAX,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..),
        value_name = "N"
    )]
    pub sessions_max: usize,
    /// Streamable HTTP sessions one principal holds at once (per catalog). A principal at its
    /// cap that opens another has its own least recently used idle session closed (one with no
    /// request in progress and no stream open); when all are in use, the new session is
    /// refused with 429 and `Retry-After`.
    #[arg(
        long,
        env = "MCPGEN_SESSIONS_MAX_PER_PRINCIPAL",
        default_value_t = DEFAULT_SESSIONS_MAX_PER_PRINCIPAL,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..),
        value_name = "N"
    )]
    pub sessions_max_per_principal: usize,
}

impl ConnectionArgs {
    /// `builder` with these caps.
    pub fn apply(&self, builder: ServerBuilder) -> ServerBuilder {
        builder
            .max_connections(self.max_connections)
            .sessions_max(self.sessions_max)
            .sessions_max_per_principal(self.sessions_max_per_principal)
    }
}
