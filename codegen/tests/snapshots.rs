//! Snapshots of every generated file per spec in `specs/`, and `generated/` in sync with a
//! fresh generation.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_generated_file_matches_its_snapshot() {
    let root = root();
    let folders = mcpgen_codegen::spec_folders(&root).expect("specs/ readable");
    assert!(
        folders.len() >= 4,
        "expected the shipped specs, found {folders:?}"
    );
    for folder in &folders {
        let generation = mcpgen_codegen::generate_folder(&root, folder)
            .unwrap_or_else(|e| panic!("specs/{} failed:\n{e}", folder.folder));
        // The views' renderer and style are the runtime's own files under a header
        // (`generated/`, checked below, keeps them; `views.rs` compares them); the snapshots
        // hold each layout, not those copies.
        let shared = [
            mcpgen_codegen::emit::views::RENDERER_PATH,
            mcpgen_codegen::emit::views::STYLE_PATH,
        ];
        let files = generation.emitted.files.iter();
        for (file, contents) in files.filter(|(file, _)| !shared.contains(&file.as_str())) {
            let name = format!("{}__{}", folder.folder, file.replace(['/', '.'], "_"));
            insta::assert_snapshot!(name, contents);
        }
    }
}

#[test]
fn generated_folder_is_in_sync_with_a_fresh_generation() {
    let root = root();
    let mut drift = Vec::new();
    for folder in mcpgen_codegen::spec_folders(&root).expect("specs/ readable") {
        let generation = mcpgen_codegen::generate_folder(&root, &folder).expect("generates");
        let out = root.join("generated").join(&generation.server.name);
        for d in mcpgen_codegen::output::diff_crate(&out, &generation.emitted.files) {
            drift.push(format!("generated/{}/{d}", generation.server.name));
        }
    }
    assert!(
        drift.is_empty(),
        "generated/ is out of date; run `cargo run -p generator`:\n{}",
        drift.join("\n")
    );
}

#[test]
fn generation_is_deterministic() {
    let root = root();
    for folder in mcpgen_codegen::spec_folders(&root).expect("specs/ readable") {
        let a = mcpgen_codegen::generate_folder(&root, &folder).expect("generates");
        let b = mcpgen_codegen::generate_folder(&root, &folder).expect("generates");
        assert_eq!(a.emitted.files, b.emitted.files, "specs/{}", folder.folder);
    }
}
