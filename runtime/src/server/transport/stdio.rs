//! The stdio transport (and the same over any byte stream, e.g. an in-memory pipe).
//!
//! Messages go over stdout, so nothing else may: configure logging to stderr.

use mcpgen_identity::Principal;
use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::server::error::ServerError;
use crate::server::state::server::Server;
use mcpgen_contract::toolset::CallerCredential;

impl Server {
    /// Serves one client over stdin/stdout as `principal` (resolved once, e.g. from
    /// `MCPGEN_API_KEY`, or [`Principal::unrestricted`] with `--no-auth`) until the client
    /// closes stdin; then waits for calls in progress and flushes the audit sinks.
    pub async fn serve_stdio(&self, principal: Principal) -> Result<(), ServerError> {
        self.serve_stdio_with(principal, None).await
    }

    /// [`serve_stdio`](Self::serve_stdio), where `principal` authenticated with `credential`
    /// (e.g. `MCPGEN_API_KEY`): every call's [`CallContext::caller_credential`] carries it,
    /// for upstreams configured to pass it through.
    ///
    /// [`CallContext::caller_credential`]: crate::CallContext::caller_credential
    pub async fn serve_stdio_with(
        &self,
        principal: Principal,
        credential: Option<CallerCredential>,
    ) -> Result<(), ServerError> {
        let (stdin, stdout) = rmcp::transport::stdio();
        self.serve_io_with(principal, credential, stdin, stdout)
            .await
    }

    /// Serves one client over `reader`/`writer` (newline-delimited JSON-RPC, as on stdio) as
    /// `principal`, until the reader ends.
    pub async fn serve_io<R, W>(
        &self,
        principal: Principal,
        reader: R,
        writer: W,
    ) -> Result<(), ServerError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.serve_io_with(principal, None, reader, writer).await
    }

    /// [`serve_io`](Self::serve_io), where `principal` authenticated with `credential` (see
    /// [`serve_stdio_with`](Self::serve_stdio_with)).
    pub async fn serve_io_with<R, W>(
        &self,
        principal: Principal,
        credential: Option<CallerCredential>,
        reader: R,
        writer: W,
    ) -> Result<(), ServerError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let handler = self.handler(Some(principal)).with_credential(credential);
        let result = match handler.serve((reader, writer)).await {
            Ok(running) => running
                .waiting()
                .await
                .map(|_| ())
                .map_err(|e| ServerError::Connection(e.to_string())),
            // The client went away before initializing: nothing was served, nothing failed.
            Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(e) => Err(ServerError::Connection(e.to_string())),
        };
        self.inner.drain().await;
        result
    }
}
