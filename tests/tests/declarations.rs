//! TypeScript declarations of real tool tables: the generated Synaplan crate's, made at
//! generation and agreeing with its `tools.d.ts`, and the rooms example's `#[mcp_tool]`
//! tools, converted from their schemars schemas when asked for.

use std::sync::Arc;

use mcpgen_runtime::ToolSet;
use mcpgen_runtime::typescript::{declaration_for, declarations_for};

fn tools_d_ts() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../generated/synaplan/tools.d.ts"
    );
    std::fs::read_to_string(path).expect("generated/synaplan/tools.d.ts is readable")
}

#[test]
fn every_generated_tool_has_the_declaration_tools_d_ts_shows() {
    let file = tools_d_ts();
    for def in synaplan_mcp::TOOLS.iter() {
        let declaration = def
            .declaration
            .unwrap_or_else(|| panic!("{} has no declaration", def.name));
        assert!(
            declaration
                .signature
                .contains(&format!("\n{}(args: {{", def.name)),
            "{}: {}",
            def.name,
            declaration.signature
        );
        let indented: String = declaration
            .signature
            .lines()
            .map(|line| format!("  {line}\n"))
            .collect();
        assert!(
            file.contains(&indented),
            "{} differs from tools.d.ts",
            def.name
        );
        for ty in declaration.types {
            assert!(
                file.contains(ty),
                "{}: type not in tools.d.ts:\n{ty}",
                def.name
            );
        }
        let text = declaration_for(def);
        assert!(text.ends_with(declaration.signature), "{text}");
    }
}

#[test]
fn a_generated_tool_names_only_types_its_declaration_carries() {
    let def = synaplan_mcp::TOOLS
        .iter()
        .find(|t| t.name == "synaplan_send_message")
        .expect("a Synaplan tool");
    let text = declaration_for(def);
    assert!(text.contains("type ModelNameInput = \"gpt-4o\""), "{text}");
    assert!(text.contains("interface Usage {"), "{text}");
    assert!(text.contains("message: string;"), "{text}");
    assert!(text.contains("model?: ModelNameInput;"), "{text}");
    assert!(text.contains("usage?: Usage | null;"), "{text}");
}

#[test]
fn all_generated_tools_together_declare_each_type_once() {
    let defs: Vec<_> = synaplan_mcp::TOOLS.iter().collect();
    let text = declarations_for(&defs);
    assert_eq!(text.matches("interface FileInfo {").count(), 1, "{text}");
    for def in &defs {
        assert!(
            text.contains(&format!("{}(args: {{", def.name)),
            "{}",
            def.name
        );
    }
}

#[test]
fn mcp_tool_tools_are_declared_from_their_schemas() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let store = Arc::new(rooms::store::RoomStore::open(dir.path()).expect("the store opens"));
    let app = rooms::tools::RoomTools::all(store).into_tool_set();
    let defs = app.tools();
    assert!(!defs.is_empty());
    for def in defs {
        assert!(def.declaration.is_none(), "{}", def.name);
        let text = declaration_for(def);
        assert!(
            text.contains(&format!("{}(args: ", def.name)),
            "{}: {text}",
            def.name
        );
        assert!(text.contains("): Promise<"), "{text}");
        assert!(!text.contains(": any"), "{}: {text}", def.name);
    }
}
