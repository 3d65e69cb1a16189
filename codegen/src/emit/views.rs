//! `views/<tool>.html`: each tool's view (MCP Apps) as the server serves it, for review. The
//! crate's binary carries the layouts (in `src/tools.rs`) and the shared renderer once; a
//! server assembles the same documents from them at start-up.

use std::collections::BTreeMap;

use crate::ir;

/// The view documents of `server`'s tools, by path in the crate, each under an HTML comment
/// holding `header`.
pub(crate) fn files(server: &ir::Server, header: &str) -> BTreeMap<String, String> {
    // A comment cannot hold `--`; the header names files, which might.
    let comment = format!("<!-- {} -->\n", header.replace("--", "- -"));
    server
        .tools
        .iter()
        .filter_map(|tool| {
            let layout = tool.view.as_ref()?;
            let mut file = comment.clone();
            file.push_str(&mcpgen_core::view::document(&layout.to_json()));
            Some((path(&tool.name), file))
        })
        .collect()
}

/// Where the view of the tool `name` is written.
pub fn path(name: &str) -> String {
    format!("views/{name}.html")
}
