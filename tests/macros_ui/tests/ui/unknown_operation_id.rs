// `MCPGEN_REPO` is the repository folder (set by tests/ui.rs).
mcpgen::generate!(
    spec = "${MCPGEN_REPO}/specs/synaplan/openapi.yaml",
    tools = "${MCPGEN_REPO}/tests/macros_ui/tests/ui/fixtures/unknown_operation.yaml",
);

fn main() {}
