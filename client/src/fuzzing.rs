//! Entry points for the fuzz targets in `fuzz/` (feature `fuzzing`, not part of the API): the
//! legacy SSE parser and the response frame caps, which are private to the crate.

use crate::transport::frame::{Capped, Frame, IdScanner};
use crate::transport::sse::SseParser;

/// One event as the SSE parser dispatched it: its name, and its data or, when the data went
/// over the cap, the size it had and the JSON-RPC id found in it (as JSON text).
#[derive(Debug, PartialEq, Eq)]
pub struct FuzzEvent {
    /// The event's name (`message` when the stream named none).
    pub name: String,
    /// The data, if within the cap.
    pub data: Option<Vec<u8>>,
    /// The size of data over the cap, and the id seen in it.
    pub oversized: Option<(u64, Option<String>)>,
}

/// A finished frame: its bytes if within the cap, else its size and the id found in it.
pub type FuzzFrame = (Option<Vec<u8>>, Option<(u64, Option<String>)>);

fn frame_parts(frame: Frame) -> FuzzFrame {
    match frame {
        Frame::Complete(bytes) => (Some(bytes), None),
        Frame::Oversized { size, id } => (
            None,
            Some((size, id.and_then(|id| serde_json::to_string(&id).ok()))),
        ),
    }
}

/// Feeds `chunks` in order to a legacy SSE parser whose data cap is `limit`; the events.
pub fn sse_events(limit: usize, chunks: &[&[u8]]) -> Vec<FuzzEvent> {
    let mut parser = SseParser::new(limit);
    chunks
        .iter()
        .flat_map(|chunk| parser.feed(chunk))
        .map(|event| {
            let (data, oversized) = frame_parts(event.data);
            FuzzEvent {
                name: event.name,
                data,
                oversized,
            }
        })
        .collect()
}

/// Pushes `chunks` into one capped frame of `limit` bytes and finishes it: the bytes if
/// within the cap, else the size and the id found.
pub fn capped_frame(limit: usize, chunks: &[&[u8]]) -> FuzzFrame {
    let mut capped = Capped::new(limit);
    for chunk in chunks {
        capped.push(chunk);
    }
    frame_parts(capped.finish())
}

/// The top-level `"id"` the streaming scanner finds in `chunks` (as JSON text).
pub fn scanned_id(chunks: &[&[u8]]) -> Option<String> {
    let mut scanner = IdScanner::default();
    for chunk in chunks {
        scanner.feed(chunk);
    }
    scanner.id().and_then(|id| serde_json::to_string(&id).ok())
}
