//! Helpers for the workspace-level integration tests: a recording loopback HTTP server that
//! stands in for an upstream REST API, and paths into the repository.
#![deny(missing_docs)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::IntoResponse;

mod auth_server;
pub use auth_server::AuthServer;

/// One request as the stand-in server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Method.
    pub method: String,
    /// Path and raw query (`/a/b?x=1`).
    pub uri: String,
    /// Headers, names lower-case.
    pub headers: Vec<(String, String)>,
    /// Body bytes.
    pub body: Vec<u8>,
}

impl Recorded {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A canned response: status, content type, body.
pub type Canned = (u16, &'static str, String);

/// A loopback server that records every request and answers from a route table keyed by
/// `METHOD path` (without the query); unknown routes get 404.
pub struct StandIn {
    /// Base URL, `http://127.0.0.1:PORT`.
    pub url: String,
    /// Requests received so far.
    pub requests: Arc<Mutex<Vec<Recorded>>>,
}

impl StandIn {
    /// Starts the server on 127.0.0.1 with an ephemeral port.
    pub async fn start(routes: Vec<(&'static str, Canned)>) -> std::io::Result<StandIn> {
        let requests: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let routes = Arc::new(routes);
        let rec = requests.clone();
        let app = Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
                let rec = rec.clone();
                let routes = routes.clone();
                async move {
                    let headers = headers
                        .iter()
                        .map(|(k, v)| {
                            (
                                k.as_str().to_owned(),
                                v.to_str().unwrap_or_default().to_owned(),
                            )
                        })
                        .collect();
                    let key = format!("{} {}", method, uri.path());
                    if let Ok(mut list) = rec.lock() {
                        list.push(Recorded {
                            method: method.to_string(),
                            uri: uri.to_string(),
                            headers,
                            body: body.to_vec(),
                        });
                    }
                    match routes.iter().find(|(k, _)| *k == key) {
                        Some((_, (status, ct, body))) => (
                            StatusCode::from_u16(*status).unwrap_or(StatusCode::OK),
                            [("content-type", *ct)],
                            body.clone(),
                        )
                            .into_response(),
                        None => (StatusCode::NOT_FOUND, "no such route").into_response(),
                    }
                }
            },
        );
        Ok(StandIn {
            url: serve_on_loopback(app).await?,
            requests,
        })
    }

    /// A copy of the requests received so far.
    pub fn received(&self) -> Vec<Recorded> {
        self.requests.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

/// The prompt list the Synaplan stand-in serves: one prompt, id 7.
pub const SYNAPLAN_PROMPTS: &str = r#"{"prompts":[{"id":7,"topic":"general","shortDescription":"Default assistant","prompt":"You are helpful.","language":"en"}]}"#;

/// Serves `app` on 127.0.0.1 with an ephemeral port, in the background, for as long as the
/// runtime lives; returns its base URL (`http://127.0.0.1:<port>`).
pub async fn serve_on_loopback(app: Router) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(format!("http://{addr}"))
}

/// A stand-in for the Synaplan API: `GET /api/v1/prompts` answers [`SYNAPLAN_PROMPTS`],
/// `GET /api/v1/files` fails with 500.
pub async fn synaplan_stand_in() -> StandIn {
    StandIn::start(vec![
        (
            "GET /api/v1/prompts",
            (200, "application/json", SYNAPLAN_PROMPTS.to_owned()),
        ),
        (
            "GET /api/v1/files",
            (
                500,
                "application/json",
                r#"{"error":"disk on fire"}"#.to_owned(),
            ),
        ),
    ])
    .await
    .expect("stand-in starts")
}

/// Writes `keys.yaml` into `dir` with one key for `synaplan-mcp --keys`: `admin-key-0123456789`,
/// principal `root`, scopes `mcp:*`; returns its path.
pub fn admin_keys_file(dir: &std::path::Path) -> PathBuf {
    let path = dir.join("keys.yaml");
    std::fs::write(
        &path,
        "keys:\n  - id: admin\n    key: admin-key-0123456789\n    principal: root\n    scopes: ['mcp:*']\n",
    )
    .expect("write keys");
    path
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The target folder that crates built outside the workspace share (`standalone/` in the
/// target folder: `CARGO_TARGET_DIR` when set, else `target/`), so mcpgen is compiled once.
pub fn standalone_target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| repo_root().join("target"), PathBuf::from)
        .join("standalone")
}

/// The profile settings of every build outside the workspace ([`standalone_cargo`], the
/// README walkthrough's, the Dockerfile builder stage's): the release profile, made the dev
/// profile's equal (no optimisation, LTO or debug info; debug assertions and overflow checks
/// on), whatever a crate's own `[profile.release]` says. The image build asks for `--release`,
/// so with every other build in the same profile they all share one set of compiled
/// dependencies in [`standalone_target`], instead of compiling them once per profile.
pub const STANDALONE_ENV: &[(&str, &str)] = &[
    ("CARGO_INCREMENTAL", "0"),
    ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0"),
    ("CARGO_PROFILE_RELEASE_LTO", "false"),
    ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256"),
    ("CARGO_PROFILE_RELEASE_DEBUG", "false"),
    ("CARGO_PROFILE_RELEASE_STRIP", "debuginfo"),
    ("CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS", "true"),
    ("CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS", "true"),
    ("CARGO_PROFILE_RELEASE_PANIC", "unwind"),
];

/// Where the binaries of builds outside the workspace are: the release folder of
/// [`standalone_target`] (see [`STANDALONE_ENV`]).
pub fn standalone_bins() -> PathBuf {
    standalone_target().join("release")
}

/// `cargo <args>` for the crate in `dir`, built outside the workspace: with the workspace's lock
/// file (copied in, so nothing new is resolved), offline, in [`standalone_target`], with the
/// settings of [`STANDALONE_ENV`] (`build` and `run` get `--release`) and no `RUSTFLAGS`. Every
/// such build uses the same settings, so the dependencies compiled for one are reused by the
/// next.
pub fn standalone_cargo(dir: &Path, args: &[&str]) -> Command {
    std::fs::copy(repo_root().join("Cargo.lock"), dir.join("Cargo.lock")).expect("copy Cargo.lock");
    let mut cargo = Command::new(env!("CARGO"));
    cargo.args(args);
    if matches!(args.first(), Some(&"build" | &"run")) {
        cargo.arg("--release");
    }
    cargo
        .arg("--offline")
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", standalone_target())
        .envs(STANDALONE_ENV.iter().copied())
        .env_remove("RUSTFLAGS");
    cargo
}

/// Runs `cargo build --quiet` for the crate in `dir` (see [`standalone_cargo`]), failing the
/// test with cargo's output if it fails; returns the folder of the built binaries
/// ([`standalone_bins`]).
pub fn standalone_build(dir: &Path) -> PathBuf {
    let out = standalone_cargo(dir, &["build", "--quiet"])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo build in {} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    standalone_bins()
}

/// A built binary of the workspace (`target/<profile>/<name>`), next to the running test.
/// `scripts/test.sh` builds every binary before the tests run.
pub fn workspace_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // target/<profile>/deps/<test> → target/<profile>/<name>
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(PathBuf::from)
        .unwrap_or_default();
    let path = dir.join(name);
    assert!(
        path.is_file(),
        "{} is not built; run `cargo build --workspace --bins` (scripts/test.sh does)",
        path.display()
    );
    path
}

/// A free TCP port on 127.0.0.1 (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(18080)
}

/// Waits until `url` answers 200, for at most ten seconds.
pub async fn wait_ready(url: &str) -> bool {
    let client = reqwest::Client::new();
    for _ in 0..200 {
        if client
            .get(url)
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    false
}

/// The Node tools installed by `scripts/test.sh` into `tests/node` (Node 22, the MCP Inspector,
/// the conformance suite).
pub fn node_bin(name: &str) -> PathBuf {
    let path = repo_root().join("tests/node/node_modules/.bin").join(name);
    assert!(
        path.exists(),
        "{} is missing; run `npm ci --prefix tests/node` (scripts/test.sh does)",
        path.display()
    );
    path
}

/// A program of the Python environment `scripts/test.sh` installs `tests/python/requirements.txt`
/// into (`tests/python/.venv/bin`): `python` (with the official MCP Python SDK),
/// `kubernetes-validate`.
pub fn python_bin(name: &str) -> PathBuf {
    let path = repo_root().join("tests/python/.venv/bin").join(name);
    assert!(
        path.exists(),
        "{} is missing; run scripts/test.sh, which installs tests/python/requirements.txt",
        path.display()
    );
    path
}

/// A file inside `tests/node` (a script of ours, or a file of an installed package).
pub fn node_file(relative: &str) -> PathBuf {
    let path = repo_root().join("tests/node").join(relative);
    assert!(
        path.exists(),
        "{} is missing; run `npm ci --prefix tests/node` (scripts/test.sh does)",
        path.display()
    );
    path
}

/// Waits until something accepts TCP connections on 127.0.0.1:`port`, for at most ten
/// seconds.
pub async fn wait_port(port: u16) -> bool {
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    false
}

/// Whether process `pid` still exists in any form, a zombie included (Linux: `/proc/PID`).
/// After its parent has reaped it, it does not.
pub fn process_exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// A loopback TCP listener that counts the connections it accepts (and then drops them),
/// to prove that nothing was sent to it.
pub struct CountingListener {
    /// Its port on 127.0.0.1.
    pub port: u16,
    accepted: Arc<std::sync::atomic::AtomicUsize>,
}

impl CountingListener {
    /// Starts listening on 127.0.0.1 with an ephemeral port.
    pub async fn start() -> std::io::Result<CountingListener> {
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let port = listener.local_addr()?.port();
        let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = accepted.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                drop(stream);
            }
        });
        Ok(CountingListener { port, accepted })
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// A child process that is killed when this is dropped.
pub struct KillOnDrop(pub tokio::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.start_kill();
    }
}

/// The command that starts the workspace binary `name` with `--listen` on loopback `port` and
/// `args`: errors only in its log, on this process's stderr, and killed when dropped. Callers
/// may set more (a variable, a piped stderr) before they spawn it.
pub fn listening_command(name: &str, port: u16, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(workspace_binary(name));
    command
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(args)
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true);
    command
}

/// Starts the workspace binary `name` with `--listen` on a free loopback port and `args`;
/// returns the process and its base URL once `/healthz` answers.
pub async fn start_listening(name: &str, args: &[&str]) -> (KillOnDrop, String) {
    let port = free_port();
    let child = listening_command(name, port, args)
        .spawn()
        .unwrap_or_else(|e| panic!("{name} starts: {e}"));
    let url = format!("http://127.0.0.1:{port}");
    assert!(
        wait_ready(&format!("{url}/healthz")).await,
        "{name} did not come up"
    );
    (KillOnDrop(child), url)
}

/// Starts `synaplan-mcp --transport http` on a free loopback port against `upstream`, with
/// `extra` flags; returns the process and its base URL once `/healthz` answers.
pub async fn start_synaplan_http(upstream: &str, extra: &[&str]) -> (KillOnDrop, String) {
    let mut args = vec!["--transport", "http", "--upstream-url", upstream];
    args.extend_from_slice(extra);
    start_listening("synaplan-mcp", &args).await
}

/// The text blocks of a tool result, one per line.
pub fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// An rmcp client over Streamable HTTP to `<url>/mcp`, sending `key` as `X-API-Key`.
pub async fn http_client(
    url: &str,
    key: &str,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::ServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

    let mut headers = std::collections::HashMap::new();
    headers.insert(
        http::HeaderName::from_static("x-api-key"),
        http::HeaderValue::from_str(key).expect("header value"),
    );
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("{url}/mcp")).custom_headers(headers);
    ().serve(StreamableHttpClientTransport::with_client(
        reqwest::Client::new(),
        config,
    ))
    .await
    .expect("client connects")
}

/// Starts `mcpgen-conformance-fixture --transport http --no-auth` on a free loopback port;
/// returns the process and its base URL once `/healthz` answers.
pub async fn start_fixture_http() -> (KillOnDrop, String) {
    let port = free_port();
    let child = tokio::process::Command::new(workspace_binary("mcpgen-conformance-fixture"))
        .args([
            "--transport",
            "http",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--no-auth",
        ])
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("mcpgen-conformance-fixture starts");
    let url = format!("http://127.0.0.1:{port}");
    assert!(
        wait_ready(&format!("{url}/healthz")).await,
        "mcpgen-conformance-fixture did not come up"
    );
    (KillOnDrop(child), url)
}

/// An nginx configuration listening on `listen` that passes every request to `pass` after the
/// `routing` lines (upstream blocks, maps); it logs each request's upstream, method and URI to
/// `access.log` in `dir`.
fn nginx_conf(dir: &Path, listen: u16, routing: &str, pass: &str) -> String {
    let dir = dir.display();
    // One process (no master and workers): killing it leaves nothing behind, and as root it
    // keeps the test's own user instead of handing requests to workers running as `nobody`.
    format!(
        r#"daemon off;
master_process off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format upstreams '$upstream_addr $request_method $uri';
    access_log {dir}/access.log upstreams;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;

{routing}
    server {{
        listen 127.0.0.1:{listen};
        location / {{
            proxy_pass http://{pass};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_read_timeout 300s;
        }}
    }}
}}
"#
    )
}

/// Starts nginx in `dir` with `conf`; returns it and its port once it accepts connections.
async fn run_nginx(dir: &Path, port: u16, conf: String) -> (KillOnDrop, u16) {
    let path = dir.join("nginx.conf");
    std::fs::write(&path, conf).expect("write nginx.conf");
    let child = tokio::process::Command::new("nginx")
        .arg("-p")
        .arg(dir)
        .arg("-e")
        .arg(dir.join("error.log"))
        .arg("-c")
        .arg(&path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("nginx is installed (scripts/test.sh installs it with apt-get install nginx)");
    let nginx = KillOnDrop(child);
    assert!(
        wait_port(port).await,
        "nginx listens on {port}: {}",
        std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
    );
    (nginx, port)
}

/// Starts nginx (from the system's packages) in front of the replicas at `a` and `b`
/// (`127.0.0.1:PORT`, started with `--replica-name a` and `b`) with the map of the book's
/// "Replicas behind a load balancer" page: requests whose session id (the `Mcp-Session-Id`
/// header, or the legacy SSE `sessionId` query parameter) or task id (the `Mcp-Name` header of
/// `tasks/*`) starts with `a.` or `b.` go to that replica, every other request round robin to
/// either; returns it and its port once it accepts connections.
pub async fn start_nginx(dir: &Path, a: &str, b: &str) -> (KillOnDrop, u16) {
    let port = free_port();
    let routing = format!(
        r#"    map "$http_mcp_session_id$arg_sessionId$http_mcp_name" $mcp_replica {{
        default  mcp_any;
        "~^a\."  mcp_a;
        "~^b\."  mcp_b;
    }}
    upstream mcp_any {{ server {a}; server {b}; keepalive 32; }}
    upstream mcp_a {{ server {a}; keepalive 16; }}
    upstream mcp_b {{ server {b}; keepalive 16; }}
"#
    );
    run_nginx(dir, port, nginx_conf(dir, port, &routing, "$mcp_replica")).await
}

/// Starts nginx in front of `replicas` (`127.0.0.1:PORT` each), balancing every request round
/// robin with no routing of its own; `access.log` in `dir` names each request's replica.
pub async fn start_nginx_round_robin(dir: &Path, replicas: &[&str]) -> (KillOnDrop, u16) {
    let port = free_port();
    let servers: String = replicas.iter().map(|r| format!("server {r}; ")).collect();
    let routing = format!("    upstream mcp_all {{ {servers}keepalive 32; }}\n");
    run_nginx(dir, port, nginx_conf(dir, port, &routing, "mcp_all")).await
}

/// The requests in nginx's `access.log` in `dir`: (upstream, method, URI) each.
pub fn nginx_requests(dir: &Path) -> Vec<(String, String, String)> {
    std::fs::read_to_string(dir.join("access.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let mut fields = line.split(' ');
            Some((
                fields.next()?.to_owned(),
                fields.next()?.to_owned(),
                fields.next()?.to_owned(),
            ))
        })
        .collect()
}

/// A `redis-server` on 127.0.0.1:`port`, without persistence; killed on drop.
pub fn start_redis(port: u16) -> KillOnDrop {
    let child = tokio::process::Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--protected-mode", "yes"])
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("redis-server is installed (scripts/test.sh installs it with apt-get install redis-server)");
    KillOnDrop(child)
}
