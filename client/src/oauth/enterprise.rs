//! Enterprise-managed authorization (SEP-990, "cross-app access"): the person's identity
//! provider exchanges their ID token for an identity assertion grant for this resource's
//! authorization server (RFC 8693 token exchange, an ID-JAG), and that server trades the
//! assertion for an access token (RFC 7523 JWT bearer grant). Nobody signs in in a browser.

use rmcp::transport::auth::enterprise::{
    EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
};
use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadata, CredentialStore, InMemoryCredentialStore,
    StoredCredentials, default_oauth_http_client,
};

use super::OAuthOptions;

/// The person's identity provider and their ID token from it.
#[derive(Clone)]
pub struct IdentityProvider {
    /// The identity provider's issuer.
    pub issuer: String,
    /// Its token endpoint, where the ID token is exchanged.
    pub token_endpoint: String,
    /// This client's id at the identity provider.
    pub client_id: String,
    /// The person's ID token, issued by the identity provider to this client.
    pub id_token: String,
}

impl std::fmt::Debug for IdentityProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdentityProvider")
            .field("issuer", &self.issuer)
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// Gets a token for `resource` from the authorization server of `metadata` through `idp`;
/// the manager then holds it (in memory: it is short-lived and got again without the person).
pub(crate) async fn authorize(
    mut manager: AuthorizationManager,
    metadata: &AuthorizationMetadata,
    idp: &IdentityProvider,
    options: &OAuthOptions,
    resource: &str,
) -> Result<AuthorizationManager, String> {
    let fail = |e: &dyn std::fmt::Display| format!("enterprise-managed authorization: {e}");
    let (Some(client_id), Some(secret)) = (&options.client_id, &options.client_secret) else {
        return Err(fail(
            &"needs this client's id and secret at the authorization server",
        ));
    };
    let issuer = metadata
        .issuer
        .clone()
        .ok_or_else(|| fail(&"the authorization server's metadata names no issuer"))?;
    let identity = EmaAuthorizationServer::new(
        idp.issuer.clone(),
        idp.token_endpoint.clone(),
        idp.client_id.clone(),
    );
    let server =
        EmaAuthorizationServer::new(issuer, metadata.token_endpoint.clone(), client_id.clone())
            .with_client_authentication(EmaClientAuthentication::ClientSecretBasic(
                oauth2::ClientSecret::new(secret.clone()),
            ));
    let http = default_oauth_http_client().map_err(|e| fail(&e))?;
    let mut request =
        EmaExchangeRequest::new_with_id_token(identity, server, resource, &idp.id_token);
    if !options.scopes.is_empty() {
        request = request.with_scopes(options.scopes.clone());
    }
    let token = request.exchange(&http, &http).await.map_err(|e| fail(&e))?;
    let mut answer = serde_json::json!({
        "access_token": token.access_token.secret(),
        "token_type": "Bearer",
    });
    if let Some(expires_in) = token.expires_in {
        answer["expires_in"] = expires_in.as_secs().into();
    }
    let response = serde_json::from_value(answer).map_err(|e| fail(&e))?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .ok();
    let store = InMemoryCredentialStore::new();
    store
        .save(StoredCredentials::new(
            client_id.clone(),
            Some(response),
            token.scopes.into_iter().collect(),
            now,
        ))
        .await
        .map_err(|e| fail(&e))?;
    manager.set_credential_store(store);
    Ok(manager)
}
