//! Operations that run long become task tools: one documenting `202` with a `Location` header,
//! or one whose allowlist entry says `task: true`; `task: false` turns the first off, and any
//! other value is an error naming where it was written. A task tool's cancel goes to the
//! status endpoints the spec documents `DELETE` on.

use std::path::Path;

use mcpgen_codegen::Error;
use mcpgen_codegen::allowlist::Allowlist;
use mcpgen_codegen::ir;
use mcpgen_codegen::select::{SelectOptions, select};
use mcpgen_codegen::spec::Spec;

/// `startExport` answers `202` with a `Location` (its header spelled in lower case),
/// `rebuildIndex` answers `202` without one, `getThing` answers `200`. `/exports/{id}` is a
/// status endpoint (`202`, `303`) that documents `DELETE`; `/jobs/{id}` one that does not.
const SPEC: &str = r#"
openapi: 3.0.3
info: {title: Jobs, version: "1.0"}
paths:
  /exports:
    post:
      operationId: startExport
      responses:
        "202":
          description: The export goes on; poll the `Location`.
          headers:
            location:
              schema: {type: string}
        "400": {description: bad request}
  /exports/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
    get:
      operationId: exportStatus
      responses:
        "202": {description: still working}
        "303": {description: done}
    delete:
      operationId: cancelExport
      responses:
        "204": {description: cancelled}
  /jobs/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}}
    get:
      operationId: jobStatus
      responses:
        "202": {description: still working}
  /index:
    post:
      operationId: rebuildIndex
      responses:
        "202": {description: accepted}
  /things/{id}:
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: the thing
          content:
            application/json:
              schema: {type: object, properties: {id: {type: string}}}
"#;

fn spec() -> Spec {
    Spec::from_str(Path::new("openapi.yaml"), SPEC).expect("the spec loads")
}

/// The tools selected by `allowlist` (YAML text), in allowlist order.
fn tools(allowlist: &str) -> Vec<ir::Tool> {
    let allowlist = Allowlist::parse(Path::new("mcp_tools.yaml"), allowlist).expect("allowlist");
    let (server, _) = select(&spec(), &allowlist, &SelectOptions::default())
        .unwrap_or_else(|errors| panic!("selection failed: {errors:?}"));
    server.tools
}

fn marked(tools: &[ir::Tool]) -> Vec<(&str, bool)> {
    tools
        .iter()
        .map(|tool| (tool.http.operation_id.as_str(), tool.http.task))
        .collect()
}

#[test]
fn an_operation_answering_202_with_a_location_is_a_task_tool() {
    let tools = tools(
        "mcp_tools:\n  - operation_id: startExport\n  - operation_id: rebuildIndex\n  \
         - operation_id: getThing\n",
    );
    assert_eq!(
        marked(&tools),
        [
            ("startExport", true),
            ("rebuildIndex", false),
            ("getThing", false)
        ]
    );
}

#[test]
fn the_allowlist_marks_an_operation_or_unmarks_it() {
    let tools = tools(
        "mcp_tools:\n  - operation_id: startExport\n    task: false\n  \
         - operation_id: rebuildIndex\n    task: true\n  - operation_id: getThing\n    \
         task: false\n",
    );
    assert_eq!(
        marked(&tools),
        [
            ("startExport", false),
            ("rebuildIndex", true),
            ("getThing", false)
        ]
    );
}

#[test]
fn a_task_tool_is_marked_in_the_generated_table() {
    let dir = std::env::temp_dir().join(format!("mcpgen-task-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let spec_path = dir.join("openapi.yaml");
    let tools_path = dir.join("mcp_tools.yaml");
    std::fs::write(&spec_path, SPEC).expect("the spec is written");
    std::fs::write(
        &tools_path,
        "mcp_tools:\n  - operation_id: startExport\n  - operation_id: getThing\n",
    )
    .expect("the allowlist is written");
    let generation = mcpgen_codegen::generate(
        &spec_path,
        &tools_path,
        &mcpgen_codegen::Settings::default(),
    )
    .unwrap_or_else(|e| panic!("generation failed: {e}"));
    std::fs::remove_dir_all(&dir).ok();
    let tools_rs = generation
        .emitted
        .files
        .iter()
        .find_map(|(file, contents)| (file == "src/tools.rs").then_some(contents))
        .expect("src/tools.rs is emitted");
    assert_eq!(
        tools_rs.matches(".task()").count(),
        1,
        "only startExport's binding is marked:\n{tools_rs}"
    );
    let start = tools_rs
        .find("\"startExport\"")
        .expect("startExport's binding");
    let marked = tools_rs[start..].find(".task()").map(|at| start + at);
    let next = tools_rs[start..].find("\"getThing\"").map(|at| start + at);
    assert!(
        matches!((marked, next), (Some(m), Some(n)) if m < n) || next.is_none(),
        "the mark belongs to startExport:\n{tools_rs}"
    );
}

#[test]
fn a_task_value_other_than_true_or_false_is_an_error_naming_where() {
    for (value, shown) in [("maybe", "maybe"), ("\"yes\"", "yes"), ("1", "1")] {
        let text = format!("mcp_tools:\n  - operation_id: startExport\n    task: {value}\n");
        let err =
            Allowlist::parse(Path::new("mcp_tools.yaml"), &text).expect_err("the value is refused");
        let Error::Allowlist {
            location, message, ..
        } = &err
        else {
            panic!("an allowlist error: {err:?}");
        };
        assert_eq!(
            location, "entry 1 (operation_id `startExport`), `task` at line 3, column 11",
            "{value}"
        );
        assert!(
            message.starts_with(&format!("task `{shown}` is not valid; use `true`")),
            "{value}: {message}"
        );
    }
}

#[test]
fn a_task_tool_cancels_through_the_status_endpoints_that_document_delete() {
    let tools = tools(
        "mcp_tools:\n  - operation_id: startExport\n  - operation_id: getThing\n  \
         - operation_id: rebuildIndex\n    task: true\n",
    );
    let cancel: Vec<(&str, &[String])> = tools
        .iter()
        .map(|tool| (tool.http.operation_id.as_str(), tool.http.cancel.as_slice()))
        .collect();
    let exports = ["/exports/{id}".to_owned()];
    assert_eq!(
        cancel,
        [
            ("startExport", &exports[..]),
            ("getThing", &[][..]),
            ("rebuildIndex", &exports[..]),
        ]
    );
}
