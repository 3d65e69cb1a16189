//! The book (`docs/src`) and the README have no broken link: every relative link names a file
//! that exists, every `#anchor` a heading of its page (with the ids mdBook gives headings),
//! and every `{{#include file:anchor}}` a file holding that anchor. Links to other sites are not
//! followed (tests stay on loopback). `scripts/test.sh` also builds the book with `mdbook`.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use mcpgen_tests::repo_root;

/// Every Markdown file of the book, and the README.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut pages = vec![repo_root().join("README.md")];
    walk(&repo_root().join("docs/src"), &mut pages);
    pages.sort();
    pages
}

/// The text of a page outside fenced code blocks, one entry per line with its number.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            lines.push((number + 1, line));
        }
    }
    lines
}

/// The id mdBook gives a heading: its text, lowercased, spaces as `-`, other punctuation
/// dropped; a repeated id gets `-1`, `-2`, … .
fn heading_ids(text: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for (_, line) in prose(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let plain = strip_links(heading.trim());
        let id: String = plain
            .chars()
            .filter_map(|c| {
                if c.is_alphanumeric() || c == '_' || c == '-' {
                    Some(c.to_ascii_lowercase())
                } else if c.is_whitespace() {
                    Some('-')
                } else {
                    None
                }
            })
            .collect();
        let mut unique = id.clone();
        let mut n = 1;
        while ids.contains(&unique) {
            unique = format!("{id}-{n}");
            n += 1;
        }
        ids.insert(unique);
    }
    ids
}

/// `[text](target)` → `text`, as a heading's text reads.
fn strip_links(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("](") {
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        out.push_str(&rest[..open].replace('[', ""));
        rest = &rest[open + close + 1..];
    }
    out.push_str(&rest.replace(['[', ']'], ""));
    out
}

/// The targets of inline links `[text](target)` and images on a line.
fn link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else {
            break;
        };
        let target = after[..end].split_whitespace().next().unwrap_or_default();
        targets.push(target.to_owned());
        rest = &after[end..];
    }
    targets
}

/// `a/b/../c` → `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_relative_link_and_anchor_of_the_book_resolves() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("a page");
        let dir = page.parent().expect("a folder");
        let shown = page.strip_prefix(repo_root()).unwrap_or(&page).display();
        for (number, line) in prose(&text) {
            for target in link_targets(line) {
                if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
                    continue;
                }
                let (file, anchor) = match target.split_once('#') {
                    Some((file, anchor)) => (file, Some(anchor)),
                    None => (target.as_str(), None),
                };
                let file = if file.is_empty() {
                    page.clone()
                } else {
                    normalize(&dir.join(file))
                };
                if !file.exists() {
                    broken.push(format!("{shown}:{number}: `{target}`: no such file"));
                    continue;
                }
                if let Some(anchor) = anchor {
                    let target_text = std::fs::read_to_string(&file).unwrap_or_default();
                    if !heading_ids(&target_text).contains(anchor) {
                        broken.push(format!(
                            "{shown}:{number}: `{target}`: no heading with the id `{anchor}`"
                        ));
                    }
                }
            }
        }
        for (number, line) in text.lines().enumerate() {
            let Some(start) = line.find("{{#include ") else {
                continue;
            };
            let Some(end) = line[start..].find("}}") else {
                continue;
            };
            let spec = line[start + "{{#include ".len()..start + end].trim();
            let (file, anchor) = match spec.split_once(':') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (spec, None),
            };
            let file = normalize(&dir.join(file));
            let Ok(included) = std::fs::read_to_string(&file) else {
                broken.push(format!(
                    "{shown}:{}: includes `{spec}`: no such file",
                    number + 1
                ));
                continue;
            };
            if let Some(anchor) = anchor.filter(|a| !a.chars().all(|c| c.is_ascii_digit()))
                && !included.contains(&format!("ANCHOR: {anchor}"))
            {
                broken.push(format!(
                    "{shown}:{}: includes `{spec}`: no `ANCHOR: {anchor}` in the file",
                    number + 1
                ));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_page_of_the_book_is_in_its_summary() {
    let src = normalize(&repo_root().join("docs/src"));
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("SUMMARY.md");
    let listed: BTreeSet<PathBuf> = summary
        .lines()
        .flat_map(link_targets)
        .map(|target| normalize(&src.join(target)))
        .collect();
    let missing: Vec<String> = pages()
        .iter()
        .map(|page| normalize(page))
        .filter(|page| page.starts_with(&src) && !page.ends_with("SUMMARY.md"))
        .filter(|page| !listed.contains(page))
        .map(|page| page.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "pages not in docs/src/SUMMARY.md:\n{}",
        missing.join("\n")
    );
}
