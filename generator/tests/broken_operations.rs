//! An operation whose schema holds a `$ref` that cannot be followed (a file the document's
//! package does not ship) is left out of `init`, `list` and generation with a warning naming
//! the operation and the JSON pointer of the `$ref`; the other operations generate. An
//! allowlist that names such an operation explicitly is an error naming it: the person asked
//! for that tool, and it cannot be made. A discriminator mapping entry that cannot be followed
//! leaves nothing out (`discriminator.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/spec_layer/dangling_in_one_operation/openapi.yaml")
}

/// The pointer of the dangling `$ref`.
const POINTER: &str =
    "`/paths/~1pets/post/requestBody/content/application~1json/schema/oneOf/1/$ref`";

fn mcpgen(args: &[&str], spec: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(args)
        .arg("--spec")
        .arg(spec)
        .output()
        .expect("mcpgen runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn generate(spec: &Path, tools: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["generate", "--spec"])
        .arg(spec)
        .arg("--tools")
        .arg(tools)
        .arg("--out")
        .arg(out)
        .output()
        .expect("mcpgen runs")
}

#[test]
fn every_operation_but_the_broken_one_generates_and_a_warning_names_it() {
    let spec = fixture();
    let dir = tempfile::tempdir().expect("tempdir");

    let init = mcpgen(&["init", "--all", "--name", "pets"], &spec);
    let warned = stderr(&init);
    assert!(init.status.success(), "{warned}");
    assert!(
        warned
            .contains("warning: POST /pets (operationId createPet) cannot be read and is left out")
            && warned.contains(POINTER)
            && warned.contains("./schemas/dog.yaml"),
        "{warned}"
    );
    let allowlist = String::from_utf8_lossy(&init.stdout).into_owned();
    assert!(!allowlist.contains("createPet"), "{allowlist}");

    // `list` says the same, and lists the others.
    let list = mcpgen(&["list"], &spec);
    assert!(list.status.success(), "{}", stderr(&list));
    assert!(stderr(&list).contains(POINTER), "{}", stderr(&list));
    let table = String::from_utf8_lossy(&list.stdout);
    assert!(
        table.contains("listPets") && table.contains("listOwners") && !table.contains("createPet"),
        "{table}"
    );

    // What `init` printed generates: every other operation is a tool.
    let tools = dir.path().join("mcp_tools.yaml");
    std::fs::write(&tools, &allowlist).expect("write allowlist");
    let out = dir.path().join("pets-mcp");
    let generated = generate(&spec, &tools, &out);
    assert!(generated.status.success(), "{}", stderr(&generated));
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tools.json")).expect("tools.json"))
            .expect("tools.json parses");
    let names: Vec<&str> = list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["list_pets", "list_owners"]);
}

#[test]
fn an_allowlist_naming_the_broken_operation_is_an_error_naming_it() {
    let spec = fixture();
    let dir = tempfile::tempdir().expect("tempdir");
    let tools = dir.path().join("mcp_tools.yaml");
    std::fs::write(
        &tools,
        "mcp_tools:\n  - operation_id: listPets\n  - operation_id: createPet\n",
    )
    .expect("write allowlist");
    let o = generate(&spec, &tools, &dir.path().join("out"));
    let text = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("entry 2 (operation_id `createPet`)")
            && text.contains("POST /pets")
            && text.contains("cannot be read from the spec")
            && text.contains(POINTER),
        "{text}"
    );
    assert!(!dir.path().join("out").exists());
}

/// A dangling `$ref` in a component leaves out every operation that uses the component, and
/// only those; one in a component no operation uses, or in a discriminator mapping, leaves out
/// nothing.
#[test]
fn a_dangling_ref_in_a_component_leaves_out_the_operations_that_use_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = dir.path().join("openapi.yaml");
    std::fs::write(
        &spec,
        r#"openapi: 3.0.3
info: {title: Pets, version: '1'}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}
  /owners:
    get:
      operationId: listOwners
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Owner'}
components:
  schemas:
    Pet:
      type: object
      properties:
        kind: {type: string}
        dog: {$ref: './dog.yaml'}
    Owner:
      type: object
      properties:
        name: {type: string}
      discriminator:
        propertyName: name
        mapping: {ann: './ann.yaml'}
    Unused:
      $ref: './nowhere.yaml'
"#,
    )
    .expect("write spec");

    let init = mcpgen(&["init", "--all"], &spec);
    let warned = stderr(&init);
    assert!(init.status.success(), "{warned}");
    assert!(
        warned.contains("warning: GET /pets (operationId listPets) cannot be read and is left out")
            && warned.contains("`/components/schemas/Pet/properties/dog/$ref`")
            && warned.contains("`/components/schemas/Owner/discriminator/mapping/ann`")
            && !warned.contains("listOwners"),
        "{warned}"
    );
    let allowlist = String::from_utf8_lossy(&init.stdout).into_owned();
    assert!(
        allowlist.contains("listOwners") && !allowlist.contains("listPets"),
        "{allowlist}"
    );

    let loaded = mcpgen_codegen::spec::Spec::load(&spec).expect("the document loads");
    let broken: Vec<_> = loaded
        .broken
        .iter()
        .filter_map(|b| b.operation_id.as_deref())
        .collect();
    assert_eq!(broken, ["listPets"]);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.to_string().contains("nowhere.yaml")
                && w.message.contains("no operation uses it")),
        "{:#?}",
        loaded.warnings
    );
}
