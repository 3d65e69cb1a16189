//! The command line: clap's structs for every command and its flags.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use mcpgen_codegen::select::OperationFilter;

use mcpgen_codegen::diff::FailOn;

use crate::fetch::FetchArgs;

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
    Tools(ToolsArgs),
    /// Call one tool of a configured MCP server and print its result; exits 1 when the
    /// server cannot be reached or the result has `isError`.
    Call(CallArgs),
    /// Write a Markdown table of each spec's `tools/list` size (bytes, approximate tokens,
    /// largest tool) for every `output_schema` mode and client profile, generated in memory.
    Sizes(SizesArgs),
    /// What changed between two tool surfaces (tools.json files, generated crates or spec
    /// folders): tools added and removed, breaking and compatible input changes, output
    /// schema changes, access, annotation, scope and confirmation changes (read → write is a
    /// security change). Markdown, or JSON with --json; the exit code follows --fail-on.
    Diff(DiffArgs),
    /// Print the book's reference page of this command's flags (Markdown), rendered from
    /// these definitions; `docs/src/reference/mcpgen.md` is its output.
    #[command(hide = true)]
    Reference,
    /// Pack a generated crate as an MCP Bundle (`<name>.mcpb`) for desktop hosts: its
    /// `mcpb/manifest.json` and its server binary, built with `cargo build --release` (or taken
    /// as built with --binary). The bundle runs the server over stdio with `--no-auth` and
    /// passes what the person configures on installing it (the API URL, the API's credentials)
    /// as `MCPGEN_*` variables.
    Bundle(BundleArgs),
    /// Serve a stand-in of the API a spec describes: every operation answers with the spec's
    /// examples or data made from its response schema (the same request, the same answer),
    /// and a request that does not fit its operation is refused with 400 and the JSON pointer
    /// of what does not fit. Prints the URL it listens on; logs each request on stderr.
    Mock(MockArgs),
    /// Serve the MCP server of a spec and its allowlist, made at start-up: the tools `generate`
    /// would write into a crate (the same `tools/list`, the same calls), with no crate and no
    /// build, so an edit of `mcp_tools.yaml` takes a restart. Takes every flag of a generated
    /// server (transports, authentication, audit, limits, tool modes; the book's "Generated
    /// server flags" page), which `mcpgen serve --help` lists.
    Serve(Box<ServeCommandArgs>),
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
    /// (`Cargo.toml.jinja`, `README.md.jinja`, `Dockerfile.jinja`, `compose.yaml.jinja`,
    /// `server.json.jinja`, `kubernetes.yaml.jinja`, `kustomization.yaml.jinja`; minijinja
    /// syntax, strict about undefined values).
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

/// Where the server configuration comes from, shared by both commands.
#[derive(Args, Debug, Clone)]
pub(crate) struct ConfigArg {
    /// Server configuration in the `mcpServers` format (default: the file named by
    /// MCPGEN_MCP_CONFIG, else ~/.config/mcpgen/mcp_servers.json).
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// A folder servers may work in, listed when they ask for roots (repeatable; without
    /// it no roots are offered). Questions a server asks (elicitation, such as the
    /// confirmation of a `confirm: true` tool) are asked on the terminal; at the end of
    /// input they are cancelled.
    #[arg(
        long = "root",
        value_name = "DIR",
        env = "MCPGEN_ROOTS",
        value_delimiter = ','
    )]
    pub(crate) roots: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) oauth: OAuthArgs,
}

/// How `tools` and `call` sign in to a Streamable HTTP server that asks for an OAuth token
/// (answers 401 with a `WWW-Authenticate` challenge). Without flags: authorization code with
/// PKCE, the browser opened (and the URL printed), the client registered dynamically.
#[derive(Args, Debug, Clone)]
pub(crate) struct OAuthArgs {
    /// HTTPS URL of this client's Client ID Metadata Document, used as its client id where
    /// the authorization server supports those (dynamic registration otherwise).
    #[arg(long, value_name = "URL", env = "MCPGEN_CLIENT_METADATA_URL")]
    pub(crate) client_metadata_url: Option<String>,
    /// A client id registered with the authorization server beforehand.
    #[arg(long, value_name = "ID", env = "MCPGEN_CLIENT_ID")]
    pub(crate) client_id: Option<String>,
    /// Name of the environment variable holding the client's secret (for a confidential
    /// client, and for the client credentials grant).
    #[arg(long, value_name = "VAR", env = "MCPGEN_CLIENT_SECRET_ENV")]
    pub(crate) client_secret_env: Option<String>,
    /// Use the client credentials grant (a service, no person signs in), with the client id
    /// and the secret named above.
    #[arg(long, env = "MCPGEN_CLIENT_CREDENTIALS")]
    pub(crate) client_credentials: bool,
    /// Scope to ask for (repeatable); without it the server's challenge or metadata decides.
    #[arg(
        long = "scope",
        value_name = "SCOPE",
        env = "MCPGEN_OAUTH_SCOPES",
        value_delimiter = ' '
    )]
    pub(crate) scopes: Vec<String>,
    /// Folder of token files (one per server, mode 0600; default
    /// $XDG_CONFIG_HOME/mcpgen/tokens, else ~/.config/mcpgen/tokens).
    #[arg(long, value_name = "DIR", env = "MCPGEN_TOKEN_DIR")]
    pub(crate) token_dir: Option<PathBuf>,
    /// Loopback port of the sign-in redirect (http://127.0.0.1:PORT/callback; default: any
    /// free port).
    #[arg(
        long,
        value_name = "PORT",
        env = "MCPGEN_REDIRECT_PORT",
        default_value_t = 0
    )]
    pub(crate) redirect_port: u16,
}

/// `mcpgen tools`.
#[derive(Args, Debug)]
pub(crate) struct ToolsArgs {
    #[command(flatten)]
    pub(crate) config: ConfigArg,
    /// Only this server (repeatable).
    #[arg(long = "server", value_name = "NAME")]
    pub(crate) servers: Vec<String>,
    /// Print JSON: {"tools":[{name, server, tool, title, description, input_schema}],
    /// "failures":[{server, error}]}.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `mcpgen call`.
#[derive(Args, Debug)]
pub(crate) struct CallArgs {
    #[command(flatten)]
    pub(crate) config: ConfigArg,
    /// The server to call.
    #[arg(long, value_name = "NAME")]
    pub(crate) server: String,
    /// The tool's name on that server.
    #[arg(long, value_name = "NAME")]
    pub(crate) tool: String,
    /// Arguments as a JSON object.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    pub(crate) args: String,
    /// Print the raw result as JSON (content, structuredContent, isError).
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Args)]
pub(crate) struct SizesArgs {
    /// Repository root holding `specs/` (default: the nearest folder upwards from the current
    /// one that has `specs/`).
    #[arg(long)]
    pub(crate) root: Option<PathBuf>,
    /// Also measure every operation of each spec file (`*.json`, `*.yaml`, `*.yml`) in DIR, such
    /// as the GitHub and Stripe documents `scripts/sizes.sh` fetches with `MCPGEN_CORPUS=1`.
    #[arg(long, value_name = "DIR")]
    pub(crate) corpus: Option<PathBuf>,
    /// Write the Markdown (a heading, the tables, how they were made) to FILE instead of
    /// stdout.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

/// `mcpgen diff`.
#[derive(Args, Debug)]
pub(crate) struct DiffArgs {
    /// The old surface: a `tools.json` file, a generated crate folder holding one, a spec
    /// folder (`openapi.{json,yaml,yml}` and `mcp_tools.yaml`, with `plugins/` if any),
    /// generated in memory, or a spec file with the allowlist --tools. Spec folders also
    /// compare scopes, confirmation and plugins. An `http(s)://` URL is downloaded first (as
    /// `--spec URL` is, with the same limits): a `tools.json`, or a spec document that is
    /// generated with --tools.
    #[arg(value_name = "OLD")]
    pub(crate) old: PathBuf,
    /// The new surface, in any of the forms OLD takes.
    #[arg(value_name = "NEW")]
    pub(crate) new: PathBuf,
    /// Allowlist (`mcp_tools.yaml`) for a side given as a spec file or a spec URL.
    #[arg(long, value_name = "T")]
    pub(crate) tools: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) fetch: FetchArgs,
    /// Print JSON: {"summary": {kind: count}, "changes": [{kind, tool, pointer, message}]},
    /// kinds removed, breaking, security, added, output, policy, compatible.
    #[arg(long)]
    pub(crate) json: bool,
    /// Exit 1 when the diff has a change of this kind: `breaking` (a removed tool or a
    /// breaking input change), `security` (read → write, destructive, confirmation or scope
    /// loosened or changed) or `any`. Without it the exit code is 0 whatever changed.
    #[arg(long, value_name = "WHAT", env = "MCPGEN_DIFF_FAIL_ON")]
    pub(crate) fail_on: Option<FailOn>,
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

/// Flags of `mcpgen bundle`.
#[derive(Args)]
pub(crate) struct BundleArgs {
    /// Folder of the generated crate (its `Cargo.toml` and `mcpb/manifest.json`).
    #[arg(long = "crate", value_name = "DIR")]
    pub(crate) crate_dir: PathBuf,
    /// Target triple to build for (`cargo build --release --target TRIPLE`; the toolchain for it
    /// must be installed). Default: this machine. With --binary, the platform the binary is for.
    #[arg(long, value_name = "TRIPLE")]
    pub(crate) target: Option<String>,
    /// Pack this server binary, already built, instead of building the crate (a binary built in
    /// CI or by hand; it must be the crate's own server).
    #[arg(long, value_name = "PATH")]
    pub(crate) binary: Option<PathBuf>,
    /// Where to write the bundle. Default: `<name>.mcpb` in the current folder, `<name>` being
    /// the manifest's name.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

/// Flags of `mcpgen mock`.
#[derive(Args)]
pub(crate) struct MockArgs {
    /// Spec file (JSON or YAML), or an `http(s)://` URL to download it from.
    #[arg(long)]
    pub(crate) spec: PathBuf,
    #[command(flatten)]
    pub(crate) fetch: FetchArgs,
    /// Address to listen on, `HOST:PORT` (port 0 picks a free one). Loopback only unless
    /// --allow-remote.
    #[arg(
        long,
        value_name = "ADDR",
        env = "MCPGEN_MOCK_LISTEN",
        default_value = "127.0.0.1:4010"
    )]
    pub(crate) listen: String,
    /// Allow a --listen address other than loopback (the mock then answers anyone who can reach
    /// it).
    #[arg(long, env = "MCPGEN_MOCK_ALLOW_REMOTE")]
    pub(crate) allow_remote: bool,
}

#[derive(Args)]
pub(crate) struct ServeCommandArgs {
    /// Spec file (JSON or YAML), or an `http(s)://` URL to download it from.
    #[arg(long)]
    pub(crate) spec: PathBuf,
    #[command(flatten)]
    pub(crate) fetch: FetchArgs,
    /// Allowlist file (`mcp_tools.yaml`).
    #[arg(long)]
    pub(crate) tools: PathBuf,
    /// Server name, overriding the allowlist's `server.name` (default: from the spec's folder).
    #[arg(long)]
    pub(crate) name: Option<String>,
    /// Folder of plugins: each `DIR/<plugin>/manifest.json` adds the tools of its `mcp_tools`
    /// section, visible only to principals with the plugin.
    #[arg(long, value_name = "DIR")]
    pub(crate) plugins: Option<PathBuf>,
    /// Client profile, overriding the allowlist's `server.profile`: `default`, `inline`,
    /// `draft-07` or `cursor` (as `generate --profile`).
    #[arg(long, value_name = "P")]
    pub(crate) profile: Option<mcpgen_codegen::profile::Profile>,
    /// Rebuild the tools when the spec file or the allowlist changes, and swap them in while
    /// serving (open sessions get `notifications/tools/list_changed`); an edit that does not
    /// build is logged and the tools served stay. With a spec URL, only the allowlist is
    /// watched (the spec is downloaded again on each change).
    #[arg(long)]
    pub(crate) watch: bool,
    /// The flags of a generated server.
    #[command(flatten)]
    pub(crate) server: mcpgen_runtime::cli::ServeArgs,
}
