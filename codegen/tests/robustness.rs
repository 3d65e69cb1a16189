//! Truncated, mutated and garbage specs and allowlists produce errors, never panics.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use mcpgen_codegen::allowlist::Allowlist;
use mcpgen_codegen::spec::Spec;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A small deterministic generator, so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() as usize) % n
        }
    }
}

fn char_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}

/// Variants of `text`: truncations, byte flips, deleted and duplicated lines, junk inserted.
fn mutations(text: &str, seed: u64, count: usize) -> Vec<String> {
    let mut rng = Lcg(seed);
    let mut out = Vec::new();
    for k in 1..=count {
        let cut = char_boundary(text, text.len() * k / (count + 1));
        out.push(text[..cut].to_owned());
    }
    let junk = [
        "{",
        "}",
        "[",
        "]",
        ":",
        "- ",
        "$ref: '#/nowhere'",
        "\"",
        "&a",
        "*a",
        "\t",
        "\n  x: [",
        "~",
        "'",
        "!!binary",
        "%YAML 1.1",
    ];
    for _ in 0..count * 3 {
        let mut s = text.to_owned();
        match rng.below(4) {
            0 => {
                let at = char_boundary(&s, rng.below(s.len()));
                let j = junk[rng.below(junk.len())];
                s.insert_str(at, j);
            }
            1 => {
                let lines: Vec<&str> = s.lines().collect();
                let drop = rng.below(lines.len());
                s = lines
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != drop)
                    .map(|(_, l)| *l)
                    .collect::<Vec<_>>()
                    .join("\n");
            }
            2 => {
                let lines: Vec<&str> = s.lines().collect();
                let dup = rng.below(lines.len());
                let mut v: Vec<&str> = lines.clone();
                if let Some(l) = lines.get(dup) {
                    v.insert(dup, l);
                }
                s = v.join("\n");
            }
            _ => {
                let at = char_boundary(&s, rng.below(s.len()));
                let end = char_boundary(&s, at + 1 + rng.below(8));
                s.replace_range(at..end, "");
            }
        }
        out.push(s);
    }
    out
}

fn garbage() -> Vec<String> {
    let mut v: Vec<String> = [
        "", " ", "null", "42", "\"str\"", "[]", "{}", "{", "}", "---\n...", "\u{0}\u{1}\u{2}",
        "openapi: 3.0.0", "swagger: '2.0'", "openapi: 4.0.0\npaths: {}", "openapi: [1]",
        "openapi: 3.1.0\npaths:\n  /a:\n    $ref: '#/paths/~1a'",
        "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      parameters:\n        - $ref: '#/components/parameters/P'\ncomponents:\n  parameters:\n    P:\n      $ref: '#/components/parameters/P'",
        "openapi: 3.0.0\npaths:\n  /a: 5",
        "openapi: 3.0.0\npaths:\n  /a:\n    get: []",
        "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      operationId: x\n      requestBody: 3",
        "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      operationId: x\n      responses:\n        '200':\n          content:\n            application/json:\n              schema: 7",
        "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      operationId: x\n      parameters:\n        - $ref: 'http://example.com/p.yaml'",
        "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      operationId: x\n      parameters:\n        - $ref: 'missing-file.yaml#/P'",
        "a: &a [*a]",
        "a: &a\n  b: *a",
        "lol1: &l1 [x,x,x,x,x,x,x,x,x]\nlol2: &l2 [*l1,*l1,*l1,*l1,*l1,*l1,*l1,*l1]\nlol3: &l3 [*l2,*l2,*l2,*l2,*l2,*l2,*l2,*l2]\nlol4: &l4 [*l3,*l3,*l3,*l3,*l3,*l3,*l3,*l3]\nlol5: [*l4,*l4,*l4,*l4,*l4,*l4,*l4,*l4]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push("[".repeat(10_000));
    v.push("{\"a\":".repeat(10_000));
    v.push("a:\n".to_owned() + &" - ".repeat(5_000));
    let deep_schema = format!(
        "openapi: 3.0.0\ninfo: {{title: t, version: '1'}}\npaths:\n  /a:\n    get:\n      operationId: x\n      responses:\n        '200':\n          content:\n            application/json:\n              schema: {}{}\n",
        "{type: array, items: ".repeat(200),
        "}".repeat(200)
    );
    v.push(deep_schema);
    v
}

fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => panic!("panicked on {what}"),
    }
}

fn spec_inputs() -> Vec<(PathBuf, String, Option<String>)> {
    let root = root();
    let mut out = Vec::new();
    for folder in mcpgen_codegen::spec_folders(&root).expect("specs") {
        let spec = std::fs::read_to_string(&folder.spec).expect("read");
        let tools = std::fs::read_to_string(&folder.tools).expect("read");
        out.push((folder.spec, spec, Some(tools)));
    }
    out
}

#[test]
fn mutated_specs_give_errors_not_panics() {
    let mut outcomes = (0usize, 0usize);
    for (path, text, tools) in spec_inputs() {
        let allowlist = tools
            .as_deref()
            .and_then(|t| Allowlist::parse(Path::new("mcp_tools.yaml"), t).ok());
        for (i, variant) in mutations(&text, 7, 12).into_iter().enumerate() {
            let what = format!("{} variant {i}", path.display());
            let spec = no_panic(&what, || Spec::from_str(&path, &variant));
            match spec {
                Ok(spec) => {
                    outcomes.0 += 1;
                    if let Some(a) = &allowlist {
                        // Selection and emission must cope with whatever loaded.
                        let _ = no_panic(&what, || {
                            mcpgen_codegen::generate_from(
                                &spec,
                                a,
                                &mcpgen_codegen::Settings::new(),
                            )
                        });
                    }
                }
                Err(errors) => {
                    outcomes.1 += 1;
                    assert!(!errors.is_empty(), "{what}: Err with no errors");
                    for e in &errors {
                        assert!(!e.to_string().trim().is_empty(), "{what}: empty message");
                    }
                }
            }
        }
    }
    assert!(outcomes.1 > 0, "no mutation was rejected: {outcomes:?}");
}

#[test]
fn garbage_specs_give_errors_not_panics() {
    let path = root().join("specs/garbage/openapi.yaml");
    for (i, g) in garbage().into_iter().enumerate() {
        let what = format!("garbage {i}: {:?}", g.chars().take(40).collect::<String>());
        let result = no_panic(&what, || Spec::from_str(&path, &g));
        if let Ok(spec) = result {
            let a = Allowlist::parse(Path::new("t.yaml"), "mcp_tools:\n  - operation_id: x\n")
                .expect("allowlist");
            let _ = no_panic(&what, || {
                mcpgen_codegen::generate_from(&spec, &a, &mcpgen_codegen::Settings::new())
            });
        }
    }
}

#[test]
fn mutated_allowlists_give_errors_not_panics() {
    for (path, text, tools) in spec_inputs() {
        let Some(tools) = tools else { continue };
        let spec = Spec::from_str(&path, &text).expect("shipped spec loads");
        let mut variants = mutations(&tools, 11, 10);
        variants.extend(garbage());
        for (i, variant) in variants.into_iter().enumerate() {
            let what = format!("{} allowlist variant {i}", path.display());
            let parsed = no_panic(&what, || {
                Allowlist::parse(Path::new("mcp_tools.yaml"), &variant)
            });
            if let Ok(a) = parsed {
                let _ = no_panic(&what, || {
                    mcpgen_codegen::generate_from(&spec, &a, &mcpgen_codegen::Settings::new())
                });
            }
        }
    }
}
