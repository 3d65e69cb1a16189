//! The arguments of one call as the request builders see them: which were given, and what is
//! wrong with them, collected so they are reported together.

use mcpgen_core::tool::{ArgBinding, Location};
use serde_json::{Map, Value};

use crate::style;

/// What is wrong with a call's arguments, collected so they are reported together.
#[derive(Default)]
pub(super) struct Problems {
    missing: Vec<String>,
    other: Vec<String>,
}

impl Problems {
    /// Records a required argument that was not given.
    pub(super) fn missing(&mut self, arg: &ArgBinding) {
        let place = match arg.location {
            Location::Body => "request body".to_owned(),
            location => format!(
                "{} parameter `{}`",
                style::location_name(location),
                arg.wire
            ),
        };
        self.missing.push(format!("`{}` ({place})", arg.arg));
    }

    /// Records any other problem.
    pub(super) fn push(&mut self, problem: String) {
        self.other.push(problem);
    }

    /// `ok` when nothing is wrong, else one message listing the missing arguments first.
    pub(super) fn into_result<T>(self, ok: T) -> Result<T, String> {
        let mut parts = Vec::new();
        match self.missing.len() {
            0 => {}
            1 => parts.push(format!(
                "missing required argument {}",
                self.missing.join("")
            )),
            _ => parts.push(format!(
                "missing required arguments {}",
                self.missing.join(", ")
            )),
        }
        parts.extend(self.other);
        if parts.is_empty() {
            Ok(ok)
        } else {
            Err(parts.join("; "))
        }
    }
}

/// The value given for `arg`, if any; `null` counts as not given.
pub(super) fn provided<'a>(args: &'a Map<String, Value>, arg: &ArgBinding) -> Option<&'a Value> {
    args.get(arg.arg).filter(|v| !v.is_null())
}
