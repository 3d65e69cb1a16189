//! [`Answerer`]: rmcp's client handler, answering server requests with a [`ClientAnswers`]
//! and declaring only the capabilities it provides.
// Sampling and roots are deprecated in rmcp's model (SEP-2577) but still part of the protocol
// revisions servers speak.
#![allow(deprecated)]

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, Implementation, ListRootsResult,
    ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::Value;

use super::{ClientAnswers, ElicitAnswer, ElicitMode, ElicitRequest, sampling};

/// Answers the requests of one server (named in the questions the person sees).
#[derive(Clone)]
pub(crate) struct Answerer {
    server: String,
    answers: ClientAnswers,
    info: ClientConfig,
}

impl Answerer {
    /// The handler for server `server`.
    pub(crate) fn new(server: &str, answers: &ClientAnswers) -> Self {
        let capabilities: ClientCapabilities =
            serde_json::from_value(answers.capabilities()).unwrap_or_default();
        let mut info = ClientConfig::default();
        info.capabilities = capabilities;
        // The initialize handshake is the session era; 2026-07-28 servers are reached through
        // the same handshake's negotiation.
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info.client_info = Implementation::new("mcpgen-client", env!("CARGO_PKG_VERSION"));
        Self {
            server: server.to_owned(),
            answers: answers.clone(),
            info,
        }
    }
}

fn declined() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Decline)
}

impl ClientHandler for Answerer {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let Some(elicitor) = &self.answers.elicitor else {
            return Ok(declined());
        };
        let (message, mode) = match request {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => (
                message,
                ElicitMode::Form {
                    schema: serde_json::to_value(requested_schema).unwrap_or(Value::Null),
                },
            ),
            ElicitRequestParams::UrlElicitationParams { message, url, .. }
                if elicitor.supports_url() =>
            {
                (message, ElicitMode::Url { url })
            }
            _ => return Ok(declined()),
        };
        let question = ElicitRequest {
            server: self.server.clone(),
            message,
            mode,
        };
        Ok(match elicitor.elicit(&question).await {
            ElicitAnswer::Accept(content) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
            }
            ElicitAnswer::Decline => declined(),
            ElicitAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        })
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let Some(sampler) = &self.answers.sampler else {
            return Err(ErrorData::method_not_found::<
                rmcp::model::CreateMessageRequestMethod,
            >());
        };
        let wire = serde_json::to_value(&params)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let (messages, tools) = sampling::request(&wire)
            .map_err(|why| ErrorData::invalid_params(format!("sampling request: {why}"), None))?;
        let turn = sampler
            .llm
            .respond(&messages, &tools)
            .await
            .map_err(|e| ErrorData::internal_error(format!("the model failed: {e}"), None))?;
        serde_json::from_value(sampling::result(turn, &sampler.model))
            .map_err(|e| ErrorData::internal_error(format!("the model's answer: {e}"), None))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let roots = self
            .answers
            .roots
            .iter()
            .flatten()
            .map(|r| {
                let root = rmcp::model::Root::new(r.uri.clone());
                match &r.name {
                    Some(name) => root.with_name(name.clone()),
                    None => root,
                }
            })
            .collect();
        Ok(ListRootsResult::new(roots))
    }
}
