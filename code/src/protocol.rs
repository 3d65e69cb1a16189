//! What the server and a code-mode worker process say to each other over the worker's pipes.
//!
//! Each message is a frame: its length as 4 bytes (big-endian), then that many bytes of JSON.
//! The server writes to the worker's standard input; the worker writes to what was its
//! standard output, which it moves to a descriptor of its own before anything else runs, so
//! nothing printed in the worker can land in the protocol (see `worker`).
//!
//! A worker's life: it says [`FromWorker::Hello`]; the server answers [`ToWorker::Setup`] with
//! the limits; the worker confines itself and says [`FromWorker::Ready`]. Then, program after
//! program: [`ToWorker::Run`], any number of [`FromWorker::Call`] each answered by a
//! [`ToWorker::Reply`], and [`FromWorker::Done`]. Every message about a program carries its
//! `seq`, so a late reply never reaches the next program. The server stops a program with a
//! signal (`SIGUSR1`), not a message: the worker reads messages only while its program waits.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::report::Failure;

/// The environment variable that starts the server's own binary as a worker.
pub(crate) const WORKER_ENV: &str = "MCPGEN_CODE_WORKER";

/// What a worker says first, so that a binary that is not one is told apart at once.
pub(crate) const MAGIC: &str = "mcpgen-code-worker";

/// The environment variable that lets a worker's test-only hooks run (debug builds only).
pub(crate) const HOOKS_ENV: &str = "MCPGEN_CODE_TEST_HOOKS";

/// The protocol's version; a worker of another version is refused.
pub(crate) const VERSION: u32 = 1;

/// The largest frame either side accepts: a program, an inner call's reply or an outcome (the
/// server then checks each against its own limits).
const MAX_FRAME: usize = 64 * 1024 * 1024;

/// A message from the server to a worker.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub(crate) enum ToWorker {
    /// The limits every program of this worker runs under.
    Setup {
        memory: usize,
        max_calls: u32,
        max_output: usize,
    },
    /// Run a program, which must end within `timeout_ms`.
    Run {
        seq: u64,
        code: String,
        timeout_ms: u64,
    },
    /// How the inner call `id` of program `seq` ended: its value as JSON text (`ok`), or the
    /// error message its promise is rejected with.
    Reply {
        seq: u64,
        id: u32,
        ok: bool,
        payload: String,
    },
}

/// A message from a worker to the server.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub(crate) enum FromWorker {
    /// The first words of a worker.
    Hello { magic: String, version: u32 },
    /// Set up: `unconfined` says why the worker could not confine itself, if it could not.
    Ready { unconfined: Option<String> },
    /// Program `seq` asks for `tools.<name>(args)`, its arguments as JSON text.
    Call {
        seq: u64,
        id: u32,
        name: String,
        args: String,
    },
    /// Program `seq` ended.
    Done {
        seq: u64,
        result: Result<String, Failure>,
        logs: Vec<String>,
    },
}

/// Why a frame could not be read or written.
#[derive(Debug)]
pub(crate) enum FrameError {
    /// The other side closed its end (or died).
    Closed,
    /// An I/O error other than the end of the stream.
    Io(std::io::Error),
    /// The frame is not a message of this protocol.
    Invalid(String),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Closed => f.write_str("the pipe was closed"),
            Self::Io(error) => write!(f, "{error}"),
            Self::Invalid(why) => f.write_str(why),
        }
    }
}

fn io_error(error: std::io::Error) -> FrameError {
    if error.kind() == std::io::ErrorKind::UnexpectedEof {
        FrameError::Closed
    } else {
        FrameError::Io(error)
    }
}

fn encode<T: Serialize>(message: &T) -> Result<Vec<u8>, FrameError> {
    let body = serde_json::to_vec(message).map_err(|e| FrameError::Invalid(e.to_string()))?;
    let length = u32::try_from(body.len())
        .ok()
        .filter(|&n| (n as usize) <= MAX_FRAME)
        .ok_or_else(|| FrameError::Invalid(format!("a frame of {} bytes", body.len())))?;
    let mut frame = Vec::with_capacity(body.len() + 4);
    frame.extend_from_slice(&length.to_be_bytes());
    frame.extend_from_slice(&body);
    Ok(frame)
}

fn length_of(head: [u8; 4]) -> Result<usize, FrameError> {
    let length = u32::from_be_bytes(head) as usize;
    if length > MAX_FRAME {
        // Also what the first bytes of a binary printing text instead of speaking look like.
        return Err(FrameError::Invalid(format!(
            "a frame of {length} bytes (starting {:?}), more than the protocol allows",
            String::from_utf8_lossy(&head)
        )));
    }
    Ok(length)
}

fn decode<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, FrameError> {
    serde_json::from_slice(body).map_err(|e| {
        FrameError::Invalid(format!(
            "not a message of the protocol ({e}): {:?}",
            String::from_utf8_lossy(&body[..body.len().min(80)])
        ))
    })
}

/// Writes `message` as one frame (blocking).
pub(crate) fn write_sync<T: Serialize>(to: &mut impl Write, message: &T) -> Result<(), FrameError> {
    let frame = encode(message)?;
    to.write_all(&frame).map_err(io_error)?;
    to.flush().map_err(io_error)
}

/// Reads one frame (blocking).
pub(crate) fn read_sync<T: for<'de> Deserialize<'de>>(
    from: &mut impl Read,
) -> Result<T, FrameError> {
    let mut head = [0; 4];
    from.read_exact(&mut head).map_err(io_error)?;
    let mut body = vec![0; length_of(head)?];
    from.read_exact(&mut body).map_err(io_error)?;
    decode(&body)
}

/// Writes `message` as one frame.
pub(crate) async fn write<T: Serialize>(
    to: &mut (impl AsyncWrite + Unpin),
    message: &T,
) -> Result<(), FrameError> {
    let frame = encode(message)?;
    to.write_all(&frame).await.map_err(io_error)?;
    to.flush().await.map_err(io_error)
}

/// Frames read from a stream, as they come; [`Frames::next`] is cancel-safe (what was read
/// stays in the buffer), so it can wait in a `select!`.
pub(crate) struct Frames<R> {
    from: R,
    buffer: Vec<u8>,
}

impl<R: AsyncRead + Unpin> Frames<R> {
    /// The frames of `from`.
    pub(crate) fn new(from: R) -> Self {
        Self {
            from,
            buffer: Vec::with_capacity(8 * 1024),
        }
    }

    /// The next message.
    pub(crate) async fn next<T: for<'de> Deserialize<'de>>(&mut self) -> Result<T, FrameError> {
        loop {
            if let Some(head) = self.buffer.first_chunk::<4>() {
                let length = length_of(*head)?;
                if self.buffer.len() >= 4 + length {
                    let message = decode(&self.buffer[4..4 + length]);
                    self.buffer.drain(..4 + length);
                    return message;
                }
                self.buffer.reserve(4 + length - self.buffer.len());
            }
            if self.buffer.capacity() == self.buffer.len() {
                self.buffer.reserve(8 * 1024);
            }
            if self
                .from
                .read_buf(&mut self.buffer)
                .await
                .map_err(io_error)?
                == 0
            {
                return Err(FrameError::Closed);
            }
        }
    }
}
