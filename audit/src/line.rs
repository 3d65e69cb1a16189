//! An audit record as one JSON line, written straight into the line's buffer.
//!
//! The line is what `serde_json::to_writer` writes for the [`AuditEvent`] (the same fields in
//! the same order, the same escapes), without going through serde for every field: most of a
//! record's text (ids, digests, names, the time) needs no escape, and is copied as it is.

use super::event::AuditEvent;

/// Appends `event` as JSON (no newline) to `out`.
pub(crate) fn write_json(event: &AuditEvent, out: &mut Vec<u8>) -> serde_json::Result<()> {
    out.extend_from_slice(b"{\"call_id\":");
    string(out, &event.call_id)?;
    out.extend_from_slice(b",\"parent_call_id\":");
    optional_string(out, event.parent_call_id.as_deref())?;
    out.extend_from_slice(b",\"code_sha256\":");
    optional_string(out, event.code_sha256.as_deref())?;
    out.extend_from_slice(b",\"inner_calls\":");
    optional_number(out, event.inner_calls.map(u64::from));
    out.extend_from_slice(b",\"time\":");
    string(out, &event.time)?;
    out.extend_from_slice(b",\"request_id\":");
    optional_string(out, event.request_id.as_deref())?;
    out.extend_from_slice(b",\"principal\":");
    optional_string(out, event.principal.as_deref())?;
    out.extend_from_slice(b",\"key_id\":");
    optional_string(out, event.key_id.as_deref())?;
    out.extend_from_slice(b",\"tool\":");
    string(out, &event.tool)?;
    out.extend_from_slice(b",\"operation_id\":");
    optional_string(out, event.operation_id.as_deref())?;
    out.extend_from_slice(b",\"status\":\"");
    out.extend_from_slice(event.status.as_str().as_bytes());
    out.extend_from_slice(b"\",\"duration_ms\":");
    number(out, event.duration_ms);
    out.extend_from_slice(b",\"upstream_status\":");
    optional_number(out, event.upstream_status.map(u64::from));
    out.extend_from_slice(b",\"args_sha256\":");
    string(out, &event.args_sha256)?;
    out.extend_from_slice(b",\"args\":");
    match &event.args {
        Some(args) => serde_json::to_writer(&mut *out, args)?,
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"error\":");
    optional_string(out, event.error.as_deref())?;
    out.extend_from_slice(b",\"trace_id\":");
    optional_string(out, event.trace_id.as_deref())?;
    out.push(b'}');
    Ok(())
}

/// `s` as a JSON string: copied between quotes when nothing in it needs an escape, else
/// written by `serde_json`.
fn string(out: &mut Vec<u8>, s: &str) -> serde_json::Result<()> {
    // Every byte is looked at (no early exit), which lets the compiler check many at once.
    let escapes = s.bytes().fold(false, |any, b| {
        any | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if !escapes {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        Ok(())
    } else {
        serde_json::to_writer(&mut *out, s)
    }
}

fn optional_string(out: &mut Vec<u8>, s: Option<&str>) -> serde_json::Result<()> {
    match s {
        Some(s) => string(out, s),
        None => {
            out.extend_from_slice(b"null");
            Ok(())
        }
    }
}

fn number(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

fn optional_number(out: &mut Vec<u8>, n: Option<u64>) {
    match n {
        Some(n) => number(out, n),
        None => out.extend_from_slice(b"null"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::AuditStatus;

    fn event() -> AuditEvent {
        AuditEvent {
            call_id: "0b7c2f6e-4a1d-4c1e-9a51-2f7c1e0d9b3a".to_owned(),
            parent_call_id: None,
            code_sha256: None,
            inner_calls: None,
            time: "2026-11-27T12:00:00.123Z".to_owned(),
            request_id: Some("7".to_owned()),
            principal: Some("alice".to_owned()),
            key_id: None,
            tool: "synaplan_list_prompts".to_owned(),
            operation_id: Some("get_api_prompts_list".to_owned()),
            status: AuditStatus::Ok,
            duration_ms: 0,
            upstream_status: Some(200),
            args_sha256: "ab".repeat(32),
            args: None,
            error: None,
            trace_id: None,
        }
    }

    fn same_as_serde(event: &AuditEvent) {
        let mut ours = Vec::new();
        write_json(event, &mut ours).unwrap();
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            serde_json::to_string(event).unwrap()
        );
    }

    #[test]
    fn a_plain_record_is_what_serde_json_writes() {
        same_as_serde(&event());
    }

    #[test]
    fn every_field_set_and_every_escape_is_what_serde_json_writes() {
        let mut e = event();
        e.parent_call_id = Some("p\"arent".to_owned());
        e.code_sha256 = Some("c".repeat(64));
        e.inner_calls = Some(u32::MAX);
        e.request_id = Some("line\nbreak\tand \\ \u{1} \u{7f} é ☃".to_owned());
        e.principal = Some("</script>".to_owned());
        e.key_id = Some(String::new());
        e.tool = "t\u{0}ool".to_owned();
        e.status = AuditStatus::UpstreamError;
        e.duration_ms = u64::MAX;
        e.upstream_status = Some(503);
        e.args = Some(serde_json::json!({"b": [1, 2.5, null], "a": "x\"y"}));
        e.error = Some("upstream said \"no\"".to_owned());
        e.trace_id = Some("0af7651916cd43dd8448eb211c80319c".to_owned());
        same_as_serde(&e);
        for status in AuditStatus::ALL {
            e.status = status;
            e.duration_ms = 10;
            same_as_serde(&e);
        }
    }
}
