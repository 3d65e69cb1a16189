//! The book's reference pages match the clap definitions they are rendered from: the flags of
//! `mcpgen` (`mcpgen reference`) and of a generated server (the runtime's `ServeArgs`, with
//! every backend feature compiled in through this crate's dev-dependencies), and the metrics
//! table of `metrics/src/lib.rs`. A flag added to clap without regenerating the pages
//! fails here; `MCPGEN_UPDATE_REFERENCE=1` writes the pages instead of comparing.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::{Args, CommandFactory};
use mcpgen_runtime::cli::{AuditDbArgs, CodeArgs, MetricsArgs, ServeArgs};

#[allow(dead_code)]
#[path = "../src/reference.rs"]
mod render;

const REGENERATE: &str =
    "MCPGEN_UPDATE_REFERENCE=1 cargo test -p generator --test generator reference";

fn book() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/reference")
}

/// Compares `page` with the book's file `name`, or writes it when asked to.
fn check(name: &str, page: &str) {
    let path = book().join(name);
    if std::env::var_os("MCPGEN_UPDATE_REFERENCE").is_some() {
        std::fs::write(&path, page).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    if on_disk != page {
        let first = on_disk
            .lines()
            .zip(page.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(on_disk.lines().count().min(page.lines().count()));
        panic!(
            "{} differs from the clap definitions (first difference at line {}: the page has {:?}, \
             the definitions give {:?}); regenerate the reference with `{REGENERATE}`",
            path.display(),
            first + 1,
            on_disk.lines().nth(first).unwrap_or("<end of file>"),
            page.lines().nth(first).unwrap_or("<end of file>"),
        );
    }
}

/// The flags a backend feature of the runtime brings; every other flag of a generated server
/// is always there. A flag behind a new feature goes here.
fn server_features() -> Vec<(String, &'static str)> {
    let mut marks = Vec::new();
    let longs = |command: clap::Command| -> Vec<String> {
        command
            .get_arguments()
            .filter_map(|arg| arg.get_long().map(str::to_owned))
            .collect()
    };
    for long in longs(MetricsArgs::augment_args(clap::Command::new("metrics"))) {
        marks.push((long, "metrics"));
    }
    for long in longs(AuditDbArgs::augment_args(clap::Command::new("audit"))) {
        marks.push((long, "postgres` or `sqlite"));
    }
    for long in longs(CodeArgs::augment_args(clap::Command::new("code"))) {
        marks.push((long, "code-mode"));
    }
    for long in ["rate-limit-redis", "rate-limit-redis-unavailable"] {
        marks.push((long.to_owned(), "redis"));
    }
    marks
}

#[test]
fn mcpgen_page_matches_its_flags() {
    let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("reference")
        .output()
        .expect("mcpgen runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    check("mcpgen.md", &String::from_utf8_lossy(&output.stdout));
}

#[test]
fn server_page_matches_its_flags() {
    let marks = server_features();
    let command = ServeArgs::command()
        .name("<name>-mcp")
        .version("1.0.0")
        .about("MCP server for <API title>: <description>");
    for (long, _) in &marks {
        assert!(
            command
                .get_arguments()
                .any(|arg| arg.get_long() == Some(long)),
            "--{long} is marked with a feature but is not a flag of the server"
        );
    }
    let marks: Vec<(&str, &str)> = marks.iter().map(|(l, f)| (l.as_str(), *f)).collect();
    let page = render::markdown(
        &command,
        "Generated server flags",
        "Every flag of a generated server (`synaplan-mcp`, or any `<name>-mcp`), with the \
         environment variable that sets it (a flag given on the command line wins) and, for \
         flags that only a cargo feature of the generated crate compiles in, that feature \
         (`cargo build --release --features postgres,redis`). `<name>-mcp --help` prints the \
         same text for the features the binary was built with. Variables read outside these \
         flags are listed in [Environment variables](environment.md).",
        &marks,
    );
    check("server.md", &page);
}

#[test]
fn metrics_page_matches_the_series() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../metrics/src/lib.rs");
    let source = std::fs::read_to_string(&source).expect("metrics/src/lib.rs");
    let docs: Vec<&str> = source
        .lines()
        .take_while(|line| line.starts_with("//!"))
        .map(|line| line.trim_start_matches("//!").trim_start())
        .collect();
    let start = docs
        .iter()
        .position(|line| line.starts_with("| Series"))
        .expect("the series table");
    let table = docs[start..].join("\n");
    let page = format!(
        "<!-- Generated from metrics/src/lib.rs: do not edit. Regenerate with\n     \
         {REGENERATE} -->\n\n# Metrics\n\n\
         With `--metrics` (feature `metrics`, on in generated servers) a server serves these \
         series in the Prometheus text format at `/metrics`, or on `--metrics-listen`; see \
         [Metrics and traces](../operator/metrics-traces.md).\n\n{}\n",
        table.trim_end()
    );
    check("metrics.md", &page);
}
