//! The tools `build.rs` generated are those of the checked-in `generated/library2` crate.

use serde_json::Value;

#[test]
fn build_rs_generates_the_tools_of_the_allowlist() {
    let listed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../generated/library2/tools.json"
    ))
    .expect("generated/library2/tools.json");
    let listed: Value = serde_json::from_str(&listed).expect("JSON");
    let expected: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    let built: Vec<&str> = spec_build::tools::TOOLS.iter().map(|t| t.name).collect();
    assert_eq!(built, expected);
}
