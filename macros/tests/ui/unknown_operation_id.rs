// Paths are relative to the crate's folder; under trybuild that is
// target/tests/trybuild/mcpgen-macros, four levels below the workspace.
mcpgen::generate!(
    spec = "../../../../specs/synaplan/openapi.yaml",
    tools = "../../../../macros/tests/ui/fixtures/unknown_operation.yaml",
);

fn main() {}
