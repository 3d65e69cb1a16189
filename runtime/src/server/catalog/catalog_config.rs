//! The settings every catalog has, the server's own at `/mcp` and each mount's at
//! `/mcp/<name>`: title, description, tool sets, authenticators, tool mode and pins.
//! [`ServerBuilder`](crate::server::ServerBuilder) and [`Mount`](crate::server::Mount) each hold one and
//! delegate their per-catalog setters to it.

use std::sync::Arc;

#[cfg(feature = "http")]
use super::param_headers::ParamHeaders;
#[cfg(feature = "search")]
use super::search::SearchMode;
use super::table::{Catalog, CatalogProblem};
use crate::server::config::OutputCheck;
#[cfg(feature = "search")]
use crate::server::config::ToolMode;
use crate::server::error::ConfigProblem;
/// The limits of code mode's programs, which a catalog's settings carry (the builder names
/// code mode only through here).
#[cfg(feature = "code-mode")]
pub(crate) use mcpgen_code::CodeLimits;
use mcpgen_contract::toolset::ToolSet;
use mcpgen_identity::auth::{AuthChain, Authenticator};

/// What [`CatalogConfig::build_tools`] makes: the catalog and, in search mode, its index.
pub(crate) struct BuiltTools {
    pub(crate) catalog: Catalog,
    /// The tools' `Mcp-Param-*` headers.
    #[cfg(feature = "http")]
    pub(crate) param_headers: ParamHeaders,
    #[cfg(feature = "search")]
    pub(crate) search: Option<SearchMode>,
}

/// The settings of one catalog.
#[derive(Default)]
pub(crate) struct CatalogConfig {
    /// Shown by `initialize` (a mount without one shows the server's).
    pub(crate) title: Option<String>,
    /// Shown by `initialize` (a mount without one shows the server's).
    pub(crate) description: Option<String>,
    pub(crate) sets: Vec<Arc<dyn ToolSet>>,
    /// `None`: no authenticator of the catalog's own.
    pub(crate) auth: Option<AuthChain>,
    #[cfg(feature = "search")]
    pub(crate) tool_mode: ToolMode,
    #[cfg(feature = "search")]
    pub(crate) pinned: Vec<String>,
    /// Whether `all` mode leaves out `describe_tools` (and the descriptions' note) even
    /// when tools are summarised.
    pub(crate) no_describe: bool,
    /// The limits of code mode's programs.
    #[cfg(feature = "code-mode")]
    pub(crate) code_limits: CodeLimits,
    /// Whether `initialize` declares `tools.listChanged` and sessions are told when the tools
    /// are replaced.
    pub(crate) list_changed: bool,
}

impl CatalogConfig {
    /// Sets the title.
    pub(crate) fn set_title(&mut self, title: String) {
        self.title = Some(title);
    }

    /// Sets the description.
    pub(crate) fn set_description(&mut self, description: String) {
        self.description = Some(description);
    }

    /// Adds a tool set.
    pub(crate) fn add_tool_set(&mut self, tools: Arc<dyn ToolSet>) {
        self.sets.push(tools);
    }

    /// Adds an authenticator after those already added.
    pub(crate) fn add_authenticator(&mut self, authenticator: impl Authenticator) {
        let chain = self.auth.take().unwrap_or_default();
        self.auth = Some(chain.with(authenticator));
    }

    /// Drops every authenticator added.
    pub(crate) fn clear_auth(&mut self) {
        self.auth = None;
    }

    /// Sets what `tools/list` shows.
    #[cfg(feature = "search")]
    pub(crate) fn set_tool_mode(&mut self, mode: ToolMode) {
        self.tool_mode = mode;
    }

    /// Sets the tools listed directly in search mode.
    #[cfg(feature = "search")]
    pub(crate) fn set_pinned(&mut self, names: Vec<String>) {
        self.pinned = names;
    }

    /// Sets the limits of code mode's programs.
    #[cfg(feature = "code-mode")]
    pub(crate) fn set_code_limits(&mut self, limits: CodeLimits) {
        self.code_limits = limits;
    }

    /// Declares `tools.listChanged` and tells sessions when the tools are replaced.
    pub(crate) fn set_list_changed(&mut self, on: bool) {
        self.list_changed = on;
    }

    /// Turns `all` mode's `describe_tools` (and the summarised tools' note) on or off.
    pub(crate) fn set_describe_tools(&mut self, on: bool) {
        self.no_describe = !on;
    }

    /// These settings without the tool sets and authenticators: what the next tools of a
    /// catalog whose tools are replaced while serving are built with.
    pub(crate) fn settings_only(&self) -> Self {
        Self {
            title: self.title.clone(),
            description: self.description.clone(),
            sets: Vec::new(),
            auth: None,
            #[cfg(feature = "search")]
            tool_mode: self.tool_mode,
            #[cfg(feature = "search")]
            pinned: self.pinned.clone(),
            no_describe: self.no_describe,
            #[cfg(feature = "code-mode")]
            code_limits: self.code_limits.clone(),
            list_changed: self.list_changed,
        }
    }

    /// Builds the catalog (and, in search mode, the search index) of these tool sets, adding
    /// what is wrong to `problems`.
    pub(crate) fn build_tools(
        &self,
        output_check: OutputCheck,
        problems: &mut Vec<ConfigProblem>,
    ) -> Option<BuiltTools> {
        #[cfg(feature = "search")]
        let describe = !self.no_describe || self.tool_mode != ToolMode::All;
        #[cfg(not(feature = "search"))]
        let describe = !self.no_describe;
        let catalog = match Catalog::build(&self.sets, output_check, describe) {
            Ok(catalog) => catalog,
            Err(found) => {
                problems.extend(found.into_iter().map(|p| match p {
                    CatalogProblem::Duplicate {
                        tool,
                        first_set,
                        second_set,
                    } => ConfigProblem::DuplicateTool {
                        tool,
                        first_set: first_set + 1,
                        second_set: second_set + 1,
                    },
                    CatalogProblem::Schema {
                        tool,
                        which,
                        message,
                    } => ConfigProblem::InvalidSchema {
                        tool,
                        which,
                        message,
                    },
                }));
                return None;
            }
        };
        #[cfg(feature = "http")]
        let param_headers = match ParamHeaders::build(&catalog) {
            Ok(headers) => headers,
            Err(found) => {
                problems.extend(found.into_iter().map(|(tool, message)| {
                    ConfigProblem::InvalidSchema {
                        tool,
                        which: "input",
                        message,
                    }
                }));
                return None;
            }
        };
        #[cfg(feature = "search")]
        let search = match self.tool_mode {
            ToolMode::All => None,
            ToolMode::Search | ToolMode::Code => {
                #[cfg(feature = "code-mode")]
                let code = match self.tool_mode {
                    ToolMode::Code => match mcpgen_code::CodeMode::new(self.code_limits.clone()) {
                        Ok(code) => Some(code),
                        Err(reason) => {
                            problems.push(ConfigProblem::CodeWorker { reason });
                            return None;
                        }
                    },
                    _ => None,
                };
                #[cfg(feature = "code-mode")]
                let built = SearchMode::build(&self.sets, &catalog, &self.pinned, code);
                #[cfg(not(feature = "code-mode"))]
                let built = if self.tool_mode == ToolMode::Code {
                    Err(vec![ConfigProblem::CodeModeNotBuilt])
                } else {
                    SearchMode::build(&self.sets, &catalog, &self.pinned)
                };
                match built {
                    Ok(mode) => Some(mode),
                    Err(found) => {
                        problems.extend(found);
                        return None;
                    }
                }
            }
        };
        Some(BuiltTools {
            catalog,
            #[cfg(feature = "http")]
            param_headers,
            #[cfg(feature = "search")]
            search,
        })
    }
}
