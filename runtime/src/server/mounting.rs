//! Catalogs mounted while serving: [`Server::mount`] and [`Server::unmount`], and how a
//! catalog's shared state is completed, and a mount's derived from the server's.
//!
//! A mount added to a running server is served at once at `/mcp/<name>` (under the base
//! path); an unmounted one answers 404 to every new request, while requests already routed to
//! it (calls in flight) finish, since they hold the catalog's state themselves.

use std::sync::{Arc, PoisonError};

use super::error::{ConfigProblem, ServerError};
use crate::server::call::handler;
use crate::server::catalog::catalog_config::{BuiltTools, CatalogConfig};
use crate::server::catalog::live::LiveTools;
use crate::server::catalog::mount::{self, Mount};
use crate::server::catalog::prompts::Prompts;
use crate::server::catalog::resources::Resources;
use crate::server::state::inner::Inner;
use crate::server::state::mounts::Mounted;
use crate::server::state::server::Server;
use mcpgen_contract::tasks::{TaskSettings, TaskSupport, Tasks};
use mcpgen_core::ToolDef;

/// Where catalogs are placed: the server's [`Placement`](super::Placement) with HTTP, nothing
/// without.
#[cfg(feature = "http")]
pub(super) type PlacementOf = super::state::placement::Placement;
/// Where catalogs are placed: the server's [`Placement`](super::Placement) with HTTP, nothing
/// without.
#[cfg(not(feature = "http"))]
pub(super) type PlacementOf = ();

/// Why `name` cannot be mounted next to the catalogs named `taken`, if it cannot.
pub(super) fn name_check(
    placement: &PlacementOf,
    taken: &[&str],
    name: &str,
) -> Option<ConfigProblem> {
    if let Some(reason) = mount::name_problem(name) {
        return Some(ConfigProblem::InvalidCatalogName {
            name: name.to_owned(),
            reason: reason.to_owned(),
        });
    }
    #[cfg(feature = "http")]
    if !placement.base_path.is_empty()
        && super::state::placement::RESERVED_UNDER_BASE.contains(&name)
    {
        return Some(ConfigProblem::InvalidCatalogName {
            name: name.to_owned(),
            reason: format!(
                "under the base path `{0}`, `{0}/{name}` is a route of the server itself",
                placement.base_path
            ),
        });
    }
    #[cfg(not(feature = "http"))]
    let () = *placement;
    if taken.contains(&name) {
        return Some(ConfigProblem::DuplicateCatalog {
            name: name.to_owned(),
        });
    }
    None
}

/// The state of a catalog mounted on the server whose own catalog is `root`: its tools and
/// authenticators (its own first, then the server's); everything else is the server's.
pub(super) fn mounted_inner(
    root: &Inner,
    name: &str,
    config: CatalogConfig,
    tools: BuiltTools,
) -> Inner {
    #[cfg(feature = "http")]
    let resource = root.resource.for_mount(name, &tools.catalog);
    let views = crate::views::Views::build(
        &format!("{}/{name}", root.name),
        tools.catalog.entries().iter().map(|e| &e.def),
        root.tools.load().views.enabled(),
    );
    let inner = Inner {
        name: format!("{}/{name}", root.name),
        version: root.version.clone(),
        title: config.title.clone().or_else(|| root.title.clone()),
        description: config
            .description
            .clone()
            .or_else(|| root.description.clone()),
        #[cfg(feature = "http")]
        card_name: None,
        #[cfg(feature = "http")]
        placement: root.placement.clone(),
        #[cfg(feature = "http")]
        replica: root.replica.clone(),
        #[cfg(all(feature = "http", feature = "redis"))]
        shared: root.shared.clone(),
        // A task is taken over by the root's pipeline, which knows only the root's tools.
        #[cfg(all(feature = "http", feature = "redis"))]
        task_store: None,
        auth: mount::mount_auth(config.auth.clone(), root.auth.as_ref()),
        tools: LiveTools::first(config, tools, views),
        #[cfg(feature = "http")]
        resource,
        #[cfg(feature = "http")]
        insecure_no_auth: root.insecure_no_auth,
        audit: root.audit.clone(),
        audit_args: root.audit_args,
        rate: root.rate.clone(),
        #[cfg(feature = "http")]
        rebinding: root.rebinding.clone(),
        #[cfg(feature = "http")]
        max_body_bytes: root.max_body_bytes,
        #[cfg(feature = "http")]
        body_read_timeout: root.body_read_timeout,
        #[cfg(feature = "http")]
        sessions: root.sessions,
        shutdown_timeout: root.shutdown_timeout,
        output_check: root.output_check,
        unconfirmable: root.unconfirmable,
        #[cfg(feature = "http")]
        forward_headers: root.forward_headers.clone(),
        inflight: root.inflight.clone(),
        request_states: root.request_states.clone(),
        tasks: root.tasks.clone(),
        prompts: Prompts::default(),
        resources: Resources::default(),
        server_config: rmcp::model::ServerConfig::default(),
        #[cfg(feature = "metrics")]
        metrics: root.metrics.clone(),
    };
    configured(inner)
}

/// The tools the tool sets of `root` and `mounts` declare as tasks.
/// The server's task table: `settings`, with the tools the tool sets of `root` and `mounts`
/// declare as tasks, task ids starting with `replica`'s name.
pub(super) fn tasks_of(
    settings: TaskSettings,
    root: &CatalogConfig,
    mounts: &[Mount],
    replica: Option<&str>,
) -> Tasks {
    Tasks::new(settings.declared(declared_tasks(root, mounts)), replica)
}

fn declared_tasks<'a>(
    root: &'a CatalogConfig,
    mounts: &'a [Mount],
) -> Vec<(&'static str, TaskSupport)> {
    let sets = root
        .sets
        .iter()
        .chain(mounts.iter().flat_map(|m| &m.catalog.sets));
    sets.flat_map(|set| {
        let support = |def: &'static ToolDef| Some((def.name, set.task_support(def.name)?));
        set.tools().iter().filter_map(support)
    })
    .collect()
}

/// Fills in what `initialize` answers, from the rest of `inner`.
pub(super) fn configured(mut inner: Inner) -> Inner {
    inner.server_config = handler::server_config(&inner);
    #[cfg(feature = "metrics")]
    if let Some(metrics) = &inner.metrics {
        let tasks = inner.tasks.clone();
        metrics.count_tasks(Arc::new(move || tasks.counts()));
    }
    inner
}

impl Server {
    /// Mounts `mount` while the server runs (or before): it is served at once at
    /// `/mcp/<name>`, with its own tool sets and authenticators (then the server's), and
    /// listed by the server cards. A bad name, a name already mounted, or tool sets that do
    /// not build are refused with every problem listed, and nothing changes.
    ///
    /// On a server serving a non-loopback address, a mount without any authenticator (its
    /// own or the server's) is refused unless the server allows serving without
    /// authentication ([`ServerBuilder::insecure_no_auth`](super::ServerBuilder::insecure_no_auth)).
    pub fn mount(&self, mount: Mount) -> Result<(), ServerError> {
        let root = &self.inner;
        let mut problems = Vec::new();
        let tools = mount.catalog.build_tools(root.output_check, &mut problems);
        let mut list = self
            .mounts
            .list
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let taken: Vec<&str> = list.iter().map(|m| m.name.as_str()).collect();
        #[cfg(feature = "http")]
        let placement = &*root.placement;
        #[cfg(not(feature = "http"))]
        let placement = &();
        if let Some(problem) = name_check(placement, &taken, &mount.name) {
            problems.insert(0, problem);
        }
        let Some(tools) = tools.filter(|_| problems.is_empty()) else {
            return Err(ServerError::Config(
                problems
                    .into_iter()
                    .map(|problem| match problem {
                        named @ (ConfigProblem::InvalidCatalogName { .. }
                        | ConfigProblem::DuplicateCatalog { .. }) => named,
                        other => ConfigProblem::InCatalog {
                            catalog: mount.name.clone(),
                            problem: Box::new(other),
                        },
                    })
                    .collect(),
            ));
        };
        let inner = mounted_inner(root, &mount.name, mount.catalog, tools);
        #[cfg(feature = "http")]
        if inner.auth.is_none()
            && !root.insecure_no_auth
            && self.exposed.load(std::sync::atomic::Ordering::Relaxed)
        {
            return Err(ServerError::Config(vec![ConfigProblem::InCatalog {
                catalog: mount.name.clone(),
                problem: Box::new(ConfigProblem::UnauthenticatedMount),
            }]));
        }
        tracing::info!(catalog = %mount.name, "catalog mounted");
        list.push(Mounted {
            name: mount.name,
            inner: Arc::new(inner),
        });
        Ok(())
    }

    /// Unmounts the catalog `name`; returns whether it was mounted. New requests to it are
    /// answered 404 at once; calls already in progress on it finish and are answered.
    pub fn unmount(&self, name: &str) -> bool {
        let mut list = self
            .mounts
            .list
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let before = list.len();
        list.retain(|m| m.name != name);
        let removed = list.len() != before;
        if removed {
            tracing::info!(catalog = %name, "catalog unmounted");
        }
        removed
    }
}
