//! Tests of APIs that read this process's environment, run in a child process that has the
//! variables from the start: `std::env::set_var` while other tests run on other threads of the
//! same binary is undefined behaviour.

use std::process::Command;

/// The variable that tells a child of this binary which test it runs with the variables set.
const CHILD_OF: &str = "MCPGEN_TEST_CHILD_OF";

/// In the test named `test` (its path in this binary, as `cargo test` lists it): `true` in the
/// parent, after running `test` alone in a child process of this binary with `vars` in its
/// environment and asserting it passed there; `false` in that child, which then runs the
/// test's body.
pub fn ran_in_child_with(test: &str, vars: &[(&str, &str)]) -> bool {
    if std::env::var_os(CHILD_OF).is_some_and(|of| of == test) {
        return false;
    }
    let output = Command::new(std::env::current_exe().expect("the test binary's path"))
        .args([test, "--exact", "--test-threads=1"])
        .env(CHILD_OF, test)
        .envs(vars.iter().copied())
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("test result: ok. 1 passed"),
        "`{test}` in a child process with {vars:?}:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    true
}
