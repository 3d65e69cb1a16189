//! The rules ARCHITECTURE.md states about the code, checked against the code, so that they
//! cannot drift into prose nobody keeps:
//!
//! - inside a library crate, modules import a name from the module that defines it, never
//!   through a re-export of the crate's `lib.rs` (`reexports_are_not_imported_inside_a_crate`);
//! - every `file.rs` and `file.rs::name` ARCHITECTURE.md names exists and defines that name
//!   (`architecture_md_names_what_exists`);
//! - no two top-level modules (folders) of a library crate import each other, directly or
//!   around a circle (`top_level_modules_import_one_way`).
//!
//! Library crates are found from the workspace members (`generated/`, `examples/` and `tests/`
//! left out), so a crate added later is held to the same rules. Sources are read with a small
//! lexer: comments, strings and character literals never count as imports.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace root: the parent of this package's folder.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package sits inside the workspace")
        .to_path_buf()
}

/// Folders whose crates the rules leave out: generated code, examples and tests.
const NOT_LIBRARIES: [&str; 3] = ["generated", "examples", "tests"];

/// The folders (relative to the root) of the workspace's library crates: members with a
/// `src/lib.rs`, outside generated/, examples/ and tests/.
fn library_crates(root: &Path) -> Vec<PathBuf> {
    let manifest = fs::read_to_string(root.join("Cargo.toml")).expect("root Cargo.toml");
    let start = manifest
        .find("members")
        .and_then(|at| manifest[at..].find('[').map(|open| at + open + 1))
        .expect("the root Cargo.toml lists its members");
    let end = start + manifest[start..].find(']').expect("members end with `]`");
    let mut crates = BTreeSet::new();
    for member in manifest[start..end].split(',') {
        let member = member.trim().trim_matches('"');
        if member.is_empty()
            || NOT_LIBRARIES
                .iter()
                .any(|skip| member == *skip || member.starts_with(&format!("{skip}/")))
        {
            continue;
        }
        let mut folders = Vec::new();
        match member.strip_suffix("/*") {
            Some(parent) => {
                for entry in fs::read_dir(root.join(parent))
                    .into_iter()
                    .flatten()
                    .flatten()
                {
                    folders.push(Path::new(parent).join(entry.file_name()));
                }
            }
            None => folders.push(PathBuf::from(member)),
        }
        for folder in folders {
            if root.join(&folder).join("src/lib.rs").is_file() {
                crates.insert(folder);
            }
        }
    }
    crates.into_iter().collect()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if path.is_dir() {
                if name != "target" && name != ".git" && name != "node_modules" {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// One token of Rust source: an identifier, `::`, or one other character.
#[derive(Debug, Clone, PartialEq)]
struct Token {
    text: String,
    line: usize,
}

/// The tokens of `source`, without comments, string, byte-string and character literals, or
/// numbers. Lifetimes lose their `'`.
fn lex(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Skips a quoted literal whose opening quote is at `i`, with backslash escapes.
    let skip_quoted = |i: &mut usize, line: &mut usize, quote: char| {
        *i += 1;
        while *i < chars.len() && chars[*i] != quote {
            if chars[*i] == '\\' {
                *i += 1;
            }
            if chars.get(*i) == Some(&'\n') {
                *line += 1;
            }
            *i += 1;
        }
        *i += 1;
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            skip_quoted(&mut i, &mut line, '"');
        } else if c == '\'' {
            if next == Some('\\') || chars.get(i + 2) == Some(&'\'') {
                skip_quoted(&mut i, &mut line, '\'');
            } else {
                i += 1;
            }
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let quote = chars.get(i).copied();
            let raw = matches!(word.as_str(), "r" | "br" | "cr");
            if raw && matches!(quote, Some('"') | Some('#')) {
                let mut hashes = 0;
                while chars.get(i) == Some(&'#') {
                    hashes += 1;
                    i += 1;
                }
                if chars.get(i) != Some(&'"') {
                    // A raw identifier (`r#type`): the hashes were its prefix.
                    continue;
                }
                i += 1;
                loop {
                    match chars.get(i) {
                        None => break,
                        Some('"') if (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) => {
                            i += 1 + hashes;
                            break;
                        }
                        Some(ch) => {
                            if *ch == '\n' {
                                line += 1;
                            }
                            i += 1;
                        }
                    }
                }
            } else if matches!(word.as_str(), "b" | "c") && quote == Some('"') {
                skip_quoted(&mut i, &mut line, '"');
            } else if word == "b" && quote == Some('\'') {
                skip_quoted(&mut i, &mut line, '\'');
            } else {
                tokens.push(Token { text: word, line });
            }
        } else if c == ':' && next == Some(':') {
            tokens.push(Token {
                text: "::".to_owned(),
                line,
            });
            i += 2;
        } else {
            tokens.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    tokens
}

/// One path written in a source file, as written (`crate::a::B`, `super::c`), with the
/// module it was written in (the file's module and any inline `mod` around it).
#[derive(Debug, Clone)]
struct PathRef {
    segments: Vec<String>,
    /// The name it is imported as (`use a::B as C`), if any.
    alias: Option<String>,
    line: usize,
    /// Whether it is a `use` item's tree.
    in_use: bool,
    /// The inline modules around it, inside the file's own module.
    inline: Vec<String>,
}

/// Reads a path or a use tree starting at `tokens[*i]`, with `prefix` already read, into
/// `out`; leaves `*i` after it.
fn read_tree(tokens: &[Token], i: &mut usize, prefix: &[String], out: &mut Vec<PathRef>) {
    let mut segments = prefix.to_vec();
    let mut line = tokens.get(*i).map_or(0, |t| t.line);
    while let Some(token) = tokens.get(*i) {
        let text = token.text.as_str();
        if text == "{" {
            *i += 1;
            while let Some(token) = tokens.get(*i) {
                match token.text.as_str() {
                    "}" => {
                        *i += 1;
                        break;
                    }
                    "," => *i += 1,
                    _ => {
                        let before = *i;
                        read_tree(tokens, i, &segments, out);
                        if *i == before {
                            *i += 1;
                        }
                    }
                }
            }
            return;
        }
        if text == "*" {
            segments.push("*".to_owned());
            line = token.line;
            *i += 1;
            break;
        }
        if !is_ident(text) {
            break;
        }
        segments.push(text.to_owned());
        line = token.line;
        *i += 1;
        if tokens.get(*i).is_some_and(|t| t.text == "::") {
            *i += 1;
        } else {
            break;
        }
    }
    let mut alias = None;
    if tokens.get(*i).is_some_and(|t| t.text == "as") {
        alias = tokens.get(*i + 1).map(|t| t.text.clone());
        *i += 2;
    }
    if segments.len() > prefix.len() || alias.is_some() {
        out.push(PathRef {
            segments,
            alias,
            line,
            in_use: false,
            inline: Vec::new(),
        });
    }
}

fn is_ident(text: &str) -> bool {
    text.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// What one source file says about modules: the paths it writes that start at `crate`,
/// `super` or `self`, the `use` trees at its top level, and the `mod`s it declares there.
#[derive(Debug, Default)]
struct Source {
    paths: Vec<PathRef>,
    /// Top-level `pub use` trees (`pub`, `pub(crate)`, ...), by leaf.
    pub_uses: Vec<PathRef>,
    /// Top-level `mod` declarations.
    mods: BTreeSet<String>,
}

fn scan(tokens: &[Token]) -> Source {
    let mut source = Source::default();
    let mut depth = 0usize;
    // Inline modules open around the current token: (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let text = tokens[i].text.as_str();
        let previous = i.checked_sub(1).map(|p| tokens[p].text.as_str());
        match text {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "mod" if tokens.get(i + 1).is_some_and(|t| is_ident(&t.text)) => {
                let name = tokens[i + 1].text.clone();
                match tokens.get(i + 2).map(|t| t.text.as_str()) {
                    Some("{") => inline.push((name, depth + 1)),
                    Some(";") if depth == 0 => {
                        source.mods.insert(name);
                    }
                    _ => {}
                }
            }
            "use" => {
                let public = previous == Some("pub")
                    || (previous == Some(")") && i >= 3 && tokens[i - 3].text == "pub")
                    || (previous == Some(")") && i >= 4 && tokens[i - 4].text == "pub");
                let mut trees = Vec::new();
                i += 1;
                if tokens.get(i).is_some_and(|t| t.text == "::") {
                    i += 1;
                }
                read_tree(tokens, &mut i, &[], &mut trees);
                let names: Vec<String> = inline.iter().map(|(n, _)| n.clone()).collect();
                for mut tree in trees {
                    tree.in_use = true;
                    tree.inline = names.clone();
                    if public && depth == 0 {
                        source.pub_uses.push(tree.clone());
                    }
                    if matches!(tree.segments[0].as_str(), "crate" | "super" | "self") {
                        source.paths.push(tree);
                    }
                }
                continue;
            }
            "crate" | "super" | "self"
                if tokens.get(i + 1).is_some_and(|t| t.text == "::")
                    && previous != Some("::")
                    && previous != Some("$")
                    && previous != Some("in") =>
            {
                let mut trees = Vec::new();
                read_tree(tokens, &mut i, &[], &mut trees);
                let names: Vec<String> = inline.iter().map(|(n, _)| n.clone()).collect();
                for mut tree in trees {
                    tree.inline = names.clone();
                    source.paths.push(tree);
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    source
}

/// The module path of a source file of a crate (`src/server/call/handler.rs` →
/// `server::call::handler`; `lib.rs` → the root), or `None` for what is not a module of the
/// library (`src/bin/`, `main.rs`).
fn module_of(src: &Path, file: &Path) -> Option<Vec<String>> {
    let relative = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    if parts.first().is_some_and(|p| p == "bin") || (parts.is_empty() && last == "main.rs") {
        return None;
    }
    let stem = last.strip_suffix(".rs")?;
    if !(stem == "mod" || (parts.is_empty() && stem == "lib")) {
        parts.push(stem.to_owned());
    }
    Some(parts)
}

/// `path` written in `module` as a path from the crate root, if it starts at `crate`,
/// `super` or `self` (and does not climb above the root).
fn absolute(path: &[String], module: &[String]) -> Option<Vec<String>> {
    let mut base = module.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {}
        _ => return None,
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().filter(|s| *s != "self").cloned());
    Some(base)
}

/// One library crate, read.
struct Crate {
    /// Its folder, relative to the workspace root.
    folder: PathBuf,
    /// The modules `lib.rs` declares.
    mods: BTreeSet<String>,
    /// What `lib.rs` re-exports (and is no module of its own): name → the paths it comes from.
    reexports: BTreeMap<String, Vec<String>>,
    /// Each module file (not `lib.rs`) with its module path and what it says.
    files: Vec<(PathBuf, Vec<String>, Source)>,
}

fn read_crate(root: &Path, folder: &Path) -> Crate {
    let src = root.join(folder).join("src");
    let lib = scan(&lex(
        &fs::read_to_string(src.join("lib.rs")).expect("lib.rs")
    ));
    let mut reexports: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for tree in &lib.pub_uses {
        let mut segments = tree.segments.clone();
        if segments.last().is_some_and(|s| s == "*") {
            continue;
        }
        if segments.last().is_some_and(|s| s == "self") {
            segments.pop();
        }
        let Some(name) = tree.alias.clone().or_else(|| segments.last().cloned()) else {
            continue;
        };
        if lib.mods.contains(&name) || name == "_" {
            continue;
        }
        if segments[0] == "self" {
            segments[0] = "crate".to_owned();
        } else if lib.mods.contains(&segments[0]) {
            segments.insert(0, "crate".to_owned());
        }
        let from = segments.join("::");
        let entry = reexports.entry(name).or_default();
        if !entry.contains(&from) {
            entry.push(from);
        }
    }
    let mut files = Vec::new();
    for file in rust_files(&src) {
        let Some(module) = module_of(&src, &file) else {
            continue;
        };
        if module.is_empty() {
            continue;
        }
        let text = fs::read_to_string(&file).expect("source file");
        let relative = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
        files.push((relative, module, scan(&lex(&text))));
    }
    Crate {
        folder: folder.to_path_buf(),
        mods: lib.mods,
        reexports,
        files,
    }
}

fn crates() -> Vec<Crate> {
    let root = workspace_root();
    let folders = library_crates(&root);
    assert!(
        folders.iter().any(|f| f == Path::new("runtime")),
        "no library crate found in the root Cargo.toml's members (found {folders:?}); \
         library_crates() must read the members list"
    );
    folders.iter().map(|f| read_crate(&root, f)).collect()
}

#[test]
fn reexports_are_not_imported_inside_a_crate() {
    let mut problems = Vec::new();
    for krate in crates() {
        for (file, module, source) in &krate.files {
            for path in &source.paths {
                let mut module = module.clone();
                module.extend(path.inline.iter().cloned());
                let Some(absolute) = absolute(&path.segments, &module) else {
                    continue;
                };
                let Some(first) = absolute.first() else {
                    continue;
                };
                if krate.mods.contains(first) {
                    continue;
                }
                let Some(sources) = krate.reexports.get(first) else {
                    continue;
                };
                let rest: String = absolute[1..].iter().map(|s| format!("::{s}")).collect();
                let instead: Vec<String> = sources.iter().map(|s| format!("`{s}{rest}`")).collect();
                problems.push(format!(
                    "{}:{}: `{}` names `{first}` through {}/src/lib.rs's re-export; import it \
                     from where it is defined: {}",
                    file.display(),
                    path.line,
                    path.segments.join("::"),
                    krate.folder.display(),
                    instead.join(" or ")
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "modules import names from the module that defines them, never through lib.rs \
         (ARCHITECTURE.md); change these imports:\n{}",
        problems.join("\n")
    );
}

/// Import edges between the top-level modules of a crate: (from, to) → where.
fn module_edges(krate: &Crate) -> BTreeMap<(String, String), Vec<String>> {
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for (file, module, source) in &krate.files {
        for path in &source.paths {
            let mut inside = module.clone();
            inside.extend(path.inline.iter().cloned());
            let Some(absolute) = absolute(&path.segments, &inside) else {
                continue;
            };
            let Some(first) = absolute.first() else {
                continue;
            };
            // A name re-exported from one of the crate's modules belongs to that module.
            let target = if krate.mods.contains(first) {
                first.clone()
            } else {
                match krate.reexports.get(first).and_then(|from| {
                    from.iter().find_map(|f| {
                        let head = f.strip_prefix("crate::")?.split("::").next()?;
                        krate.mods.contains(head).then(|| head.to_owned())
                    })
                }) {
                    Some(head) => head,
                    None => continue,
                }
            };
            if target != module[0] {
                let at = edges.entry((module[0].clone(), target)).or_default();
                let place = format!("{}:{}", file.display(), path.line);
                if !at.contains(&place) {
                    at.push(place);
                }
            }
        }
    }
    edges
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn circles(nodes: &BTreeSet<String>, edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeSet<(String, String)>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        on_stack: BTreeSet<String>,
        found: Vec<Vec<String>>,
    }
    fn visit(s: &mut State<'_>, node: &str) {
        let n = s.index.len();
        s.index.insert(node.to_owned(), n);
        s.low.insert(node.to_owned(), n);
        s.stack.push(node.to_owned());
        s.on_stack.insert(node.to_owned());
        let targets: Vec<String> = s
            .edges
            .iter()
            .filter(|(a, _)| a == node)
            .map(|(_, b)| b.clone())
            .collect();
        for target in targets {
            if !s.index.contains_key(&target) {
                visit(s, &target);
                let low = s.low[node].min(s.low[&target]);
                s.low.insert(node.to_owned(), low);
            } else if s.on_stack.contains(&target) {
                let low = s.low[node].min(s.index[&target]);
                s.low.insert(node.to_owned(), low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut component = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(&top);
                let done = top == node;
                component.push(top);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in nodes {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state.found
}

/// A shortest circle through `start` inside `component`, as the modules along it.
fn circle_through(
    start: &str,
    component: &[String],
    edges: &BTreeSet<(String, String)>,
) -> Vec<String> {
    let mut previous: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.to_owned()]);
    while let Some(node) = queue.pop_front() {
        for (_, next) in edges
            .iter()
            .filter(|(a, b)| *a == node && component.contains(b))
        {
            if next == start {
                let mut path = vec![node.clone()];
                while let Some(p) = previous.get(path.last().expect("non-empty")) {
                    path.push(p.clone());
                }
                path.reverse();
                path.push(start.to_owned());
                return path;
            }
            if !previous.contains_key(next) {
                previous.insert(next.clone(), node.clone());
                queue.push_back(next.clone());
            }
        }
    }
    vec![start.to_owned()]
}

#[test]
fn top_level_modules_import_one_way() {
    let mut problems = Vec::new();
    for krate in crates() {
        let edges = module_edges(&krate);
        let pairs: BTreeSet<(String, String)> = edges.keys().cloned().collect();
        let nodes: BTreeSet<String> = pairs
            .iter()
            .flat_map(|(a, b)| [a.clone(), b.clone()])
            .collect();
        for component in circles(&nodes, &pairs) {
            let mut reported = BTreeSet::new();
            for start in &component {
                let circle = circle_through(start, &component, &pairs);
                let mut key: Vec<String> = circle[1..].to_vec();
                key.sort();
                if !reported.insert(key) {
                    continue;
                }
                let mut text = format!("{}/src: {}", krate.folder.display(), circle.join(" → "));
                for step in circle.windows(2) {
                    let at = &edges[&(step[0].clone(), step[1].clone())];
                    let shown: Vec<&str> = at.iter().take(4).map(String::as_str).collect();
                    let more = at.len().saturating_sub(shown.len());
                    text.push_str(&format!(
                        "\n    {} → {} ({} import{}): {}{}",
                        step[0],
                        step[1],
                        at.len(),
                        if at.len() == 1 { "" } else { "s" },
                        shown.join(", "),
                        if more > 0 {
                            format!(", and {more} more")
                        } else {
                            String::new()
                        }
                    ));
                }
                problems.push(text);
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the top-level modules of a crate import one way (ARCHITECTURE.md); break each circle \
         by moving what one side needs into a module both may use, or by passing it in (a \
         trait object or a closure):\n{}",
        problems.join("\n")
    );
}

/// A code reference of ARCHITECTURE.md: `file.rs`, `dir/file.rs::Name::method`,
/// `dir/module::name`.
struct Reference {
    line: usize,
    text: String,
    /// Paths the file may have (relative), tried in order.
    files: Vec<String>,
    names: Vec<String>,
}

fn references(markdown: &str) -> Vec<(Reference, Vec<String>)> {
    let root = workspace_root();
    let mut out = Vec::new();
    let mut section: Option<String> = None;
    let mut bullet: Option<String> = None;
    let mut fenced = false;
    for (index, line) in markdown.lines().enumerate() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if let Some(heading) = line.strip_prefix('#') {
            bullet = None;
            section = heading
                .trim_start_matches('#')
                .trim()
                .strip_prefix('`')
                .and_then(|h| h.split('`').next())
                .filter(|h| h.ends_with('/'))
                .map(|h| h.trim_end_matches('/').to_owned());
            continue;
        }
        if line.starts_with("- ") || line.is_empty() {
            bullet = line
                .strip_prefix("- `")
                .and_then(|b| b.split('`').next())
                .filter(|b| b.ends_with('/'))
                .map(|b| b.trim_end_matches('/').to_owned());
        }
        // Folders a bare path may be relative to, nearest first.
        let mut bases = Vec::new();
        if let Some(section) = &section {
            let crate_src = format!("{section}/src");
            let section_base = if root.join(&crate_src).is_dir() {
                crate_src
            } else {
                section.clone()
            };
            if let Some(bullet) = &bullet {
                bases.push(format!("{section_base}/{bullet}"));
            }
            bases.push(section_base);
        }
        for (k, span) in line.split('`').enumerate() {
            if k % 2 == 0 {
                continue;
            }
            if let Some(reference) = reference(span, index + 1) {
                out.push((reference, bases.clone()));
            }
        }
    }
    out
}

fn reference(span: &str, line: usize) -> Option<Reference> {
    if span.contains(|c: char| c.is_whitespace() || "<>*{}()\"'".contains(c)) {
        return None;
    }
    let (files, rest) = if let Some(at) = span.find(".rs").filter(|at| *at > 0) {
        let file = &span[..at + 3];
        let rest = &span[at + 3..];
        if !(rest.is_empty() || rest.starts_with("::")) {
            return None;
        }
        (vec![file.to_owned()], rest.trim_start_matches("::"))
    } else if span.contains('/') && span.contains("::") {
        let at = span.find("::")?;
        let module = &span[..at];
        (
            vec![format!("{module}.rs"), format!("{module}/mod.rs")],
            &span[at + 2..],
        )
    } else {
        return None;
    };
    let names = rest
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    Some(Reference {
        line,
        text: span.to_owned(),
        files,
        names,
    })
}

/// Names a file defines (items, `macro_rules!`) and the types it has `impl` blocks for.
fn definitions(tokens: &[Token]) -> (BTreeSet<String>, BTreeSet<String>) {
    const ITEMS: [&str; 10] = [
        "fn",
        "struct",
        "enum",
        "trait",
        "type",
        "const",
        "static",
        "mod",
        "union",
        "macro_rules",
    ];
    let mut defined = BTreeSet::new();
    let mut implemented = BTreeSet::new();
    for (i, token) in tokens.iter().enumerate() {
        if ITEMS.contains(&token.text.as_str()) {
            let mut at = i + 1;
            if tokens.get(at).is_some_and(|t| t.text == "!") {
                at += 1;
            }
            if let Some(name) = tokens.get(at).filter(|t| is_ident(&t.text)) {
                defined.insert(name.text.clone());
            }
        }
        if token.text == "impl" {
            for next in &tokens[i + 1..] {
                if next.text == "{" || next.text == ";" {
                    break;
                }
                if is_ident(&next.text) {
                    implemented.insert(next.text.clone());
                }
            }
        }
    }
    (defined, implemented)
}

#[test]
fn architecture_md_names_what_exists() {
    let root = workspace_root();
    let markdown = fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let all: Vec<String> = rust_files(&root)
        .iter()
        .filter_map(|f| f.strip_prefix(&root).ok())
        .map(|f| f.to_string_lossy().into_owned())
        .collect();
    let mut problems = Vec::new();
    let found = references(&markdown);
    assert!(
        found.len() > 50,
        "ARCHITECTURE.md names only {} files; references() must find its `file.rs::name` spans",
        found.len()
    );
    for (reference, bases) in found {
        // The file relative to the section's folder (nearest first), then to the root; else
        // any workspace file whose path ends with it.
        let mut candidates: Vec<String> = bases
            .iter()
            .map(String::as_str)
            .chain([""])
            .flat_map(|base| {
                reference.files.iter().map(move |f| {
                    if base.is_empty() {
                        f.clone()
                    } else {
                        format!("{base}/{f}")
                    }
                })
            })
            .filter(|path| all.contains(path))
            .take(1)
            .collect();
        if candidates.is_empty() {
            candidates = all
                .iter()
                .filter(|path| {
                    reference
                        .files
                        .iter()
                        .any(|f| path.ends_with(&format!("/{f}")))
                })
                .cloned()
                .collect();
        }
        if candidates.is_empty() {
            problems.push(format!(
                "ARCHITECTURE.md:{}: `{}`: no file {} in the workspace; name the file where it \
                 lives now, or drop the reference",
                reference.line,
                reference.text,
                reference.files.join(" or ")
            ));
            continue;
        }
        let Some(last) = reference.names.last() else {
            continue;
        };
        let types = &reference.names[..reference.names.len() - 1];
        let defines = candidates.iter().any(|candidate| {
            let text = fs::read_to_string(root.join(candidate)).unwrap_or_default();
            let (defined, implemented) = definitions(&lex(&text));
            defined.contains(last)
                && types
                    .iter()
                    .all(|t| defined.contains(t) || implemented.contains(t))
        });
        if !defines {
            problems.push(format!(
                "ARCHITECTURE.md:{}: `{}`: {} defines no `{}`; name the file that defines it, \
                 or the name it has now",
                reference.line,
                reference.text,
                candidates.join(" or "),
                reference.names.join("::")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md names files and items that must exist; fix these references:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_lexer_skips_comments_and_strings_and_resolves_super() {
    let source = "// use crate::A;\n/* crate::B /* nested */ crate::C */\nlet s = \"crate::D\";\n\
                  let r = r#\"crate::E\"#; let c = '\"'; let l: &'static str = x;\n\
                  use super::{f::G, h as H};\nmod tests { use super::super::I; }\n\
                  fn f() { crate::j::k(); }\n";
    let source = scan(&lex(source));
    let module = vec!["m".to_owned(), "n".to_owned()];
    let found: Vec<(Vec<String>, usize)> = source
        .paths
        .iter()
        .map(|p| {
            let mut inside = module.clone();
            inside.extend(p.inline.iter().cloned());
            (
                absolute(&p.segments, &inside).expect("inside the crate"),
                p.line,
            )
        })
        .collect();
    let expected: Vec<(Vec<String>, usize)> = [
        (vec!["m", "f", "G"], 5),
        (vec!["m", "h"], 5),
        (vec!["m", "I"], 6),
        (vec!["j", "k"], 7),
    ]
    .into_iter()
    .map(|(p, l)| (p.into_iter().map(str::to_owned).collect(), l))
    .collect();
    assert_eq!(found, expected);
}
