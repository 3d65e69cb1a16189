//! One compile failure per mistake a user of the macros can make; each `.stderr` must point
//! at the user's own tokens.
//!
//! Cases that include a spec name it as `${MCPGEN_REPO}/...`: trybuild compiles each case in a
//! crate under the target folder, which may be anywhere (`CARGO_TARGET_DIR`), so a path relative
//! to that crate would not find the repository.

#[test]
fn ui() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = repo.canonicalize().expect("the repository folder");
    // SAFETY: set before trybuild starts any thread or child process, and this test binary
    // runs this one test.
    unsafe { std::env::set_var("MCPGEN_REPO", repo) };
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
