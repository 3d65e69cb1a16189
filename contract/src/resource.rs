//! Resources: content a client lists with `resources/list` and `resources/templates/list`,
//! reads with `resources/read` and may watch with `resources/subscribe`.
//!
//! - A [`Resource`] has a fixed URI and fixed content (text or base64 bytes).
//! - A [`ResourceTemplate`] names a family of URIs with an RFC 6570 template whose expressions
//!   are simple (`{id}`: one path segment, percent-decoded) or reserved (`{+path}`: may span
//!   `/`); its reader produces the content of any URI that matches.
//!
//! Collect both in a [`ResourceSet`] and serve it with
//! `ServerBuilder::resources`:
//!
//! ```
//! use mcpgen_contract::{Resource, ResourceContents, ResourceError, ResourceSet, ResourceTemplate};
//!
//! let resources = ResourceSet::new()
//!     .resource(Resource::text("notes://readme", "readme", "Notes for the team.")
//!         .mime_type("text/plain"))
//!     .template(ResourceTemplate::new("notes://note/{id}", "note", |read| async move {
//!         let id = read.get("id").unwrap_or_default().to_owned();
//!         if id.is_empty() {
//!             return Err(ResourceError::NotFound);
//!         }
//!         Ok(vec![ResourceContents::text(read.uri, format!("Note {id}"))])
//!     }))
//!     .subscriptions();
//! let updates = resources.updates();
//! // Later, when the readme changes: `updates.updated("notes://readme").await`.
//! # let _ = updates;
//! ```
//!
//! A URI that is neither a resource nor matches a template, or for which the reader answers
//! [`ResourceError::NotFound`], is answered with an invalid-params error whose `data` carries
//! the URI (SEP-2164).
//!
//! With [`ResourceSet::subscriptions`], clients may watch any URI the set serves: with
//! `resources/subscribe` per session (revisions up to 2025-11-25), or with the
//! `resourceSubscriptions` of a `subscriptions/listen` stream (2026-07-28).
//! [`ResourceUpdates::updated`] then sends `notifications/resources/updated` to every session
//! or stream watching that URI.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use mcpgen_core::BoxFuture;
use rmcp::RoleServer;
use rmcp::model::{Notification, ResourceUpdatedNotificationParam, ServerNotification};
use rmcp::service::{Peer, SubscriptionSink};

use crate::completion::Completer;

/// The content of a resource: text, or bytes in base64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes, base64-encoded.
    Blob(String),
}

/// The content read from one URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceContents {
    /// The URI the content belongs to.
    pub uri: String,
    /// Its MIME type, e.g. `text/plain` or `image/png`.
    pub mime_type: Option<String>,
    /// The content.
    pub body: ResourceBody,
}

impl ResourceContents {
    /// Text content of `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
        }
    }

    /// Binary content of `uri`, base64-encoded.
    pub fn blob(uri: impl Into<String>, base64: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(base64.into()),
        }
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// A resource with a fixed URI and fixed content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    #[doc(hidden)]
    pub uri: String,
    #[doc(hidden)]
    pub name: String,
    #[doc(hidden)]
    pub title: Option<String>,
    #[doc(hidden)]
    pub description: Option<String>,
    #[doc(hidden)]
    pub mime_type: Option<String>,
    #[doc(hidden)]
    pub body: ResourceBody,
}

impl Resource {
    /// A text resource at `uri`, listed as `name`.
    pub fn text(uri: impl Into<String>, name: impl Into<String>, text: impl Into<String>) -> Self {
        Self::with_body(uri.into(), name.into(), ResourceBody::Text(text.into()))
    }

    /// A binary resource at `uri`, listed as `name`, with base64-encoded content.
    pub fn blob(
        uri: impl Into<String>,
        name: impl Into<String>,
        base64: impl Into<String>,
    ) -> Self {
        Self::with_body(uri.into(), name.into(), ResourceBody::Blob(base64.into()))
    }

    fn with_body(uri: String, name: String, body: ResourceBody) -> Self {
        Self {
            uri,
            name,
            title: None,
            description: None,
            mime_type: None,
            body,
        }
    }

    /// Sets the name shown to users.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets what the resource holds.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type, listed and sent with the content.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The resource's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }
}

/// A `resources/read` of a URI that matched a [`ResourceTemplate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateRead {
    /// The URI as the client sent it.
    pub uri: String,
    /// The template's variables, percent-decoded, by name.
    pub variables: BTreeMap<String, String>,
}

impl TemplateRead {
    /// The value of variable `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str)
    }
}

/// Why a resource could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceError {
    /// There is no resource at this URI (the client gets an invalid-params error carrying the
    /// URI).
    #[error("resource not found")]
    NotFound,
    /// Reading failed (the client gets an internal error with this text).
    #[error("{0}")]
    Failed(String),
}

type ReadFn = dyn Fn(TemplateRead) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>>
    + Send
    + Sync;

/// A family of resources named by a URI template, read by a handler.
#[derive(Clone)]
pub struct ResourceTemplate {
    #[doc(hidden)]
    pub uri_template: String,
    #[doc(hidden)]
    pub name: String,
    #[doc(hidden)]
    pub title: Option<String>,
    #[doc(hidden)]
    pub description: Option<String>,
    #[doc(hidden)]
    pub mime_type: Option<String>,
    #[doc(hidden)]
    pub reader: Arc<ReadFn>,
    #[doc(hidden)]
    pub completers: BTreeMap<String, Completer>,
}

impl std::fmt::Debug for ResourceTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceTemplate")
            .field("uri_template", &self.uri_template)
            .field("name", &self.name)
            .field("mime_type", &self.mime_type)
            .field("completers", &self.completers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl ResourceTemplate {
    /// URIs matching `uri_template` (e.g. `notes://note/{id}`), listed as `name`, read by
    /// `reader`. An answer with no contents is sent as "not found".
    pub fn new<F, Fut>(uri_template: impl Into<String>, name: impl Into<String>, reader: F) -> Self
    where
        F: Fn(TemplateRead) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, ResourceError>> + Send + 'static,
    {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            reader: Arc::new(move |read| Box::pin(reader(read))),
            completers: BTreeMap::new(),
        }
    }

    /// Sets the name shown to users.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets what the resources hold.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type listed for the template (the reader sets each content's own).
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Suggests values for the template's `variable` (`completion/complete`). A variable the
    /// template does not have is reported by
    /// `ServerBuilder::build`.
    pub fn complete(mut self, variable: impl Into<String>, completer: Completer) -> Self {
        self.completers.insert(variable.into(), completer);
        self
    }

    /// The URI template.
    pub fn uri_template(&self) -> &str {
        &self.uri_template
    }
}

/// The resources and templates a server offers, listed in the order they are added.
/// `ServerBuilder::build` reports a repeated URI or
/// template, and a template it cannot match URIs against.
#[derive(Debug, Clone, Default)]
pub struct ResourceSet {
    #[doc(hidden)]
    pub resources: Vec<Resource>,
    #[doc(hidden)]
    pub templates: Vec<ResourceTemplate>,
    #[doc(hidden)]
    pub subscriptions: bool,
    #[doc(hidden)]
    pub updates: ResourceUpdates,
}

impl ResourceSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a resource.
    pub fn resource(mut self, resource: Resource) -> Self {
        self.resources.push(resource);
        self
    }

    /// Adds a resource template.
    pub fn template(mut self, template: ResourceTemplate) -> Self {
        self.templates.push(template);
        self
    }

    /// Accepts `resources/subscribe` and `resources/unsubscribe` (and declares the
    /// `subscribe` capability): signal changes through [`updates`](Self::updates).
    pub fn subscriptions(mut self) -> Self {
        self.subscriptions = true;
        self
    }

    /// The handle that tells subscribed clients a resource changed. Clones share the
    /// subscriptions of the server this set is served by.
    pub fn updates(&self) -> ResourceUpdates {
        self.updates.clone()
    }

    /// The resources, in the order they were added.
    pub fn resources(&self) -> &[Resource] {
        &self.resources
    }

    /// The templates, in the order they were added.
    pub fn templates(&self) -> &[ResourceTemplate] {
        &self.templates
    }
}

/// Tells the sessions subscribed to a URI that its resource changed
/// (`notifications/resources/updated`). Get it from [`ResourceSet::updates`]; cheap to clone.
#[derive(Clone, Default)]
pub struct ResourceUpdates {
    subscribers: Arc<Mutex<Vec<Weak<Subscriber>>>>,
}

impl std::fmt::Debug for ResourceUpdates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceUpdates").finish_non_exhaustive()
    }
}

impl ResourceUpdates {
    /// Sends `notifications/resources/updated` for `uri` to every session and listen stream
    /// watching it, answering how many it reached. Sessions and streams that have ended are
    /// forgotten.
    pub async fn updated(&self, uri: &str) -> usize {
        let routes: Vec<Route> = {
            let mut subscribers = lock(&self.subscribers);
            subscribers.retain(|weak| weak.strong_count() > 0);
            subscribers
                .iter()
                .filter_map(Weak::upgrade)
                .filter_map(|subscriber| subscriber.route_for(uri))
                .collect()
        };
        let mut reached = 0;
        for route in routes {
            let param = ResourceUpdatedNotificationParam::new(uri);
            let sent = match route {
                Route::Session(peer) => peer
                    .notify_resource_updated(param)
                    .await
                    .map_err(|e| e.to_string()),
                Route::Listen(sink) => sink
                    .send(ServerNotification::ResourceUpdatedNotification(
                        Notification::new(param),
                    ))
                    .await
                    .map_err(|e| e.to_string()),
            };
            match sent {
                Ok(()) => reached += 1,
                Err(error) => tracing::debug!(uri, error, "resource update not delivered"),
            }
        }
        reached
    }

    /// Registers a `subscriptions/listen` stream watching `uris`; it is watched as long as the
    /// answer is held.
    #[doc(hidden)]
    pub fn listen(&self, sink: SubscriptionSink, uris: Vec<String>) -> Arc<Subscriber> {
        let subscriber = Arc::new(Subscriber {
            state: Mutex::new(SubscriberState {
                route: Some(Route::Listen(sink)),
                uris: uris.into_iter().collect(),
                registered: true,
            }),
        });
        self.register(&subscriber);
        subscriber
    }

    fn register(&self, subscriber: &Arc<Subscriber>) {
        let mut subscribers = lock(&self.subscribers);
        subscribers.retain(|weak| weak.strong_count() > 0);
        subscribers.push(Arc::downgrade(subscriber));
    }

    /// Records that the session of `subscriber`, reachable through `peer`, watches `uri`.
    #[doc(hidden)]
    pub fn subscribe(&self, subscriber: &Arc<Subscriber>, peer: Peer<RoleServer>, uri: String) {
        let first = {
            let mut state = lock(&subscriber.state);
            state.route = Some(Route::Session(peer));
            state.uris.insert(uri);
            !std::mem::replace(&mut state.registered, true)
        };
        if first {
            self.register(subscriber);
        }
    }
}

/// The subscriptions of one session (held by its connection handler) or of one
/// `subscriptions/listen` stream (held while it is open); forgotten when dropped.
#[derive(Debug, Default)]
#[doc(hidden)]
pub struct Subscriber {
    state: Mutex<SubscriberState>,
}

/// Where a subscriber's notifications go.
#[derive(Debug, Clone)]
enum Route {
    /// The session's peer, from its latest `resources/subscribe`.
    Session(Peer<RoleServer>),
    /// A listen stream, which tags each notification with its subscription id.
    Listen(SubscriptionSink),
}

#[derive(Debug, Default)]
struct SubscriberState {
    route: Option<Route>,
    uris: BTreeSet<String>,
    /// Whether a [`ResourceUpdates`] holds this subscriber.
    registered: bool,
}

impl Subscriber {
    /// Stops watching `uri`; answers whether it was watched.
    #[doc(hidden)]
    pub fn unsubscribe(&self, uri: &str) -> bool {
        lock(&self.state).uris.remove(uri)
    }

    fn route_for(&self, uri: &str) -> Option<Route> {
        let state = lock(&self.state);
        if state.uris.contains(uri) {
            state.route.clone()
        } else {
            None
        }
    }
}

/// Locks `mutex`; a panic elsewhere while holding it leaves plain data that is still usable.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
