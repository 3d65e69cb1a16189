//! The client's response frame caps and the streaming id scanner: a frame within the cap
//! comes back byte for byte, one over it reports its full size, and neither the frame nor
//! the id found depends on how the bytes were split.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpgen_client::fuzzing::{capped_frame, scanned_id};

fuzz_target!(|data: &[u8]| {
    let [split, cap, rest @ ..] = data else {
        return;
    };
    let limit = usize::from(*cap) * 2;
    let at = usize::from(*split).min(rest.len());
    let (a, b) = rest.split_at(at);
    let whole = capped_frame(limit, &[rest]);
    assert_eq!(whole, capped_frame(limit, &[a, b]), "split at {at}");
    match &whole {
        (Some(bytes), None) => {
            assert!(bytes.len() <= limit);
            assert_eq!(bytes.as_slice(), rest);
        }
        (None, Some((size, _))) => {
            assert!(rest.len() > limit);
            assert_eq!(*size, rest.len() as u64);
        }
        other => panic!("a frame is complete or oversized, not {other:?}"),
    }
    let id = scanned_id(&[rest]);
    assert_eq!(id, scanned_id(&[a, b]), "id, split at {at}");
    let bytes: Vec<&[u8]> = rest.chunks(1).collect();
    assert_eq!(id, scanned_id(&bytes), "id, byte by byte");
});
