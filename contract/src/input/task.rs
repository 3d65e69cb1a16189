//! The questions of a task's call: each waits in the task (status `input_required`) until a
//! `tasks/update` answers it.

use rmcp::model::{ClientCapabilities, InputRequest};
use serde_json::Value;

use super::{ClientCapability, InputError, invalid_question};
use crate::tasks::TaskRun;

/// The questions of a task's call, with what the client declared when it started the task.
#[derive(Debug)]
#[doc(hidden)]
pub struct TaskAsking {
    #[doc(hidden)]
    pub run: TaskRun,
    #[doc(hidden)]
    pub capabilities: Option<ClientCapabilities>,
}

impl TaskAsking {
    /// Asks `request` (which needs `capability`) under `key` and waits for the answer.
    pub(super) async fn ask(
        &self,
        key: &str,
        capability: ClientCapability,
        request: impl FnOnce() -> Result<InputRequest, String>,
    ) -> Result<Value, InputError> {
        if !capability.declared_in(self.capabilities.as_ref()) {
            return Err(InputError::MissingCapability {
                key: key.to_owned(),
                capability,
            });
        }
        let request = request().map_err(|message| invalid_question(key, message))?;
        self.run
            .ask(key, request)
            .await
            .map_err(|message| InputError::Client {
                key: key.to_owned(),
                message,
            })
    }
}
