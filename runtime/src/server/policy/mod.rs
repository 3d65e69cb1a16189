//! The rules a request is held to besides authentication, configured once: rate limits per
//! principal and per tool (in process, or shared through Redis) and the Host and Origin
//! checks against DNS rebinding.

pub(crate) mod rate;
#[cfg(feature = "http")]
pub(crate) mod rebinding;
#[cfg(feature = "redis")]
pub(crate) mod shared_rate;
