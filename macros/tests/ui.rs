//! One compile failure per mistake a user of the macros can make; each `.stderr` must point
//! at the user's own tokens.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
