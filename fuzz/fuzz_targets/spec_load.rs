//! The spec loader, bundler and upgrader (and the lowering of what they produce): any text
//! as an OpenAPI/Swagger document, JSON or YAML. Errors are fine; panics and hangs are not.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mcpgen_codegen::allowlist::Allowlist;
use mcpgen_codegen::select::{SelectOptions, select};
use mcpgen_codegen::spec::Spec;

/// Most operations lowered per input, to keep executions fast.
const MAX_SELECTED: usize = 4;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A folder that does not exist: relative `$ref`s to other files fail to load.
    let path = Path::new("/nonexistent/mcpgen-fuzz/openapi.yaml");
    let Ok(spec) = Spec::from_str(path, text) else {
        return;
    };
    let ids: Vec<String> = spec
        .operations
        .iter()
        .filter_map(|op| op.operation_id.clone())
        .take(MAX_SELECTED)
        .collect();
    if ids.is_empty() {
        return;
    }
    let mut allowlist = String::from("mcp_tools:\n");
    for id in &ids {
        // JSON strings are YAML strings: any id is quoted safely.
        let quoted = serde_json::to_string(id).unwrap_or_default();
        allowlist.push_str(&format!("  - operation_id: {quoted}\n"));
    }
    let Ok(allowlist) = Allowlist::parse(Path::new("mcp_tools.yaml"), &allowlist) else {
        return;
    };
    let options = SelectOptions {
        default_name: Some("fuzz".to_owned()),
        name_override: None,
        plugins: Vec::new(),
    };
    let _ = select(&spec, &allowlist, &options);
});
