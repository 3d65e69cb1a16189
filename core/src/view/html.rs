//! A view's HTML document: one self-contained file with the shared renderer script and style
//! inline, and the view's layout as JSON data in a `<script type="application/json">` block.
//!
//! The markup is the same for every view; the only varying part is the layout, which the
//! script reads with `JSON.parse`, never as markup. Its JSON is written so that nothing in it
//! can end the block or read as markup or a URL: `<`, `>`, `&`, `/` and the two JavaScript
//! line separators are `\u` or `\/` escapes. The document declares a Content Security Policy
//! that lets it load nothing ([`CONTENT_SECURITY_POLICY`]); its resource tells the host the
//! same in `_meta.ui.csp` ([`CSP_DOMAINS`], each empty).

/// The renderer script every view shares.
pub const RENDERER: &str = include_str!("renderer.js");

/// The style every view shares.
pub const STYLE: &str = include_str!("view.css");

/// The Content Security Policy every view's document declares in its `<meta>` tag: nothing
/// is loaded, fetched, framed or used as the base URI; only the inline script and style run.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'unsafe-inline'; \
style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/// The members of a view resource's `_meta.ui.csp` (MCP Apps `McpUiResourceCsp`), each an
/// empty list of origins: the same policy as [`CONTENT_SECURITY_POLICY`], told to the host.
pub const CSP_DOMAINS: [&str; 4] = [
    "connectDomains",
    "resourceDomains",
    "frameDomains",
    "baseUriDomains",
];

/// What stands before the policy.
const HEAD: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"";

/// What stands between the policy and the style.
const AFTER_POLICY: &str = "\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<title>View</title>\n<style>\n";

/// The document of the view whose layout is `layout` (JSON text, a
/// [`super::Layout`]): byte for byte the same for the same layout. Whitespace after the JSON
/// (the line end of a generated crate's `views/<tool>.json`) is left out.
pub fn document(layout: &str) -> String {
    let layout = layout.trim_end();
    let mut html = String::with_capacity(
        HEAD.len()
            + CONTENT_SECURITY_POLICY.len()
            + STYLE.len()
            + RENDERER.len()
            + layout.len()
            + 512,
    );
    html.push_str(HEAD);
    html.push_str(CONTENT_SECURITY_POLICY);
    html.push_str(AFTER_POLICY);
    html.push_str(STYLE);
    html.push_str("</style>\n</head>\n<body>\n<main id=\"view\"></main>\n");
    html.push_str("<script type=\"application/json\" id=\"mcpgen-layout\">");
    push_json_for_html(&mut html, layout);
    html.push_str("</script>\n<script>\n");
    html.push_str(RENDERER);
    html.push_str("</script>\n</body>\n</html>\n");
    html
}

/// Appends JSON text with every character that could read as markup, end the script block
/// or form a URL written as a JSON escape (the JSON value is unchanged).
fn push_json_for_html(out: &mut String, json: &str) {
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '/' => out.push_str("\\/"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
}
