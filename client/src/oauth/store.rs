//! [`TokenFile`]: rmcp's credential store as a JSON file that only the user can read, and the
//! authorization manager of a server that keeps its tokens there.

use std::io::Write;
use std::path::{Path, PathBuf};

use rmcp::transport::auth::{AuthError, AuthorizationManager, CredentialStore, StoredCredentials};
use sha2::{Digest, Sha256};

use super::OAuthOptions;

/// `$XDG_CONFIG_HOME/mcpgen/tokens`, else `$HOME/.config/mcpgen/tokens`.
pub fn default_token_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("mcpgen").join("tokens"))
}

/// A new manager for the server at `url`, with its token file (in `options.token_dir`) as the
/// credential store.
pub(crate) async fn manager(
    url: &url::Url,
    options: &OAuthOptions,
    allow_private: bool,
) -> Result<AuthorizationManager, String> {
    let made = if allow_private {
        AuthorizationManager::new_allowing_private_addresses(url.as_str()).await
    } else {
        AuthorizationManager::new(url.as_str()).await
    };
    let mut manager = made.map_err(|e| format!("OAuth: {e}"))?;
    if let Some(dir) = &options.token_dir {
        manager.set_credential_store(TokenFile::new(dir, url.as_str()));
    }
    Ok(manager)
}

/// The tokens of one server, in `<dir>/<first 16 bytes of SHA-256(url), hex>.json`, written
/// with mode 0600 (the folder 0700).
#[derive(Debug, Clone)]
pub struct TokenFile {
    path: PathBuf,
}

impl TokenFile {
    /// The token file for server `url` in `dir`.
    pub fn new(dir: &Path, url: &str) -> Self {
        let digest = Sha256::digest(url.as_bytes());
        let name = hex::encode(&digest[..16]);
        Self {
            path: dir.join(format!("{name}.json")),
        }
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, what: &str, e: impl std::fmt::Display) -> AuthError {
        AuthError::CredentialStoreError(format!("{what} {}: {e}", self.path.display()))
    }

    fn write(&self, text: &str) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)?;
        let tmp = self.path.with_extension("json.tmp");
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, &self.path)
    }
}

#[async_trait::async_trait]
impl CredentialStore for TokenFile {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => match serde_json::from_str(&text) {
                Ok(credentials) => Ok(Some(credentials)),
                Err(e) => {
                    // A damaged file means signing in again, not failing forever.
                    tracing::warn!("ignoring the token file {}: {e}", self.path.display());
                    Ok(None)
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.error("cannot read", e)),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let text =
            serde_json::to_string(&credentials).map_err(|e| self.error("cannot encode", e))?;
        self.write(&text).map_err(|e| self.error("cannot write", e))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(self.error("cannot remove", e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tokens_are_kept_in_a_file_only_the_user_reads() {
        let dir = std::env::temp_dir().join(format!("mcpgen-token-test-{}", std::process::id()));
        let file = TokenFile::new(&dir.join("tokens"), "https://mcp.example.com/mcp");
        assert!(file.load().await.unwrap().is_none());
        file.save(StoredCredentials::new(
            "client-1".into(),
            None,
            vec!["mcp:read".into()],
            Some(1),
        ))
        .await
        .unwrap();
        let back = file.load().await.unwrap().unwrap();
        assert_eq!(back.client_id, "client-1");
        assert_eq!(back.granted_scopes, ["mcp:read"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let dir_mode = std::fs::metadata(dir.join("tokens"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(dir_mode & 0o777, 0o700);
        }
        std::fs::write(file.path(), "{broken").unwrap();
        assert!(
            file.load().await.unwrap().is_none(),
            "a damaged file is ignored"
        );
        file.clear().await.unwrap();
        assert!(!file.path().exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
