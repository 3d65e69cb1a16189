//! Tool names as a client sent them, echoed back in messages, logs and audit records: cut to
//! a length fit for them (a name that is not in the catalog comes from the client as it is).

/// Longest tool name written to an audit record or echoed in an error (names of unknown tools
/// come from the client).
const MAX_ECHOED_NAME: usize = 128;

/// `name`, cut to a length fit for logs and messages.
pub(crate) fn echoed(name: &str) -> String {
    if name.chars().count() <= MAX_ECHOED_NAME {
        name.to_owned()
    } else {
        let mut s: String = name.chars().take(MAX_ECHOED_NAME).collect();
        s.push('…');
        s
    }
}
