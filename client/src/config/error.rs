//! What can go wrong reading a configuration: [`ConfigError`], and the [`ConfigProblem`]s an
//! invalid one lists.

use std::fmt;
use std::path::PathBuf;

/// Why a configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read MCP server configuration {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not JSON.
    #[error("MCP server configuration {origin} is not valid JSON: {message}")]
    Json {
        /// File path, or `<string>`.
        origin: String,
        /// The parser's message (with line and column).
        message: String,
    },
    /// The JSON does not describe valid servers; every problem found is listed.
    #[error(
        "MCP server configuration {origin} is invalid:{}",
        ProblemList(problems)
    )]
    Invalid {
        /// File path, or `<string>`.
        origin: String,
        /// Each problem, naming the server and field.
        problems: Vec<ConfigProblem>,
    },
}

/// One problem in a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    /// The server's name (empty for the top level).
    pub server: String,
    /// The field, e.g. `url` or `env.API_KEY`.
    pub field: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.server.is_empty() {
            write!(f, "field `{}`: {}", self.field, self.message)
        } else {
            write!(
                f,
                "server `{}`, field `{}`: {}",
                self.server, self.field, self.message
            )
        }
    }
}

struct ProblemList<'a>(&'a [ConfigProblem]);

impl fmt::Display for ProblemList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in self.0 {
            write!(f, "\n  - {p}")?;
        }
        Ok(())
    }
}
