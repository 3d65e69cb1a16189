//! Without the `http` feature: a `serve_http` whose every call fails to compile with an error
//! that names the feature to enable, where rustc would otherwise say the method does not exist
//! and suggest `serve_io`.

use std::future::Future;

use crate::server::error::ServerError;
use crate::server::state::server::Server;

mod sealed {
    /// Implemented by nothing: [`super::HttpFeature`] cannot be implemented outside.
    pub trait Sealed {}
}

/// Implemented by nothing: the bound of [`Server::serve_http`] without the `http` feature,
/// whose message says to enable it.
#[diagnostic::on_unimplemented(
    message = "`Server::serve_http` needs mcpgen's `http` feature",
    label = "Streamable HTTP is not compiled in",
    note = "enable it: `mcpgen = {{ …, features = [\"http\"] }}` in Cargo.toml (stdio needs only the default `stdio`)"
)]
pub trait HttpFeature: sealed::Sealed {}

impl Server {
    /// Serving Streamable HTTP needs `mcpgen`'s `http` feature: without it, every call of
    /// this method fails to compile, with an error that says so.
    /// (Its future does not name `A`, so a call gets one error, not one per use of it.)
    pub fn serve_http<A: HttpFeature>(
        &self,
        addr: A,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::future::Ready<Result<(), ServerError>> {
        drop((addr, shutdown));
        std::future::ready(Err(ServerError::Connection(
            "this build has no HTTP transport (mcpgen's `http` feature)".to_owned(),
        )))
    }
}
