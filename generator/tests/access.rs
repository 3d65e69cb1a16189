//! A tool's access (`read` / `write`): from the HTTP method, overridden by the allowlist's
//! `access:`, never by annotation hints; and what a `mcp:read` principal may call as a result.

use crate::support;

use std::path::{Path, PathBuf};

use mcpgen_codegen::Error;
use mcpgen_codegen::allowlist::Allowlist;
use mcpgen_codegen::ir::{self, Access, Annotations};
use mcpgen_codegen::lower::method_access;
use mcpgen_codegen::select::{SelectOptions, select};
use mcpgen_codegen::spec::Spec;
use mcpgen_runtime::Principal;

/// The wire fixture: `search` is a GET, `createIssue` and `ping` are POSTs.
fn spec() -> Spec {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wire/openapi.yaml");
    Spec::load(&path).expect("the fixture loads")
}

/// The tools selected by `allowlist` (YAML text), in allowlist order.
fn tools(allowlist: &str) -> Vec<ir::Tool> {
    let allowlist = Allowlist::parse(Path::new("mcp_tools.yaml"), allowlist).expect("allowlist");
    let (server, _) = select(&spec(), &allowlist, &SelectOptions::default())
        .unwrap_or_else(|errors| panic!("selection failed: {errors:?}"));
    server.tools
}

fn reader() -> Principal {
    Principal {
        id: "reader".to_owned(),
        key_id: None,
        scopes: vec!["mcp:read".to_owned()],
        plugins: Vec::new(),
        rate_limit: None,
    }
}

#[test]
fn access_follows_the_method() {
    for (method, access) in [
        ("GET", Access::Read),
        ("get", Access::Read),
        ("HEAD", Access::Read),
        ("OPTIONS", Access::Read),
        ("trace", Access::Read),
        ("POST", Access::Write),
        ("PUT", Access::Write),
        ("PATCH", Access::Write),
        ("delete", Access::Write),
    ] {
        assert_eq!(method_access(method), access, "{method}");
    }
    let tools = tools("mcp_tools:\n  - operation_id: search\n  - operation_id: ping\n");
    assert_eq!(tools[0].access, Access::Read);
    assert_eq!(tools[0].annotations.read_only, Some(true));
    assert_eq!(tools[1].access, Access::Write);
    assert_eq!(tools[1].annotations.read_only, Some(false));
}

#[test]
fn the_entry_access_overrides_the_method_and_the_hints_follow() {
    let tools = tools(
        "mcp_tools:\n  - operation_id: ping\n    access: read\n  - operation_id: search\n    access: write\n",
    );
    assert_eq!(tools[0].access, Access::Read);
    assert_eq!(
        tools[0].annotations,
        Annotations {
            read_only: Some(true),
            ..Annotations::default()
        }
    );
    assert_eq!(tools[1].access, Access::Write);
    assert_eq!(tools[1].annotations.read_only, Some(false));

    let defs = support::preview::tool_defs(&tools);
    assert!(
        reader().may_call(&defs[0]),
        "a POST declared `access: read`"
    );
    assert!(
        !reader().may_call(&defs[1]),
        "a GET declared `access: write`"
    );
}

#[test]
fn a_read_only_hint_alone_leaves_a_post_a_write_tool() {
    let tools =
        tools("mcp_tools:\n  - operation_id: createIssue\n    annotations: { read_only: true }\n");
    assert_eq!(tools[0].access, Access::Write);
    assert_eq!(tools[0].annotations.read_only, Some(true));
    let defs = support::preview::tool_defs(&tools);
    assert_eq!(defs[0].annotations.read_only_hint, Some(true));
    assert!(!reader().may_call(&defs[0]));
}

#[test]
fn an_invalid_access_is_an_error_naming_the_entry() {
    let text =
        "mcp_tools:\n  - operation_id: search\n  - operation_id: ping\n    access: readonly\n";
    let err = Allowlist::parse(Path::new("mcp_tools.yaml"), text).expect_err("invalid access");
    let Error::Allowlist {
        location, message, ..
    } = &err
    else {
        panic!("expected an allowlist error, got {err:?}");
    };
    assert_eq!(
        location,
        "entry 2 (operation_id `ping`), `access` at line 4, column 13"
    );
    assert!(
        message.contains("access `readonly` is not valid"),
        "{message}"
    );
    assert!(
        message.contains("`read`") && message.contains("`write`"),
        "{message}"
    );
}

#[test]
fn confirmation_follows_the_entry_then_the_server_default_for_destructive_writes() {
    // No setting: nothing asks.
    let none = tools("mcp_tools:\n  - operation_id: search\n  - operation_id: ping\n");
    assert!(none.iter().all(|t| !t.confirm));

    // `confirm: true` on an entry, whatever its access.
    let entry =
        tools("mcp_tools:\n  - operation_id: search\n    confirm: true\n  - operation_id: ping\n");
    assert!(entry[0].confirm);
    assert!(!entry[1].confirm);

    // The server default covers writes whose destructive hint is set, not other writes, not
    // reads; an entry's `confirm: false` opts out.
    let defaulted = tools(
        "server:\n  confirm_destructive: true\nmcp_tools:\n  - operation_id: search\n    \
         annotations: { destructive: true }\n  - operation_id: ping\n  - operation_id: \
         createIssue\n    annotations: { destructive: true }\n",
    );
    let confirm: Vec<(&str, bool)> = defaulted
        .iter()
        .map(|t| (t.name.as_str(), t.confirm))
        .collect();
    assert_eq!(
        confirm,
        [("search", false), ("ping", false), ("create_issue", true)]
    );
    let opted_out = tools(
        "server:\n  confirm_destructive: true\nmcp_tools:\n  - operation_id: createIssue\n    \
         annotations: { destructive: true }\n    confirm: false\n",
    );
    assert!(!opted_out[0].confirm);
}

#[test]
fn an_invalid_confirm_is_an_error_naming_the_entry() {
    let error = Allowlist::parse(
        Path::new("mcp_tools.yaml"),
        "mcp_tools:\n  - operation_id: ping\n    confirm: maybe\n",
    )
    .expect_err("`confirm: maybe` is refused");
    let message = error.to_string();
    assert!(message.contains("mcp_tools.yaml"), "{message}");
    assert!(message.contains("line 3"), "{message}");
}
