//! API keys from a keys file (`--keys FILE`): parsing, validation and constant-time matching.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::{Location, Spanned};
use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use super::{AuthError, Authenticator};
use crate::principal::Principal;

/// The hex SHA-256 of `key`: what a keys file stores as `key_sha256`.
///
/// ```
/// assert_eq!(
///     mcpgen_identity::auth::hash_key("test"),
///     "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
/// );
/// ```
pub fn hash_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// One problem found in a keys file, with where it is and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyProblem {
    /// 1-based line of the offending value, when known.
    pub line: Option<u64>,
    /// 1-based column of the offending value, when known.
    pub column: Option<u64>,
    /// Id of the key the problem belongs to, when known.
    pub key_id: Option<String>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl KeyProblem {
    fn at(location: Location, key_id: Option<&str>, message: String) -> Self {
        let known = location.line() > 0;
        Self {
            line: known.then(|| location.line()),
            column: known.then(|| location.column()),
            key_id: key_id.filter(|id| !id.is_empty()).map(str::to_owned),
            message,
        }
    }
}

impl fmt::Display for KeyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "{line}:")?;
            if let Some(column) = self.column {
                write!(f, "{column}:")?;
            }
            f.write_str(" ")?;
        }
        if let Some(id) = &self.key_id {
            write!(f, "key `{id}`: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Why a keys file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    /// The file could not be read.
    #[error("cannot read keys file {}: {source}", path.display())]
    Read {
        /// The keys file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file was read but is not a valid keys file; every problem found is listed.
    #[error("{}", ProblemList { path, problems })]
    Invalid {
        /// The keys file (as given for messages).
        path: PathBuf,
        /// Every problem found, in file order.
        problems: Vec<KeyProblem>,
    },
}

struct ProblemList<'a> {
    path: &'a Path,
    problems: &'a [KeyProblem],
}

impl fmt::Display for ProblemList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        if self.problems.len() > 1 {
            writeln!(f, "keys file {path} has {} problems:", self.problems.len())?;
        }
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            let sep = if problem.line.is_some() { ":" } else { ": " };
            write!(f, "{path}{sep}{problem}")?;
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeysFile {
    keys: Vec<Spanned<KeyEntry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyEntry {
    id: Spanned<String>,
    #[serde(default)]
    key_sha256: Option<Spanned<String>>,
    #[serde(default)]
    key: Option<Spanned<String>>,
    principal: Spanned<String>,
    #[serde(default)]
    scopes: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    plugins: Vec<String>,
    #[serde(default)]
    rate_limit: Option<Spanned<f64>>,
}

struct StoredKey {
    digest: [u8; 32],
    principal: Principal,
    plain: bool,
}

/// API keys loaded from a keys file; an [`Authenticator`] for `X-API-Key` / `Bearer` credentials.
///
/// ```yaml
/// keys:
///   - id: ci-bot                 # unique; appears in audit records as the key id
///     key_sha256: 9f86d08…       # hex SHA-256 of the key (see `hash_key`)
///     principal: ci              # who the key belongs to
///     scopes: [mcp:read]         # mcp:*, mcp:read, mcp:write, mcp:tool:<name>, per-tool scopes
///     plugins: [billing]         # optional: plugins whose tools the key may see (`*` for all)
///     rate_limit: 5              # optional: calls per second, overriding the server default
///   - id: dev
///     key: let-me-in             # plain key: development only, the server logs a warning
///     principal: me
///     scopes: ["mcp:*"]
/// ```
///
/// Only digests are kept in memory. A presented credential is hashed and compared with every
/// stored digest in constant time, without stopping at the first match or mismatch.
pub struct KeyStore {
    keys: Vec<StoredKey>,
}

impl fmt::Debug for KeyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids: Vec<&str> = self.ids().collect();
        f.debug_struct("KeyStore").field("ids", &ids).finish()
    }
}

impl KeyStore {
    /// Reads and validates the keys file at `path`.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, KeyFileError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| KeyFileError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::from_yaml(&text, path)
    }

    /// Parses and validates keys-file YAML; `path_for_messages` names the file in errors.
    /// All problems are collected and reported together.
    pub fn from_yaml(
        text: &str,
        path_for_messages: impl AsRef<Path>,
    ) -> Result<Self, KeyFileError> {
        let invalid = |problems| KeyFileError::Invalid {
            path: path_for_messages.as_ref().to_owned(),
            problems,
        };
        if text.trim().is_empty() {
            return Err(invalid(vec![KeyProblem::at(
                Location::UNKNOWN,
                None,
                "the file is empty; expected `keys:` followed by a list of keys".to_owned(),
            )]));
        }
        let file: KeysFile = serde_saphyr::from_str(text).map_err(|e| {
            let location = e.location().unwrap_or(Location::UNKNOWN);
            let mut message = e.without_snippet().to_string();
            // The location goes in front, as for every other problem.
            let suffix = format!(" at line {}, column {}", location.line(), location.column());
            if message.ends_with(&suffix) {
                message.truncate(message.len() - suffix.len());
            }
            invalid(vec![KeyProblem::at(location, None, message)])
        })?;
        let mut problems = Vec::new();
        let keys = validate(file, &mut problems);
        if problems.is_empty() {
            Ok(Self { keys })
        } else {
            Err(invalid(problems))
        }
    }

    /// Ids of the keys given in plain text (`key:` rather than `key_sha256:`), for a start-up
    /// warning: plain keys are for development only.
    pub fn plain_key_ids(&self) -> Vec<&str> {
        self.keys
            .iter()
            .filter(|k| k.plain)
            .filter_map(|k| k.principal.key_id.as_deref())
            .collect()
    }

    /// Ids of all keys, in file order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.keys
            .iter()
            .filter_map(|k| k.principal.key_id.as_deref())
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the store holds no keys (never true for a store loaded from a file).
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

impl Authenticator for KeyStore {
    async fn authenticate(&self, credential: Option<&str>) -> Result<Principal, AuthError> {
        self.lookup(credential)
    }
}

impl KeyStore {
    /// The principal of the key `credential`, compared with every stored digest in constant
    /// time.
    pub fn lookup(&self, credential: Option<&str>) -> Result<Principal, AuthError> {
        let Some(credential) = credential else {
            return Err(AuthError::Missing);
        };
        let digest = Sha256::digest(credential.as_bytes());
        // Compare with every stored digest; no branch depends on a comparison result.
        let mut found = Choice::from(0);
        let mut index = 0u64;
        for (i, key) in self.keys.iter().enumerate() {
            let equal = digest.as_slice().ct_eq(&key.digest);
            index.conditional_assign(&(i as u64), equal);
            found |= equal;
        }
        if !bool::from(found) {
            return Err(AuthError::Invalid);
        }
        usize::try_from(index)
            .ok()
            .and_then(|i| self.keys.get(i))
            .map(|key| key.principal.clone())
            .ok_or(AuthError::Invalid)
    }
}

const NO_SCOPES: &str =
    "a key with no scopes can call nothing; add mcp:read, mcp:write or mcp:* to `scopes`";
const HASH_HINT: &str = "the hex SHA-256 of the key, e.g. from `printf %s \"$KEY\" | sha256sum`";

fn validate(file: KeysFile, problems: &mut Vec<KeyProblem>) -> Vec<StoredKey> {
    if file.keys.is_empty() {
        problems.push(KeyProblem::at(
            Location::UNKNOWN,
            None,
            "`keys` is empty, so every request would be refused; add at least one key".to_owned(),
        ));
    }
    let mut ids: HashMap<String, Location> = HashMap::new();
    let mut digests: HashMap<[u8; 32], String> = HashMap::new();
    let mut stored = Vec::with_capacity(file.keys.len());
    for entry in file.keys {
        let entry_at = entry.referenced;
        let entry = entry.value;
        let id = entry.id.value.trim().to_owned();
        let before = problems.len();
        let mut problem = |at: Location, message: String| {
            problems.push(KeyProblem::at(at, Some(&id), message));
        };

        if id.is_empty() {
            problem(
                entry.id.referenced,
                "`id` is empty; give every key a unique id (audit records name it)".to_owned(),
            );
        } else if let Some(first) = ids.get(&id) {
            problem(
                entry.id.referenced,
                format!(
                    "duplicate id (first used at line {}); give every key a unique id",
                    first.line()
                ),
            );
        } else {
            ids.insert(id.clone(), entry.id.referenced);
        }

        let principal = entry.principal.value.trim().to_owned();
        if principal.is_empty() {
            problem(
                entry.principal.referenced,
                "`principal` is empty; name who the key belongs to".to_owned(),
            );
        }

        let digest = match (&entry.key_sha256, &entry.key) {
            (Some(_), Some(plain)) => {
                problem(
                    plain.referenced,
                    "has both `key` and `key_sha256`; keep only `key_sha256` (`key` is the plain \
                     key, for development only)"
                        .to_owned(),
                );
                None
            }
            (None, None) => {
                problem(
                    entry_at,
                    format!(
                        "has neither `key_sha256` nor `key`; add `key_sha256:` with {HASH_HINT} \
                         (or `key:` with the plain key, for development only)"
                    ),
                );
                None
            }
            (Some(hash), None) => match parse_digest(&hash.value) {
                Ok(digest) if digest == EMPTY_SHA256 => {
                    problem(
                        hash.referenced,
                        "`key_sha256` is the SHA-256 of the empty string; hash the real key"
                            .to_owned(),
                    );
                    None
                }
                Ok(digest) => Some((digest, false)),
                Err(why) => {
                    problem(
                        hash.referenced,
                        format!("`key_sha256` {why}; it must be {HASH_HINT}"),
                    );
                    None
                }
            },
            (None, Some(plain)) if plain.value.is_empty() => {
                problem(plain.referenced, "`key` is empty".to_owned());
                None
            }
            (None, Some(plain)) => Some((Sha256::digest(plain.value.as_bytes()).into(), true)),
        };

        let scopes_at = entry.scopes.as_ref().map_or(entry_at, |s| s.referenced);
        let scopes = entry.scopes.map(|s| s.value).unwrap_or_default();
        if scopes.is_empty() {
            problem(scopes_at, NO_SCOPES.to_owned());
        } else if scopes.iter().any(|s| s.trim().is_empty()) {
            problem(
                scopes_at,
                "`scopes` holds an empty scope; remove it".to_owned(),
            );
        }
        if entry.plugins.iter().any(|p| p.trim().is_empty()) {
            problem(
                entry_at,
                "`plugins` holds an empty name; remove it".to_owned(),
            );
        }

        let rate_limit = entry.rate_limit.map(|r| (r.value, r.referenced));
        if let Some((limit, at)) = rate_limit
            && !(limit.is_finite() && limit > 0.0)
        {
            problem(
                at,
                format!(
                    "`rate_limit` is {limit}; it must be a positive number of calls per second \
                     (omit it to use the server default)"
                ),
            );
        }

        if let Some((digest, _)) = &digest
            && !id.is_empty()
        {
            if let Some(other) = digests.get(digest) {
                problem(
                    entry_at,
                    format!("has the same key as `{other}`; a key must identify exactly one entry"),
                );
            } else {
                digests.insert(*digest, id.clone());
            }
        }

        if problems.len() == before
            && let Some((digest, plain)) = digest
        {
            stored.push(StoredKey {
                digest,
                principal: Principal {
                    id: principal,
                    key_id: Some(id),
                    scopes,
                    plugins: entry.plugins,
                    rate_limit: rate_limit.map(|(limit, _)| limit),
                },
                plain,
            });
        }
    }
    stored
}

/// SHA-256 of the empty string.
const EMPTY_SHA256: [u8; 32] = [
    0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
    0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
];

fn parse_digest(text: &str) -> Result<[u8; 32], String> {
    let text = text.trim();
    let count = text.chars().count();
    if let Some((pos, c)) = text
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_hexdigit())
    {
        return Err(format!(
            "has a non-hexadecimal character {c:?} at position {}",
            pos + 1
        ));
    }
    if count != 64 {
        return Err(format!("has {count} hex digits, not 64"));
    }
    let mut digest = [0u8; 32];
    hex::decode_to_slice(text, &mut digest).map_err(|e| format!("is not hex: {e}"))?;
    Ok(digest)
}
