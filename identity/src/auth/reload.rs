//! A keys file that is reloaded when it changes, while the server keeps serving.

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock, Weak};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::keys::{KeyFileError, KeyStore};
use super::{AuthError, Authenticator};
use crate::principal::Principal;

/// How often [`WatchedKeys`] looks at the file by default.
pub const DEFAULT_RELOAD_INTERVAL: Duration = Duration::from_millis(500);

/// API keys from a keys file that is read again whenever its contents change (checked every
/// [`DEFAULT_RELOAD_INTERVAL`] by a background thread): added keys work and removed keys are
/// refused from then on, without a restart and without closing any connection. A file that no
/// longer parses keeps the keys loaded before and logs an error naming the line.
pub struct WatchedKeys {
    shared: Arc<Shared>,
}

struct Shared {
    path: PathBuf,
    current: RwLock<Arc<KeyStore>>,
}

impl std::fmt::Debug for WatchedKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchedKeys")
            .field("path", &self.shared.path)
            .field("keys", &self.current())
            .finish()
    }
}

impl WatchedKeys {
    /// Loads the keys file at `path` (an error if it cannot be loaded now) and starts watching
    /// it every `interval`. The watching thread ends when the `WatchedKeys` is dropped.
    pub fn load(path: impl AsRef<Path>, interval: Duration) -> Result<Self, KeyFileError> {
        let path = path.as_ref().to_owned();
        let text = std::fs::read_to_string(&path).map_err(|source| KeyFileError::Read {
            path: path.clone(),
            source,
        })?;
        let store = KeyStore::from_yaml(&text, &path)?;
        let shared = Arc::new(Shared {
            path,
            current: RwLock::new(Arc::new(store)),
        });
        let weak = Arc::downgrade(&shared);
        let digest = Sha256::digest(text.as_bytes());
        let spawned = std::thread::Builder::new()
            .name("mcpgen-keys-reload".to_owned())
            .spawn(move || watch(weak, interval, digest.into()));
        if let Err(error) = spawned {
            tracing::error!(%error, "cannot start watching the keys file; changes need a restart");
        }
        Ok(Self { shared })
    }

    /// The keys loaded now.
    pub fn current(&self) -> Arc<KeyStore> {
        self.shared
            .current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Authenticator for WatchedKeys {
    async fn authenticate(&self, credential: Option<&str>) -> Result<Principal, AuthError> {
        self.current().lookup(credential)
    }
}

/// Polls the file until `shared` is gone; swaps the keys in when its contents change and
/// parse.
fn watch(shared: Weak<Shared>, interval: Duration, mut last: [u8; 32]) {
    let mut unreadable = false;
    loop {
        std::thread::sleep(interval);
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let text = match std::fs::read_to_string(&shared.path) {
            Ok(text) => {
                unreadable = false;
                text
            }
            Err(error) => {
                if !unreadable {
                    tracing::error!(path = %shared.path.display(), %error, "cannot read the keys file; keeping the keys loaded before");
                }
                unreadable = true;
                continue;
            }
        };
        let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        if digest == last {
            continue;
        }
        last = digest;
        match KeyStore::from_yaml(&text, &shared.path) {
            Ok(store) => {
                for id in store.plain_key_ids() {
                    tracing::warn!(
                        key = id,
                        "key `{id}` is stored in plain text; use key_sha256 outside development"
                    );
                }
                tracing::info!(path = %shared.path.display(), keys = store.len(), "keys file reloaded");
                *shared
                    .current
                    .write()
                    .unwrap_or_else(PoisonError::into_inner) = Arc::new(store);
            }
            Err(error) => {
                tracing::error!("keys file not reloaded, keeping the keys loaded before: {error}");
            }
        }
    }
}
