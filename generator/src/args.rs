//! The command line: clap's structs for every command and its flags.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use mcpgen_codegen::select::OperationFilter;

use crate::fetch::FetchArgs;
use crate::{bundle, client_cmd, diff_cmd, sizes};

/// Turn an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1) plus a reviewed allowlist
/// (`mcp_tools.yaml`) into a typed MCP tool crate.
///
/// With no command, runs `generate` on every `specs/<name>/` folder.
#[derive(Parser)]
#[command(name = "mcpgen", version, about, long_about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Generate crates: every `specs/<name>/` into `generated/<name>/`, or one spec with --spec.
    Generate(GenerateArgs),
    /// Print an allowlist for a spec that `generate` accepts as is.
    Init(InitArgs),
    /// List the operations of a spec: operationId, method, path, default tool name, access.
    List(ListArgs),
    /// Validate a spec and an allowlist without writing anything.
    Check(CheckArgs),
    /// Signed, expiring access tokens for generated servers.
    #[command(subcommand)]
    Token(TokenCommand),
    /// List the tools of the configured MCP servers (`mcpServers` JSON) and report servers
    /// that failed; exits 1 if any selected server failed.
    Tools(client_cmd::ToolsArgs),
    /// Call one tool of a configured MCP server and print its result; exits 1 when the
    /// server cannot be reached or the result has `isError`.
    Call(client_cmd::CallArgs),
    /// Write a Markdown table of each spec's `tools/list` size (bytes, approximate tokens,
    /// largest tool) for every `output_schema` mode and client profile, generated in memory.
    Sizes(sizes::SizesArgs),
    /// What changed between two tool surfaces (tools.json files, generated crates or spec
    /// folders): tools added and removed, breaking and compatible input changes, output
    /// schema changes, access, annotation, scope and confirmation changes (read → write is a
    /// security change). Markdown, or JSON with --json; the exit code follows --fail-on.
    Diff(diff_cmd::DiffArgs),
    /// Pack a generated crate as an MCP Bundle (`<name>.mcpb`) for desktop hosts: its
    /// `mcpb/manifest.json` and its server binary, built with `cargo build --release` (or taken
    /// as built with --binary). The bundle runs the server over stdio with `--no-auth` and
    /// passes what the person configures on installing it (the API URL, the API's credentials)
    /// as `MCPGEN_*` variables.
    Bundle(bundle::BundleArgs),
}

#[derive(Subcommand)]
pub(crate) enum TokenCommand {
    /// Print a new token (HMAC-SHA256, scoped to an audience, expiring).
    Issue(TokenIssueArgs),
}

#[derive(Args)]
pub(crate) struct TokenIssueArgs {
    /// Name of the environment variable holding the signing secret (at least 32 bytes); the
    /// server verifies with the same variable (`--token-secret-env`).
    #[arg(long)]
    pub(crate) secret_env: String,
    /// Subject: the principal id the token stands for.
    #[arg(long)]
    pub(crate) sub: String,
    /// Scope granted (repeatable): mcp:*, mcp:read, mcp:write, mcp:tool:<name>, or a tool's own scope.
    #[arg(long = "scope", required = true)]
    pub(crate) scopes: Vec<String>,
    /// Audience: the server the token is for (it must match the server's `--token-audience`).
    #[arg(long)]
    pub(crate) audience: String,
    /// Lifetime in seconds.
    #[arg(long, default_value_t = 3600)]
    pub(crate) max_age: u64,
}

#[derive(Args, Default)]
pub(crate) struct GenerateArgs {
    /// Spec file (JSON or YAML), or an `http(s)://` URL to download it from. Without it, every
    /// `specs/<name>/` folder is generated.
    #[arg(long, requires_all = ["tools", "out"])]
    pub(crate) spec: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) fetch: FetchArgs,
    /// Allowlist file (`mcp_tools.yaml`) for --spec.
    #[arg(long, requires = "spec")]
    pub(crate) tools: Option<PathBuf>,
    /// Output folder for --spec; the crate there builds with `cargo build`.
    #[arg(long, requires = "spec")]
    pub(crate) out: Option<PathBuf>,
    /// Server name (crate `<name>-mcp`) for --spec, overriding the allowlist's `server.name`.
    #[arg(long, requires = "spec")]
    pub(crate) name: Option<String>,
    /// Path to the `mcpgen/` folder of this repository (the crate generated servers depend on),
    /// for generated crates outside it (written into the generated Cargo.toml). Without it,
    /// --spec output depends on the registry's `mcpgen`. `--runtime-path` is an older name.
    #[arg(long, value_name = "DIR", requires = "spec", alias = "runtime-path")]
    pub(crate) mcpgen_path: Option<PathBuf>,
    /// Folder of templates for --spec that replace the built-in ones by file name
    /// (`Cargo.toml.jinja`, `README.md.jinja`; minijinja syntax, strict about undefined values).
    #[arg(long, value_name = "DIR", requires = "spec")]
    pub(crate) templates: Option<PathBuf>,
    /// Folder of plugins for --spec: each `DIR/<plugin>/manifest.json` adds the tools of its
    /// `mcp_tools` section, visible only to principals with the plugin.
    #[arg(long, value_name = "DIR", requires = "spec")]
    pub(crate) plugins: Option<PathBuf>,
    /// Client profile for --spec, overriding the allowlist's `server.profile`: `default`
    /// (JSON Schema 2020-12 with `$defs`), `inline` (no `$ref`/`$defs`; recursion cut after one
    /// level), `draft-07` (the draft-07 dialect) or `cursor` (`inline` and tool names of at
    /// most 60 characters).
    #[arg(long, value_name = "P", requires = "spec")]
    pub(crate) profile: Option<mcpgen_codegen::profile::Profile>,
    /// Do not write: exit 1 and name the files that differ from a fresh generation; when a
    /// `tools.json` would change, print what changed in its tools (as `mcpgen diff` does).
    #[arg(long)]
    pub(crate) check: bool,
    /// Repository root holding `specs/` and `generated/` (default: the nearest folder
    /// upwards from the current one that has `specs/`).
    #[arg(long, conflicts_with = "spec")]
    pub(crate) root: Option<PathBuf>,
    /// Print every warning, not only the count per spec.
    #[arg(long, short)]
    pub(crate) verbose: bool,
    /// After each spec's summary line, print its N heaviest tools with their approximate
    /// tokens in `tools/list` (on stderr; default 5, 0 prints none).
    #[arg(long, value_name = "N")]
    pub(crate) top: Option<usize>,
}

#[derive(Args)]
pub(crate) struct InitArgs {
    /// Spec file (JSON or YAML), or an `http(s)://` URL to download it from.
    #[arg(long)]
    pub(crate) spec: PathBuf,
    #[command(flatten)]
    pub(crate) fetch: FetchArgs,
    /// Select every operation the filters keep (the default). Operations whose path or tag
    /// says admin, internal or debug are selected too, with a warning naming them; leave
    /// them out with the `--exclude-*` flags.
    #[arg(long, conflicts_with = "read_only")]
    pub(crate) all: bool,
    #[command(flatten)]
    pub(crate) filter: Filter,
    /// Server name to write into the `server:` block (default: from the spec's folder).
    #[arg(long)]
    pub(crate) name: Option<String>,
}

/// Which operations `init` and `list` take. Different flags must all match; repeating one
/// flag means any of its values. An operation an `--exclude-*` flag names is left out
/// whatever the other flags say.
#[derive(Args, Default)]
pub(crate) struct Filter {
    /// Only operations that read (GET, HEAD, OPTIONS, TRACE).
    #[arg(long)]
    pub(crate) read_only: bool,
    /// Only operations carrying this OpenAPI tag (repeatable: any of them).
    #[arg(long = "tag", value_name = "T")]
    pub(crate) tags: Vec<String>,
    /// Only operations whose path starts with this prefix, e.g. `/api/v1/chats` (repeatable:
    /// any of them).
    #[arg(long = "path-prefix", value_name = "P")]
    pub(crate) path_prefixes: Vec<String>,
    /// Only operations with this HTTP method, case-insensitive (repeatable: any of them).
    #[arg(long = "method", value_name = "M")]
    pub(crate) methods: Vec<String>,
    /// Leave out operations carrying this OpenAPI tag, e.g. `Admin` (repeatable).
    #[arg(long = "exclude-tag", value_name = "T")]
    pub(crate) exclude_tags: Vec<String>,
    /// Leave out operations whose path starts with this prefix, e.g. `/api/v1/admin`
    /// (repeatable).
    #[arg(long = "exclude-path-prefix", value_name = "P")]
    pub(crate) exclude_path_prefixes: Vec<String>,
    /// Leave out this operation, named by operationId or `"METHOD /path"` (repeatable).
    #[arg(long = "exclude-operation", value_name = "OP")]
    pub(crate) exclude_operations: Vec<String>,
}

#[derive(Args)]
pub(crate) struct ListArgs {
    /// Spec file (JSON or YAML), or an `http(s)://` URL to download it from.
    #[arg(long)]
    pub(crate) spec: PathBuf,
    #[command(flatten)]
    pub(crate) fetch: FetchArgs,
    #[command(flatten)]
    pub(crate) filter: Filter,
    /// Add a TOKENS column: the approximate tokens each operation's tool adds to `tools/list`
    /// (its entry's bytes / 4), from generating every listed operation in memory.
    #[arg(long)]
    pub(crate) cost: bool,
}

#[derive(Args)]
pub(crate) struct CheckArgs {
    /// Spec file (JSON or YAML), or an `http(s)://` URL to download it from.
    #[arg(long)]
    pub(crate) spec: PathBuf,
    #[command(flatten)]
    pub(crate) fetch: FetchArgs,
    /// Allowlist file (`mcp_tools.yaml`).
    #[arg(long)]
    pub(crate) tools: PathBuf,
    /// Print every warning.
    #[arg(long, short)]
    pub(crate) verbose: bool,
}

impl Filter {
    /// The engine's filter for these flags.
    pub(crate) fn to_operation_filter(&self) -> OperationFilter {
        OperationFilter {
            read_only: self.read_only,
            tags: self.tags.clone(),
            path_prefixes: self.path_prefixes.clone(),
            methods: self.methods.clone(),
            exclude_tags: self.exclude_tags.clone(),
            exclude_path_prefixes: self.exclude_path_prefixes.clone(),
            exclude_operations: self.exclude_operations.clone(),
        }
    }
}
