//! The `Dockerfile` of a crate generated outside this repository (`mcpgen generate --out D
//! --mcpgen-path …`) builds from the context it documents: its builder stage's `WORKDIR`,
//! `ARG`, `COPY` and `RUN` instructions run here, in a copy of that context (`app/` = the
//! crate, `mcpgen/` = this repository), with the container's `/` mapped to a scratch folder,
//! and the build argument `FEATURES=postgres,redis` (as the generated `compose.yaml` passes
//! it). The binary they produce starts with the runtime stage's `ENV` and the audit database
//! and Redis variables the compose file sets, and answers `/healthz`.
//!
//! No Docker engine runs here, so the base images' tools are this machine's (cargo, sh, sed).
//! Cargo runs offline (every crate is in the local registry cache; network stays on
//! loopback), and the release profile is made cheap through `CARGO_PROFILE_RELEASE_*`
//! variables (`mcpgen_tests::STANDALONE_ENV`, those of every build outside the workspace, whose
//! compiled dependencies it shares through Cargo's build folder): the commands are the
//! Dockerfile's own, only faster to compile.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::support::standalone::root;
use mcpgen_tests::{STANDALONE_ENV, standalone_target};

/// Folders never part of the context (`.dockerignore`) or not sources.
const SKIPPED: &[&str] = &[".git", "target", "node_modules", ".venv"];

/// Copies `from` into `to`, leaving out [`SKIPPED`] folders and symbolic links.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a folder");
    for entry in std::fs::read_dir(from).expect("read a folder") {
        let entry = entry.expect("an entry");
        let kind = entry.file_type().expect("a file type");
        let name = entry.file_name();
        if kind.is_symlink() || SKIPPED.iter().any(|s| name == *s) {
            continue;
        }
        let target = to.join(&name);
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if let Err(e) = std::fs::copy(entry.path(), &target) {
            // A file another process removed while the tree was read (a fuzzer's corpus, say)
            // is not part of the context; anything else is a failure.
            assert_eq!(e.kind(), std::io::ErrorKind::NotFound, "copy {name:?}: {e}");
        }
    }
}

/// The Dockerfile's instructions as (keyword, arguments), continuation lines joined and
/// comments dropped.
fn instructions(dockerfile: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in dockerfile.lines() {
        let trimmed = line.trim();
        if pending.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        if let Some(head) = trimmed.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(trimmed);
        let (keyword, rest) = pending.split_once(' ').unwrap_or((&pending, ""));
        out.push((keyword.to_ascii_uppercase(), rest.trim().to_owned()));
        pending.clear();
    }
    out
}

/// The instructions of each stage, in order (the `FROM` line first).
fn stages(all: Vec<(String, String)>) -> Vec<Vec<(String, String)>> {
    let mut stages: Vec<Vec<(String, String)>> = Vec::new();
    for instruction in all {
        if instruction.0 == "FROM" {
            stages.push(Vec::new());
        }
        if let Some(stage) = stages.last_mut() {
            stage.push(instruction);
        }
    }
    stages
}

/// A path inside the container, as a path under `fs_root` (absolute) or `cwd` (relative).
fn in_container(fs_root: &Path, cwd: &Path, path: &str) -> PathBuf {
    match path.strip_prefix('/') {
        Some(absolute) => fs_root.join(absolute),
        None => cwd.join(path),
    }
}

/// The build arguments this test passes (`docker build --build-arg NAME=VALUE`).
const BUILD_ARGS: &[(&str, &str)] = &[("FEATURES", "postgres,redis")];

/// Runs the builder stage's instructions with the container's `/` at `fs_root`. Once the
/// crate is copied in, its `target/` is linked to `cache` (what a build cache mount does),
/// outside the scratch root. An `ARG` takes its value from
/// [`BUILD_ARGS`], or its default, and reaches the `RUN` commands as a variable.
fn run_builder_stage(stage: &[(String, String)], context: &Path, fs_root: &Path, cache: &Path) {
    let mut cwd = fs_root.to_owned();
    let mut build_args: Vec<(String, String)> = Vec::new();
    for (keyword, args) in stage {
        match keyword.as_str() {
            "FROM" => {}
            "ARG" => {
                let (name, default) = args.split_once('=').unwrap_or((args, ""));
                let value = BUILD_ARGS.iter().find(|(arg, _)| *arg == name).map_or_else(
                    || default.trim_matches('"').to_owned(),
                    |(_, v)| (*v).to_owned(),
                );
                build_args.push((name.to_owned(), value));
            }
            "WORKDIR" => {
                cwd = in_container(fs_root, &cwd, args);
                std::fs::create_dir_all(&cwd).expect("create the WORKDIR");
            }
            "COPY" => {
                let parts: Vec<&str> = args.split_whitespace().collect();
                let [source, dest] = parts[..] else {
                    panic!("COPY {args}: expected one source and one destination");
                };
                copy_tree(&context.join(source), &in_container(fs_root, &cwd, dest));
                let app = fs_root.join("build/app");
                if app.is_dir() && !app.join("target").exists() {
                    std::fs::create_dir_all(cache).expect("create the cache folder");
                    std::os::unix::fs::symlink(cache, app.join("target")).expect("link target/");
                }
            }
            "RUN" => {
                let out = Command::new("sh")
                    .args(["-c", args])
                    .envs(build_args.iter().map(|(k, v)| (k, v)))
                    .current_dir(&cwd)
                    .env("CARGO_NET_OFFLINE", "true")
                    .envs(STANDALONE_ENV.iter().copied())
                    // What is compiled on the way is shared with the other builds outside the
                    // workspace; the binaries stay in this build's own `target/`.
                    .env("CARGO_BUILD_BUILD_DIR", standalone_target())
                    .env_remove("CARGO_TARGET_DIR")
                    .env_remove("RUSTFLAGS")
                    .output()
                    .expect("sh runs");
                assert!(
                    out.status.success(),
                    "RUN {args} failed:\n{}\n{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            other => panic!(
                "the builder stage has an instruction this test does not know: {other} {args}"
            ),
        }
    }
}

/// `GET path` on 127.0.0.1:`port`; the status line and body, once something answers.
fn get(port: u16, path: &str) -> Option<String> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    Some(response)
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_builder_stage_builds_a_crate_generated_outside_the_repository() {
    let repo = root();
    let scratch = tempfile::tempdir().expect("tempdir");
    let context = scratch.path().join("ctx");
    let app = context.join("app");
    let spec = repo.join("specs/synaplan");
    let generated = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["generate", "--spec"])
        .arg(spec.join("openapi.yaml"))
        .arg("--tools")
        .arg(spec.join("mcp_tools.yaml"))
        .arg("--out")
        .arg(&app)
        .arg("--mcpgen-path")
        .arg(repo.join("mcpgen"))
        .output()
        .expect("mcpgen runs");
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    assert!(
        !app.join("Cargo.lock").exists(),
        "a generated crate has no lock file of its own"
    );
    copy_tree(&repo, &context.join("mcpgen"));

    let dockerfile = std::fs::read_to_string(app.join("Dockerfile")).expect("a Dockerfile");
    let stages = stages(instructions(&dockerfile));
    assert_eq!(stages.len(), 2, "a builder stage and a runtime stage");
    assert!(stages[0][0].1.ends_with("AS builder"), "{:?}", stages[0][0]);
    assert!(
        stages[0]
            .iter()
            .any(|(k, args)| k == "ARG" && args.starts_with("FEATURES")),
        "the builder stage takes ARG FEATURES"
    );
    let runtime = &stages[1];
    let has = |keyword: &str, needle: &str| {
        runtime
            .iter()
            .any(|(k, args)| k == keyword && args.contains(needle))
    };
    assert!(has("FROM", "slim"), "a slim runtime image");
    assert!(has("USER", "10001"), "a non-root user");
    assert!(has("HEALTHCHECK", "/healthz"), "a health check on /healthz");

    let fs_root = scratch.path().join("root");
    let cache = scratch.path().join("target");
    run_builder_stage(&stages[0], &context, &fs_root, &cache);

    let binary = fs_root.join("build/out/synaplan-mcp");
    assert!(binary.is_file(), "{} was not produced", binary.display());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let mut server = Command::new(&binary);
    for (keyword, args) in runtime {
        if keyword == "ENV" {
            for pair in args.split_whitespace() {
                if let Some((name, value)) = pair.split_once('=') {
                    server.env(name, value);
                }
            }
        }
    }
    // The image listens on 0.0.0.0:8080; here, on loopback. The database and Redis need not
    // answer for the start (records wait in the spool; limits fail open): the flags must be
    // known, which they are only with the features compiled in.
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let server = server
        .current_dir(scratch.path())
        .args([
            "--audit-db",
            &format!("postgres://mcpgen@127.0.0.1:{dead}/mcpgen"),
        ])
        .args(["--rate-limit-redis", &format!("redis://127.0.0.1:{dead}")])
        .env("MCPGEN_LISTEN", format!("127.0.0.1:{port}"))
        .env(
            "MCPGEN_TOKEN_SECRET",
            "docker-context-test-secret-of-32-bytes-at-least",
        )
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the built binary starts");
    let mut server = Killed(server);
    let mut answer = None;
    for _ in 0..200 {
        if let Ok(Some(status)) = server.0.try_wait() {
            let mut stderr = String::new();
            if let Some(mut pipe) = server.0.stderr.take() {
                let _ = pipe.read_to_string(&mut stderr);
            }
            panic!("the binary stopped ({status}): {stderr}");
        }
        answer = get(port, "/healthz").filter(|r| r.starts_with("HTTP/1.1 200"));
        if answer.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let answer = answer.expect("the binary answers /healthz with 200");
    assert!(answer.ends_with("ok"), "{answer}");
}
