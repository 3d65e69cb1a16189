//! The allowlist (`mcp_tools.yaml`) and plugin manifest (`manifest.json`) parsers: the first
//! byte picks which one reads the rest.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mcpgen_codegen::allowlist::{Allowlist, ServerBlock};
use mcpgen_codegen::plugins::Manifest;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    if which % 2 == 0 {
        if let Ok(allowlist) = Allowlist::parse(Path::new("mcp_tools.yaml"), text) {
            // Every entry's location renders.
            for entry in &allowlist.tools {
                let _ = entry.location();
            }
        }
    } else {
        let server = ServerBlock::default();
        let _ = Manifest::parse(Path::new("plugins/fuzz/manifest.json"), text, &server);
    }
});
