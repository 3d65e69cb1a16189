//! `mcpgen sizes` reports code mode's `tools/list` beside `all` mode's for every shipped spec:
//! the runtime's own listing (which the code-mode server test checks against what a server
//! serves), within the 4,000 bytes code mode must fit whatever the API's size.

use std::path::Path;
use std::process::Command;

use mcpgen_runtime::code::{CodeLimits, tools_list_json};

#[test]
fn sizes_gives_code_mode_s_tools_list_for_every_shipped_spec() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["sizes", "--root"])
        .arg(&root)
        .output()
        .expect("mcpgen runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let table = String::from_utf8(output.stdout).expect("UTF-8");
    let (_, code) = table
        .split_once("## Code mode (`--tool-mode code`)")
        .expect("a code-mode section");
    let specs: Vec<String> = std::fs::read_dir(root.join("specs"))
        .expect("specs/")
        .flatten()
        .filter(|e| e.path().join("mcp_tools.yaml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(specs.iter().any(|s| s == "helpdesk"), "{specs:?}");
    for spec in &specs {
        let row = code
            .lines()
            .find(|line| line.starts_with(&format!("| {spec} |")))
            .unwrap_or_else(|| panic!("no code-mode row for {spec}:\n{code}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let tools: usize = cells[2].parse().expect("a tool count");
        let bytes: usize = cells[4].parse().expect("a byte count");
        assert_eq!(
            bytes,
            tools_list_json(tools, &CodeLimits::default(), None).len(),
            "{row}"
        );
        assert!(bytes <= 4000, "{row}");
    }
}
