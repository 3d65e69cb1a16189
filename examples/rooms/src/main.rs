//! `rooms-mcp`: serves the rooms of a directory over Streamable HTTP: every room at `/mcp`
//! and each room at `/mcp/<room>`, each catalog accepting only tokens issued for its own
//! audience.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};

use clap::Parser;
use mcpgen::audit::{Fsync, JsonlSink, TracingSink};
use mcpgen::auth::TokenAuthority;
use mcpgen::cli::PlacementArgs;
use mcpgen::server::{Mount, Server, shutdown_signal};
use rooms::store::RoomStore;
use rooms::tools::{RoomCatalogs, RoomTools};

/// Serves rooms (tools, prompts, secrets, MCP servers kept as YAML files) as MCP tools: every
/// room at /mcp, each room at /mcp/<room>.
#[derive(Debug, Parser)]
#[command(name = "rooms-mcp", version)]
struct Args {
    /// Directory of room files, one `<room>.yaml` per room (created if missing). A room
    /// created or deleted through the tools is served or unserved at once.
    #[arg(long, env = "ROOMS_DIR")]
    rooms_dir: PathBuf,
    /// Address to listen on.
    #[arg(long, env = "MCPGEN_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// `--base-path` and `--public-url`: where the routes sit behind a proxy.
    #[command(flatten)]
    placement: PlacementArgs,
    /// Name of the environment variable holding the secret that signs accepted tokens
    /// (`mcpgen token issue --secret-env VAR --audience <room>`).
    #[arg(long, env = "MCPGEN_TOKEN_SECRET_ENV")]
    token_secret_env: Option<String>,
    /// Audience of the tokens accepted at /mcp (every room) and, as the server's, at every
    /// room's catalog too. No room may have this name.
    #[arg(long, env = "MCPGEN_TOKEN_AUDIENCE", default_value = "rooms")]
    token_audience: String,
    /// Serve without authentication (loopback only, unless --insecure-no-auth).
    #[arg(long, env = "MCPGEN_NO_AUTH")]
    no_auth: bool,
    /// Allow `--no-auth` on a non-loopback address.
    #[arg(long, env = "MCPGEN_INSECURE_NO_AUTH")]
    insecure_no_auth: bool,
    /// Append one JSON line per tool call to this file, on disk before the answer.
    #[arg(long, env = "MCPGEN_AUDIT_LOG")]
    audit_log: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    mcpgen::cli::block_on_main(run(args))
}

async fn run(args: Args) -> Result<(), String> {
    let store = Arc::new(RoomStore::open(&args.rooms_dir).map_err(|e| e.to_string())?);
    let rooms = store.names().map_err(|e| e.to_string())?;
    // Read every room once, so a broken file stops the start with its path and the reason.
    for room in &rooms {
        store.load(room).map_err(|e| e.to_string())?;
    }
    let tokens = match (&args.token_secret_env, args.no_auth) {
        (Some(var), false) => Some(
            TokenAuthority::from_env(var, args.token_audience.clone())
                .map_err(|e| e.to_string())?,
        ),
        (None, true) => None,
        (Some(_), true) => return Err("--no-auth conflicts with --token-secret-env".into()),
        (None, false) => {
            return Err(
                "no authentication configured: pass --token-secret-env VAR, or --no-auth".into(),
            );
        }
    };
    if tokens.is_some() && rooms.contains(&args.token_audience) {
        return Err(format!(
            "room `{0}` has the name of the server's token audience, so its tokens would open \
             every room; rename {1}/{0}.yaml or pass another --token-audience",
            args.token_audience,
            args.rooms_dir.display()
        ));
    }

    let catalogs = Arc::new(Catalogs {
        server: OnceLock::new(),
        store: store.clone(),
        tokens: tokens.clone(),
        audience: args.token_audience.clone(),
    });
    // ANCHOR: server
    let mut builder = Server::builder("rooms", env!("CARGO_PKG_VERSION"))
        .description("Rooms: tools, prompts, secrets and MCP servers kept as YAML files")
        .tool_set(
            RoomTools::all(store.clone())
                .with_catalogs(catalogs.clone())
                .into_tool_set(),
        )
        .audit(TracingSink::new())
        .insecure_no_auth(args.insecure_no_auth);
    builder = args.placement.apply(builder)?;
    if let Some(path) = &args.audit_log {
        let sink = JsonlSink::open(path, Fsync::Always)
            .map_err(|e| format!("audit log {}: {e}", path.display()))?;
        builder = builder.audit(sink);
    }
    if let Some(tokens) = &tokens {
        builder = builder.authenticator(tokens.clone());
    }
    for room in &rooms {
        builder = builder.mount(catalogs.mount_of(room)?);
    }
    let server = builder.build().map_err(|e| e.to_string())?;
    // ANCHOR_END: server
    // Rooms created or deleted through the tools from now on are served or unserved at once.
    let _ = catalogs.server.set(server.clone());
    tracing::info!(rooms = rooms.len(), dir = %args.rooms_dir.display(), "serving rooms");
    server
        .serve_http(args.listen, shutdown_signal())
        .await
        .map_err(|e| e.to_string())
}

/// Serves each room's catalog: at start, and when a room is created or deleted.
struct Catalogs {
    /// Set once the server is built.
    server: OnceLock<Server>,
    store: Arc<RoomStore>,
    tokens: Option<TokenAuthority>,
    /// The audience of the tokens accepted at /mcp; no room may have this name.
    audience: String,
}

impl Catalogs {
    // ANCHOR: mount
    /// Room `room`'s catalog, accepting tokens for its own audience (and the server's).
    fn mount_of(&self, room: &str) -> Result<Mount, String> {
        if self.tokens.is_some() && room == self.audience {
            return Err(format!(
                "room `{room}` has the name of the server's token audience, so its tokens would \
                 open every room; use another name (or pass another --token-audience)"
            ));
        }
        let mut mount = Mount::new(room)
            .description(format!("Room `{room}`"))
            .tool_set(RoomTools::only(self.store.clone(), room).into_tool_set());
        if let Some(tokens) = &self.tokens {
            mount = mount.authenticator(tokens.with_audience(room).map_err(|e| e.to_string())?);
        }
        Ok(mount)
    }
    // ANCHOR_END: mount
}

impl RoomCatalogs for Catalogs {
    fn serve(&self, room: &str) -> Result<(), String> {
        let server = self
            .server
            .get()
            .ok_or_else(|| "the server is not running yet".to_owned())?;
        server
            .mount(self.mount_of(room)?)
            .map_err(|e| e.to_string())
    }

    fn unserve(&self, room: &str) {
        if let Some(server) = self.server.get() {
            server.unmount(room);
        }
    }
}
