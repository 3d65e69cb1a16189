//! The table of mounted catalogs that a server's clones, its routers and its cards share.

use std::sync::{Arc, PoisonError, RwLock};

use super::inner::Inner;

/// A catalog served at `/mcp/<name>`.
#[derive(Clone)]
pub(crate) struct Mounted {
    pub(crate) name: String,
    pub(crate) inner: Arc<Inner>,
}

/// The mounted catalogs, in the order they were mounted; shared by a server's clones, its
/// routers and its cards.
#[derive(Default)]
pub(crate) struct MountTable {
    pub(crate) list: RwLock<Vec<Mounted>>,
}

impl MountTable {
    /// A table holding `mounts`.
    pub(crate) fn new(mounts: Vec<Mounted>) -> Self {
        Self {
            list: RwLock::new(mounts),
        }
    }

    /// The catalogs mounted now.
    pub(crate) fn snapshot(&self) -> Vec<Mounted> {
        self.list
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The catalog mounted as `name`, if any.
    pub(crate) fn get(&self, name: &str) -> Option<Arc<Inner>> {
        self.list
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.inner.clone())
    }
}
