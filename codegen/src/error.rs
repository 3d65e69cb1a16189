//! Errors and warnings. Every error says where (file, JSON pointer or line/column, operationId or
//! tool name) and why, and where it can, how to fix it.

use std::fmt;
use std::path::PathBuf;

/// A fatal problem with an input. A run collects all of them and reports them together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        message: String,
    },
    /// The text is not valid JSON or YAML.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 when unknown).
        line: usize,
        /// 1-based column (0 when unknown).
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// The document is well-formed but not a usable API description.
    #[error("{}: at `{pointer}`: {message}", path.display())]
    Spec {
        /// The file.
        path: PathBuf,
        /// JSON pointer of the offending node ("" for the root).
        pointer: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A `$ref` that cannot be followed.
    #[error("{}: at `{pointer}`: cannot resolve $ref `{reference}`: {reason}", path.display())]
    Ref {
        /// The file holding the reference.
        path: PathBuf,
        /// JSON pointer of the `$ref`.
        pointer: String,
        /// The reference as written.
        reference: String,
        /// Why it cannot be followed.
        reason: String,
    },
    /// A problem with an allowlist entry or the allowlist as a whole.
    #[error("{}: {location}: {message}", path.display())]
    Allowlist {
        /// The allowlist file.
        path: PathBuf,
        /// Where: `line 4, column 5`, `entry 3 (operation_id sendMessage)`, `server.name`.
        location: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// Anything else about a run (output folder, budget).
    #[error("{0}")]
    Other(String),
}

/// A non-fatal problem: generation goes on, and the warning is printed in the summary.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Warning {
    /// Where: a file and JSON pointer, or a tool name.
    pub location: String,
    /// What happened and what was done instead.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// Several errors, displayed one per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Errors(pub Vec<Error>);

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "error: {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Errors {}
