//! `views/`: each tool's view (MCP Apps) as its layout, `views/<tool>.json`, and the renderer
//! script and style every view shares, once (`views/renderer.js`, `views/view.css`), for
//! review. The tool table names each layout (`include_str!` of its file, or the same JSON as a
//! string literal when the table is not written beside the folder), and a server puts each
//! document together from its layout and the renderer it was built with, at `resources/read`
//! (`mcpgen_core::view::document`).

use std::collections::BTreeMap;

use mcpgen_core::view::html::{RENDERER, STYLE};

use crate::ir;

/// Where the renderer script is written.
pub const RENDERER_PATH: &str = "views/renderer.js";

/// Where the style is written.
pub const STYLE_PATH: &str = "views/view.css";

/// The views of `server`'s tools by path in the crate: each layout (JSON text and a line end),
/// and, when any tool has a view, the renderer and style, each under a comment holding
/// `header`.
pub(crate) fn files(server: &ir::Server, header: &str) -> BTreeMap<String, String> {
    let mut files: BTreeMap<String, String> = server
        .tools
        .iter()
        .filter_map(|tool| {
            let layout = tool.view.as_ref()?;
            Some((path(&tool.name), layout_file(layout)))
        })
        .collect();
    if files.is_empty() {
        return files;
    }
    // Neither comment may end early: a line separator ends a JavaScript line comment, `*/`
    // a CSS comment.
    let header: String = header
        .chars()
        .map(|c| match c {
            '\u{2028}' | '\u{2029}' => '?',
            c => c,
        })
        .collect();
    files.insert(RENDERER_PATH.to_owned(), format!("// {header}\n{RENDERER}"));
    let css_header = header.replace("*/", "* /");
    files.insert(
        STYLE_PATH.to_owned(),
        format!("/* {css_header} */\n{STYLE}"),
    );
    files
}

/// The text of a view's layout file: the layout as JSON and a newline.
pub(crate) fn layout_file(layout: &mcpgen_core::view::Layout) -> String {
    let mut json = layout.to_json();
    json.push('\n');
    json
}

/// Where the layout of the tool `name`'s view is written.
pub fn path(name: &str) -> String {
    format!("views/{name}.json")
}

/// Whether `path` (relative to the crate folder) is a file this module writes: a layout, the
/// renderer or the style. Layouts are JSON and carry no header saying they are generated.
pub fn is_view_file(path: &str) -> bool {
    path.strip_prefix("views/")
        .is_some_and(|name| !name.contains('/') && name.ends_with(".json"))
        || path == RENDERER_PATH
        || path == STYLE_PATH
}
