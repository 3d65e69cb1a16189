//! Generates the tools of the library API (`specs/library2`) into `OUT_DIR/library.rs`, which
//! `src/lib.rs` includes: the files `mcpgen generate` would write, without checking them in.

use std::fmt::Write as _;
use std::path::PathBuf;

// ANCHOR: build
fn main() {
    if let Err(error) = write_tools() {
        // Cargo shows a failed build script's stderr.
        eprintln!("{error}");
        std::process::exit(1);
    }
}

fn write_tools() -> Result<(), Box<dyn std::error::Error>> {
    // Relative to this crate's Cargo.toml.
    let (spec, tools) = (
        "../../specs/library2/openapi.json",
        "../../specs/library2/mcp_tools.yaml",
    );
    println!("cargo::rerun-if-changed={spec}");
    println!("cargo::rerun-if-changed={tools}");
    let settings = mcpgen_codegen::Settings::new().with_default_name("library");
    let generation = mcpgen_codegen::generate(spec.as_ref(), tools.as_ref(), &settings)?;
    // Each file becomes a module: a generated file starts with inner doc comments (`//!`),
    // which `include!` accepts only inside a module's braces.
    let mut modules = String::new();
    for module in ["tools", "types", "client", "search"] {
        let path = format!("src/{module}.rs");
        let text = generation
            .emitted
            .files
            .get(&path)
            .ok_or_else(|| format!("the engine wrote no {path}"))?;
        writeln!(modules, "pub mod {module} {{\n{text}\n}}")?;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("library.rs"), modules)?;
    Ok(())
}
// ANCHOR_END: build
