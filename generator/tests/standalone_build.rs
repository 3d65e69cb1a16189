//! `mcpgen generate --spec F --tools T --out D --mcpgen-path mcpgen` followed by `cargo build`
//! in `D`, for every shipped spec (Swagger 2.0, OpenAPI 3.0, 3.1, cycles, discriminators) and
//! for a spec full of hostile text, which must come through verbatim as data, never as code.

use std::path::Path;
use std::process::Command;

use crate::support::standalone::root;
use mcpgen_tests::standalone_build as cargo_build;

fn generate_into(spec: &Path, tools: &Path, out: &Path) {
    let o = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["generate", "--spec"])
        .arg(spec)
        .arg("--tools")
        .arg(tools)
        .arg("--out")
        .arg(out)
        .arg("--mcpgen-path")
        .arg(root().join("mcpgen"))
        .output()
        .expect("mcpgen runs");
    assert!(
        o.status.success(),
        "generate {}: {}{}",
        spec.display(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn every_shipped_spec_generates_a_crate_that_builds_on_its_own() {
    let root = root();
    let tmp = tempfile::tempdir().expect("tempdir");
    let folders = mcpgen_codegen::spec_folders(&root).expect("specs");
    let mut crates = Vec::new();
    for folder in &folders {
        let out = tmp.path().join(&folder.folder);
        generate_into(&folder.spec, &folder.tools, &out);
        crates.push(out);
    }
    let hostile = root.join("generator/tests/fixtures/hostile");
    let out = tmp.path().join("hostile");
    generate_into(
        &hostile.join("openapi.yaml"),
        &hostile.join("mcp_tools.yaml"),
        &out,
    );
    crates.push(out.clone());
    for dir in &crates {
        cargo_build(dir);
    }
    hostile_text_is_carried_verbatim(&hostile, &out);
}

const HOSTILE: [&str; 4] = ["\"); std::process::exit(1); //", "*/", "#[", "{}"];

/// Every hostile fragment that the spec puts into a description reaches the generated code as
/// string-literal or doc text, unchanged.
fn hostile_text_is_carried_verbatim(spec_dir: &Path, out: &Path) {
    let tools_rs = std::fs::read_to_string(out.join("src/tools.rs")).expect("tools.rs");
    let file: syn::File = syn::parse_str(&tools_rs).expect("tools.rs parses");
    let mut literals = Vec::new();
    collect_strings(&quote::ToTokens::to_token_stream(&file), &mut literals);
    let tools_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tools.json")).expect("tools.json"))
            .expect("JSON");
    let allowlist = std::fs::read_to_string(spec_dir.join("mcp_tools.yaml")).expect("allowlist");
    for tool in tools_json["tools"].as_array().expect("tools") {
        let description = tool["description"].as_str().expect("description");
        assert!(
            literals.iter().any(|l| l == description),
            "description of {} is not a literal of tools.rs verbatim",
            tool["name"]
        );
    }
    let all_descriptions: String = tools_json["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["description"].as_str())
        .collect();
    for fragment in HOSTILE {
        assert!(allowlist.contains(fragment) || all_descriptions.contains(fragment));
        assert!(
            all_descriptions.contains(fragment),
            "fragment {fragment:?} lost from descriptions"
        );
    }
    // Doc comments of the client stubs carry the text too.
    let client_rs = std::fs::read_to_string(out.join("src/client.rs")).expect("client.rs");
    let client: syn::File = syn::parse_str(&client_rs).expect("client.rs parses");
    let mut docs = Vec::new();
    collect_strings(&quote::ToTokens::to_token_stream(&client), &mut docs);
    let doc_text = docs.join("\n");
    for fragment in HOSTILE {
        assert!(
            doc_text.contains(fragment),
            "fragment {fragment:?} missing from client docs"
        );
    }
}

fn collect_strings(tokens: &proc_macro2::TokenStream, out: &mut Vec<String>) {
    for tt in tokens.clone() {
        match tt {
            proc_macro2::TokenTree::Group(g) => collect_strings(&g.stream(), out),
            proc_macro2::TokenTree::Literal(l) => {
                if let Ok(s) = syn::parse_str::<syn::LitStr>(&l.to_string()) {
                    out.push(s.value());
                }
            }
            _ => {}
        }
    }
}
