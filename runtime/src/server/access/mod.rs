//! Who may come in, and how a refusal is answered: authentication of each HTTP request,
//! OAuth challenges and metadata, the audit record of a refused request, and the HTTP
//! replies of refusals.

pub(crate) mod authn;
#[cfg(feature = "oauth")]
pub(crate) mod oauth;
pub(crate) mod prefix;
pub(crate) mod refused;
pub(crate) mod reply;
