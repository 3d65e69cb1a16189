//! The flag reference of the book (`docs/src/reference/`), rendered from clap definitions:
//! `mcpgen reference` prints the page of the `mcpgen` command, and the generator's
//! `reference` test renders the page of a generated server from the runtime's flags with every
//! backend feature compiled in, and checks both pages against the files in the book.
//!
//! This file uses nothing but clap, so that test includes it as a module of its own.

use std::fmt::Write as _;

use clap::{Arg, Command};

/// Which cargo feature brings a flag: `(long name without "--", feature)`.
pub type FeatureMarks<'a> = &'a [(&'a str, &'a str)];

/// A Markdown page for `command` and its subcommands, with `title` as its heading and `intro`
/// as the paragraph under it. Hidden commands and flags are left out.
pub fn markdown(command: &Command, title: &str, intro: &str, features: FeatureMarks) -> String {
    let mut command = command.clone();
    command.build();
    let mut page = format!(
        "<!-- Generated from the clap definitions: do not edit. Regenerate with\n     \
         MCPGEN_UPDATE_REFERENCE=1 cargo test -p generator --test generator reference -->\n\n# {title}\n\n{intro}\n"
    );
    let name = command.get_name().to_owned();
    render_command(&mut page, &mut command, &name, 2, features);
    page
}

fn render_command(
    page: &mut String,
    command: &mut Command,
    path: &str,
    depth: usize,
    features: FeatureMarks,
) {
    let hashes = "#".repeat(depth);
    let _ = write!(page, "\n{hashes} `{path}`\n\n");
    if let Some(about) = command.get_long_about().or(command.get_about()) {
        let _ = write!(page, "{}\n\n", prose(about.to_string().trim()));
    }
    let usage = command.render_usage().to_string();
    let usage = usage.trim().trim_start_matches("Usage:").trim();
    let _ = write!(page, "```text\n{usage}\n```\n");
    let arguments: Vec<&Arg> = command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set() && !matches!(arg.get_id().as_str(), "help" | "version"))
        .collect();
    if !arguments.is_empty() {
        page.push('\n');
    }
    for arg in arguments {
        render_arg(page, arg, features);
    }
    let subcommands: Vec<String> = command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
        .map(|sub| sub.get_name().to_owned())
        .collect();
    for name in subcommands {
        if let Some(sub) = command.find_subcommand_mut(&name) {
            let sub_path = format!("{path} {name}");
            render_command(page, sub, &sub_path, depth + 1, features);
        }
    }
}

fn render_arg(page: &mut String, arg: &Arg, features: FeatureMarks) {
    let mut facts = vec![format!("`{}`", spelling(arg))];
    if let Some(env) = arg.get_env() {
        facts.push(format!("env `{}`", env.to_string_lossy()));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|value| value.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        facts.push(format!("default `{}`", defaults.join(",")));
    }
    if arg.is_required_set() {
        facts.push("required".to_owned());
    }
    let long = arg.get_long().unwrap_or_default();
    if let Some((_, feature)) = features.iter().find(|(flag, _)| *flag == long) {
        facts.push(format!("feature `{feature}`"));
    }
    let _ = writeln!(page, "- {}", facts.join(" · "));
    if let Some(help) = arg.get_long_help().or(arg.get_help()) {
        page.push('\n');
        for line in help.to_string().trim().lines() {
            match line.trim_end() {
                "" => page.push('\n'),
                line => {
                    let _ = writeln!(page, "  {}", prose(line));
                }
            }
        }
    }
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|value| !value.is_hide_set())
        .map(|value| match value.get_help() {
            Some(help) => format!(
                "`{}` ({})",
                value.get_name(),
                prose(help.to_string().trim())
            ),
            None => format!("`{}`", value.get_name()),
        })
        .collect();
    if !values.is_empty() && arg.get_action().takes_values() {
        let _ = writeln!(page, "\n  Values: {}.", values.join(", "));
    }
    page.push('\n');
}

/// Help text as Markdown prose: `<` and `>` outside code spans are escaped, so that a
/// placeholder such as `<name>` is not read as an HTML tag.
fn prose(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, part)| match i % 2 {
            0 => part.replace('<', "&lt;").replace('>', "&gt;"),
            _ => part.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// How the flag is written: `--name <VALUE>`, `-s, --name`, or `<NAME>` for a positional.
fn spelling(arg: &Arg) -> String {
    let value = || {
        let names: Vec<String> = arg
            .get_value_names()
            .map(|names| names.iter().map(|n| format!("<{n}>")).collect())
            .unwrap_or_else(|| vec![format!("<{}>", arg.get_id().as_str().to_uppercase())]);
        names.join(" ")
    };
    if arg.is_positional() {
        return value();
    }
    let mut spelling = String::new();
    if let Some(short) = arg.get_short() {
        spelling.push_str(&format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        if !spelling.is_empty() {
            spelling.push_str(", ");
        }
        spelling.push_str(&format!("--{long}"));
    }
    if arg.get_action().takes_values() {
        spelling.push(' ');
        spelling.push_str(&value());
    }
    spelling
}
