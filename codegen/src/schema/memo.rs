//! Referenced schemas converted once per document instead of once per tool.
//!
//! Each tool gets its own [`SchemaConverter`], and the schemas its arguments and output refer
//! to are converted into that converter's `$defs`. In a large document most tools share a few
//! big schemas (Microsoft Graph's `entity`, with thousands of subtypes in its discriminator
//! mapping), and converting them again for every tool made generation quadratic in practice.
//! A [`SharedDefs`] remembers, per direction, what converting a referenced schema produced: the
//! schema, its warnings and the references it reserved. A converter that shares it replays
//! that instead of converting again, which gives the same schemas and warnings as converting.
//!
//! The one conversion whose outcome depends on the converter's state is hoisting schema-local
//! `$defs` (a name hoisted earlier is not hoisted again); once any conversion hoists, sharing
//! stops for the rest of the document, and [`SharedDefs::stopped`] tells.
//!
//! The converters sharing one [`SharedDefs`] may run on several threads: a recorded conversion
//! is the same whichever converter made it, so the order they record in does not matter.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use super::{Direction, NO_NAMES, SchemaConverter};
use crate::error::Warning;

/// Conversions of referenced schemas shared by the converters of one document (see the
/// module documentation). Converters opt in with [`SchemaConverter::with_shared_defs`].
#[derive(Default)]
pub struct SharedDefs<'a> {
    entries: Mutex<HashMap<Key, Arc<Recorded<'a>>>>,
    /// Set when a conversion hoisted schema-local `$defs`: nothing is shared after that.
    stopped: AtomicBool,
}

impl std::fmt::Debug for SharedDefs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedDefs")
            .field("entries", &self.entries().len())
            .field("stopped", &self.stopped())
            .finish()
    }
}

impl SharedDefs<'_> {
    /// Nothing converted yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a conversion hoisted schema-local `$defs`, which stopped the sharing: from then
    /// on the outcome of a conversion may depend on the converters that ran before.
    pub fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }
}

impl<'a> SharedDefs<'a> {
    /// The recorded conversions (a panic elsewhere leaves them usable: each is inserted whole).
    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Arc<Recorded<'a>>>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Direction, depth limit and `$defs` name of a converted schema.
type Key = (Direction, usize, String);

/// What converting one referenced schema produced.
pub(super) struct Recorded<'a> {
    value: Value,
    warnings: Vec<Warning>,
    reserved: Vec<Reserved<'a>>,
}

/// A reference the conversion reserved a `$defs` name for: (name, target, target's pointer).
pub(super) type Reserved<'a> = (String, &'a Value, String);

impl<'a> SchemaConverter<'a> {
    /// Converts the referenced schema `target` (at `pointer`), reserved as `name`: from the
    /// shared conversions when this converter has them, else converting it (and, when sharing,
    /// recording the outcome).
    pub(super) fn convert_def(&mut self, name: &str, target: &'a Value, pointer: &str) -> Value {
        let Some(shared) = self.shared.filter(|s| !s.stopped()) else {
            return self.conv(target, pointer, 0, &NO_NAMES);
        };
        let key = (self.direction, self.max_depth, name.to_owned());
        let known = shared.entries().get(&key).cloned();
        if let Some(recorded) = known {
            self.warnings.extend(recorded.warnings.iter().cloned());
            for (name, target, pointer) in &recorded.reserved {
                self.reserve(name, target, pointer);
            }
            return recorded.value.clone();
        }
        let warnings_before = self.warnings.len();
        let outer = self.recording.replace(Vec::new());
        let value = self.conv(target, pointer, 0, &NO_NAMES);
        let reserved = std::mem::replace(&mut self.recording, outer).unwrap_or_default();
        if !shared.stopped() {
            let recorded = Recorded {
                value: value.clone(),
                warnings: self.warnings[warnings_before..].to_vec(),
                reserved,
            };
            shared.entries().insert(key, Arc::new(recorded));
        }
        value
    }

    /// Reserves `name` for `target` and queues it, unless the name is already taken.
    pub(super) fn reserve(&mut self, name: &str, target: &'a Value, pointer: &str) {
        if self.defs.contains_key(name) {
            return;
        }
        self.defs.insert(name.to_owned(), Value::Bool(true));
        self.pending
            .insert(name.to_owned(), (target, pointer.to_owned()));
    }

    /// Notes that schema-local `$defs` were hoisted: sharing stops (see the module docs).
    pub(super) fn stop_sharing(&mut self) {
        if let Some(shared) = self.shared {
            shared.stopped.store(true, Ordering::SeqCst);
        }
    }
}
