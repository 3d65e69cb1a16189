//! The slots programs run in: [`CodeLimits::max_concurrent`] for all callers together, and
//! [`CodeLimits::max_per_principal`] for each principal, so that one caller running runaway
//! programs leaves room for the others. A program waits for both within its own deadline.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::limits::{CodeLimits, Limit};

/// The slots of one code mode.
#[derive(Debug)]
pub(crate) struct Slots {
    all: Arc<Semaphore>,
    per_principal: usize,
    principals: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// A program's two slots, given back when it is dropped.
#[derive(Debug)]
pub(crate) struct Slot {
    _all: OwnedSemaphorePermit,
    _own: OwnedSemaphorePermit,
}

impl Slots {
    /// The slots `limits` allow.
    pub(crate) fn new(limits: &CodeLimits) -> Self {
        Self {
            all: Arc::new(Semaphore::new(limits.max_concurrent.max(1))),
            per_principal: limits.per_principal(),
            principals: Mutex::new(HashMap::new()),
        }
    }

    /// Slots for a program of `principal`, waiting for them until `deadline`; the limit that
    /// had no slot free in time otherwise.
    pub(crate) async fn take(&self, principal: &str, deadline: Instant) -> Result<Slot, Limit> {
        let own = {
            let mut principals = self
                .principals
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            // Principals with no program running are forgotten (only the map holds theirs).
            principals.retain(|_, slots| Arc::strong_count(slots) > 1);
            Arc::clone(
                principals
                    .entry(principal.to_owned())
                    .or_insert_with(|| Arc::new(Semaphore::new(self.per_principal))),
            )
        };
        let own = tokio::time::timeout_at(deadline.into(), own.acquire_owned())
            .await
            .ok()
            .and_then(Result::ok)
            .ok_or(Limit::PerPrincipal)?;
        let all = tokio::time::timeout_at(deadline.into(), Arc::clone(&self.all).acquire_owned())
            .await
            .ok()
            .and_then(Result::ok)
            .ok_or(Limit::Concurrency)?;
        Ok(Slot {
            _all: all,
            _own: own,
        })
    }
}
