//! A generated server built without its backend features (the crate's defaults: no
//! `postgres`, `sqlite`, `redis`, `code-mode` or `otel`) never runs silently without what its
//! configuration asks for: given the variable of a missing backend it stops at start, with an
//! exit code other than 0 and an error naming the variable, the feature and the build line;
//! `OTEL_EXPORTER_OTLP_ENDPOINT` gives a warning naming `otel` and the server serves.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::standalone::root;
use mcpgen_tests::standalone_build;

/// Generates the Synaplan crate into `out` (outside the workspace) and builds it with its
/// default features; the binary.
fn build_without_backends(out: &Path) -> std::path::PathBuf {
    let spec = root().join("specs/synaplan");
    let generated = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["generate", "--spec"])
        .arg(spec.join("openapi.yaml"))
        .arg("--tools")
        .arg(spec.join("mcp_tools.yaml"))
        .arg("--out")
        .arg(out)
        .arg("--mcpgen-path")
        .arg(root().join("mcpgen"))
        .output()
        .expect("mcpgen runs");
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    standalone_build(out).join("synaplan-mcp")
}

/// The server over HTTP on a free loopback port, with `env` set, in `dir`.
fn server(binary: &Path, dir: &Path, env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(binary);
    command
        .args(["--transport", "http", "--no-auth"])
        .args(["--upstream-url", "http://127.0.0.1:9"])
        .args(["--listen", "127.0.0.1:0"])
        .current_dir(dir)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .envs(env.iter().copied());
    command
}

#[test]
fn a_server_built_without_a_backend_stops_when_asked_for_it_and_warns_for_otel() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let binary = build_without_backends(&scratch.path().join("synaplan-mcp"));
    for (variable, value, feature) in [
        (
            "MCPGEN_AUDIT_DB",
            "postgres://audit:hunter2@db/mcp",
            "postgres",
        ),
        ("MCPGEN_AUDIT_DB", "sqlite:///var/audit.db", "sqlite"),
        ("MCPGEN_RATE_LIMIT_REDIS", "redis://cache:6379", "redis"),
        ("MCPGEN_STATE_REDIS", "redis://cache:6379", "redis"),
        ("MCPGEN_TOOL_MODE", "code", "code-mode"),
    ] {
        let out = server(&binary, scratch.path(), &[(variable, value)])
            .output()
            .expect("the server runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && out.status.code().is_some(),
            "{variable}={value}: {:?}: {stderr}",
            out.status
        );
        for part in [
            variable,
            &format!("`{feature}` feature"),
            &format!("cargo build --release --features {feature}"),
        ] {
            assert!(
                stderr.contains(part),
                "{variable}: `{part}` missing: {stderr}"
            );
        }
        assert!(!stderr.contains("hunter2"), "a password is shown: {stderr}");
    }

    // OpenTelemetry: a warning, and the server runs.
    let mut child = server(
        &binary,
        scratch.path(),
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .expect("the server starts");
    let stderr = child.stderr.take().expect("stderr");
    let mut seen = String::new();
    let mut warning = None;
    for line in BufReader::new(stderr).lines() {
        let line = line.expect("a line");
        if line.contains("OTEL_EXPORTER_OTLP_ENDPOINT") {
            warning = Some(line);
            break;
        }
        seen.push_str(&line);
        seen.push('\n');
    }
    let running = child.try_wait().expect("try_wait").is_none();
    let _ = child.kill();
    let _ = child.wait();
    let warning = warning.unwrap_or_else(|| panic!("no warning about OTEL_*: {seen}"));
    assert!(running, "the server stopped: {seen}{warning}");
    for part in ["WARN", "`otel` feature", "--features otel"] {
        assert!(warning.contains(part), "`{part}` missing: {warning}");
    }
}
