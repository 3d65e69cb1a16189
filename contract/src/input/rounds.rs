//! The rounds of stateless calls (2026-07-28): the answers a repeated call brings back, the
//! questions a run of the handler asks, and the `requestState` sealed with the server's key
//! that carries answers from round to round.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, InputRequest, InputRequests, RequestStateCodec, SealOptions,
};
use serde_json::{Map, Value};

use super::{ClientCapability, InputError};

/// How long a sealed `requestState` stays valid: the time a user has to answer a round.
const STATE_TTL: Duration = Duration::from_secs(60 * 60);

/// What binds a stateless request's sealed state to the request: who (`principal`) asks for
/// what (`target`: `tools/call NAME`, `prompts/get NAME`) with which arguments
/// (`args_sha256`: their [`args_digest`](mcpgen_audit::args_digest), the one the audit record
/// carries). A state made for another caller, target or argument set does not open.
#[doc(hidden)]
pub fn binding(principal: &str, target: &str, args_sha256: &str) -> Vec<u8> {
    format!("{principal}\n{target}\n{args_sha256}").into_bytes()
}

/// The rounds of one stateless call: the answers the client brought, and what this run of
/// the tool asked.
#[derive(Debug)]
#[doc(hidden)]
pub struct Rounds {
    capabilities: Option<ClientCapabilities>,
    /// This round's `inputResponses`.
    responses: BTreeMap<String, Value>,
    /// The sealed state the client echoed, unopened.
    request_state: Option<String>,
    record: Mutex<Record>,
}

#[derive(Debug, Default)]
struct Record {
    /// Answers of earlier rounds (from the opened state), then this round's.
    answers: BTreeMap<String, Value>,
    /// Questions without an answer yet.
    asked: InputRequests,
    /// Answers the tool read: carried into the next round's state.
    used: BTreeMap<String, Value>,
    /// Why the call must be refused, if it must.
    refusal: Option<Refusal>,
}

/// A stateless call that cannot go on: answered with a JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
#[doc(hidden)]
pub enum Refusal {
    /// The client did not declare a capability a question needs (`-32021`).
    MissingCapability(ClientCapability),
    /// An answer or the echoed state is not valid (`-32602`).
    InvalidParams(String),
}

impl Refusal {
    /// The JSON-RPC error answering the call.
    #[doc(hidden)]
    pub fn to_error(&self) -> ErrorData {
        match self {
            Self::MissingCapability(capability) => {
                let mut required = Map::new();
                required.insert(capability.as_str().into(), Value::Object(Map::new()));
                match serde_json::from_value::<ClientCapabilities>(Value::Object(required)) {
                    Ok(required) => ErrorData::missing_required_client_capability(required),
                    Err(e) => ErrorData::internal_error(
                        format!("the missing `{capability}` capability cannot be named: {e}"),
                        None,
                    ),
                }
            }
            Self::InvalidParams(message) => ErrorData::invalid_params(message.clone(), None),
        }
    }
}

/// What a stateless call asks of the client before it can finish.
#[derive(Debug)]
#[doc(hidden)]
pub struct InputRequired {
    /// The questions, by key.
    #[doc(hidden)]
    pub requests: InputRequests,
    /// The sealed state to echo back.
    #[doc(hidden)]
    pub request_state: String,
}

impl InputRequired {
    /// The `input_required` result.
    #[doc(hidden)]
    pub fn into_result(self) -> rmcp::model::InputRequiredResult {
        rmcp::model::InputRequiredResult::new(Some(self.requests), Some(self.request_state))
    }
}

/// How a stateless call ends once its tool has run and failed.
#[derive(Debug)]
#[doc(hidden)]
pub enum RoundEnd {
    /// The tool asked questions: answer `input_required`.
    Ask(InputRequired),
    /// Answer with an error.
    Refuse(Refusal),
}

impl Rounds {
    /// The rounds of a call from a client that declared `capabilities`, bringing back
    /// `responses` and the sealed `request_state` of the round before, if any.
    pub(super) fn new(
        capabilities: Option<ClientCapabilities>,
        responses: BTreeMap<String, Value>,
        request_state: Option<String>,
    ) -> Self {
        Self {
            capabilities,
            responses,
            request_state,
            record: Mutex::default(),
        }
    }

    /// Whether the call brings answers or state back: a later round, not the first.
    pub(super) fn continues(&self) -> bool {
        !self.responses.is_empty() || self.request_state.is_some()
    }

    /// What the client declared.
    pub(super) fn capabilities(&self) -> Option<&ClientCapabilities> {
        self.capabilities.as_ref()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Record> {
        self.record.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens the echoed state (bound to `binding`: who calls what with which arguments) and
    /// takes its answers, then this round's. A state that fails verification refuses the call.
    #[doc(hidden)]
    pub fn open(&self, states: &RequestStates, binding: &[u8]) -> Result<(), Refusal> {
        let mut answers = match &self.request_state {
            Some(sealed) => states
                .open(binding, sealed)
                .map_err(Refusal::InvalidParams)?,
            None => BTreeMap::new(),
        };
        for (key, value) in &self.responses {
            answers.entry(key.clone()).or_insert_with(|| value.clone());
        }
        self.lock().answers = answers;
        Ok(())
    }

    /// What the call must answer instead of the tool's failure, if the tool asked something
    /// it has no answer to or got an answer it could not use.
    #[doc(hidden)]
    pub fn end(&self, states: &RequestStates, binding: &[u8]) -> Option<RoundEnd> {
        let mut record = self.lock();
        if let Some(refusal) = record.refusal.take() {
            return Some(RoundEnd::Refuse(refusal));
        }
        if record.asked.is_empty() {
            return None;
        }
        let requests = std::mem::take(&mut record.asked);
        Some(match states.seal(binding, &record.used) {
            Ok(request_state) => RoundEnd::Ask(InputRequired {
                requests,
                request_state,
            }),
            Err(message) => RoundEnd::Refuse(Refusal::InvalidParams(message)),
        })
    }

    /// The answer to `key`, or the question recorded for the next round.
    pub(super) fn ask(
        &self,
        key: &str,
        capability: ClientCapability,
        request: impl FnOnce() -> Result<InputRequest, String>,
    ) -> Result<Value, InputError> {
        let mut record = self.lock();
        if let Some(answer) = record.answers.get(key).cloned() {
            record.used.insert(key.to_owned(), answer.clone());
            return Ok(answer);
        }
        if !capability.declared_in(self.capabilities.as_ref()) {
            record.refusal = Some(Refusal::MissingCapability(capability));
            return Err(InputError::MissingCapability {
                key: key.to_owned(),
                capability,
            });
        }
        let request = request().map_err(|message| InputError::InvalidQuestion {
            key: key.to_owned(),
            message,
        })?;
        record.asked.insert(key.to_owned(), request);
        Err(InputError::InputRequired {
            key: key.to_owned(),
        })
    }

    /// Records that the answer to `key` cannot be used.
    pub(super) fn invalid_answer(&self, key: &str, message: &str) {
        self.lock().refusal = Some(Refusal::InvalidParams(format!(
            "inputResponses[\"{key}\"]: {message}"
        )));
    }
}

/// Seals and opens the `requestState` of stateless calls with the server's key.
#[doc(hidden)]
pub struct RequestStates {
    codec: RequestStateCodec,
}

impl std::fmt::Debug for RequestStates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestStates").finish_non_exhaustive()
    }
}

/// The shortest key [`RequestStates::new`] takes, in bytes.
#[doc(hidden)]
pub const MIN_KEY_BYTES: usize = RequestStateCodec::MIN_KEY_LENGTH;

impl RequestStates {
    /// States sealed with `key`, or with a random key for this process when `None`; states
    /// sealed with any of `previous` (keys being rotated out) still open.
    #[doc(hidden)]
    pub fn new(key: Option<&[u8]>, previous: &[Vec<u8>]) -> Result<Self, String> {
        let key = match key {
            Some(key) => key.to_vec(),
            None => random_key(),
        };
        if previous.is_empty() {
            return RequestStateCodec::try_new(key)
                .map(|codec| Self { codec })
                .map_err(|e| e.to_string());
        }
        // Key ids derived from the keys, so that every replica names a key alike whatever
        // order it was given in.
        let kid = |key: &[u8]| {
            mcpgen_identity::auth::hash_key(&String::from_utf8_lossy(key))[..16].to_owned()
        };
        let active = kid(&key);
        let mut ring: Vec<(String, Vec<u8>)> = vec![(active.clone(), key)];
        for old in previous {
            let id = kid(old);
            if !ring.iter().any(|(have, _)| *have == id) {
                ring.push((id, old.clone()));
            }
        }
        let ids: Vec<String> = ring.iter().map(|(id, _)| id.clone()).collect();
        let mut codec =
            RequestStateCodec::new_with_keyring(active, ring).map_err(|e| e.to_string())?;
        // States sealed before the rotation, by a single-key server, carry no key id.
        for id in ids {
            codec = codec.with_rs1_fallback(id).map_err(|e| e.to_string())?;
        }
        Ok(Self { codec })
    }

    fn seal(&self, binding: &[u8], answers: &BTreeMap<String, Value>) -> Result<String, String> {
        let options = SealOptions::new().associated_data(binding).ttl(STATE_TTL);
        self.codec
            .seal_json_with(answers, &options)
            .map_err(|e| format!("the request state could not be sealed: {e}"))
    }

    fn open(&self, binding: &[u8], sealed: &str) -> Result<BTreeMap<String, Value>, String> {
        self.codec.open_json_with(sealed, binding).map_err(|e| {
            format!(
                "requestState refused: {e}; it must be echoed unchanged, by the same caller, \
                 for the same tool and arguments"
            )
        })
    }
}

/// 64 bytes from the operating system's random source (through random UUIDs).
fn random_key() -> Vec<u8> {
    let mut key = Vec::with_capacity(128);
    for _ in 0..4 {
        key.extend_from_slice(uuid::Uuid::new_v4().simple().to_string().as_bytes());
    }
    key
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::RequestStates;

    const OLD: &[u8] = b"the old request-state key, 32+ bytes long";
    const NEW: &[u8] = b"the new request-state key, 32+ bytes long";

    fn answers() -> BTreeMap<String, serde_json::Value> {
        BTreeMap::from([("topic".to_owned(), json!("rust"))])
    }

    #[test]
    fn rotated_keys_seal_with_the_newest_and_open_with_any() {
        let old = RequestStates::new(Some(OLD), &[]).unwrap_or_else(|e| panic!("{e}"));
        let rotated =
            RequestStates::new(Some(NEW), &[OLD.to_vec()]).unwrap_or_else(|e| panic!("{e}"));
        let new_only = RequestStates::new(Some(NEW), &[]).unwrap_or_else(|e| panic!("{e}"));
        let sealed_before = old.seal(b"caller", &answers()).unwrap_or_default();
        // A state sealed before the rotation still opens.
        assert_eq!(rotated.open(b"caller", &sealed_before), Ok(answers()));
        assert!(rotated.open(b"someone else", &sealed_before).is_err());
        // The rotated server seals with the new key: a server with only the new key opens it
        // once it knows the key id, a server with only the old one does not.
        let sealed_after = rotated.seal(b"caller", &answers()).unwrap_or_default();
        assert_eq!(rotated.open(b"caller", &sealed_after), Ok(answers()));
        assert!(old.open(b"caller", &sealed_after).is_err());
        let new_ring =
            RequestStates::new(Some(NEW), &[NEW.to_vec()]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(new_ring.open(b"caller", &sealed_after), Ok(answers()));
        // Without the old key, the old state is refused.
        assert!(new_only.open(b"caller", &sealed_before).is_err());
    }
}
