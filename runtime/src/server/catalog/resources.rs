//! Serving a [`ResourceSet`]: `resources/list`, `resources/templates/list`, `resources/read`,
//! `resources/subscribe` and `resources/unsubscribe`, and `completion/complete` for template
//! variables.
//!
//! A read looks the URI up among the fixed resources first, then tries the templates in the
//! order they were added; the first that matches reads it. A URI nothing serves is answered
//! with invalid params and the URI in `data` (SEP-2164).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rmcp::model::{
    ArgumentInfo, CacheScope, CompleteResult, CompletionContext, ListResourceTemplatesResult,
    ListResourcesResult, ReadResourceResult, SubscribeRequestMethod, SubscriptionFilter,
    UnsubscribeRequestMethod,
};
use rmcp::service::{Peer, SubscriptionContext};
use rmcp::{ErrorData, RoleServer};

use crate::server::error::ConfigProblem;
use mcpgen_contract::completion;
use mcpgen_contract::resource::{
    Resource, ResourceBody, ResourceContents, ResourceError, ResourceSet, ResourceTemplate,
    ResourceUpdates, Subscriber, TemplateRead,
};

/// How long a client may cache a list, or a fixed resource's content: both are fixed at
/// start-up.
const FIXED_TTL_MS: u64 = 60_000;

/// The resources of one server, checked and indexed.
#[derive(Default)]
pub(crate) struct Resources {
    fixed: Vec<Resource>,
    by_uri: HashMap<String, usize>,
    templates: Vec<(ResourceTemplate, UriPattern)>,
    subscriptions: bool,
    updates: ResourceUpdates,
    /// The list entries, made once.
    listed: Vec<rmcp::model::Resource>,
    listed_templates: Vec<rmcp::model::ResourceTemplate>,
}

impl Resources {
    /// Checks `set` (URIs and names present, URIs and templates unique, templates parse,
    /// completers name template variables), adding what is wrong to `problems`.
    pub(crate) fn build(set: ResourceSet, problems: &mut Vec<ConfigProblem>) -> Self {
        let mut by_uri = HashMap::new();
        for (index, resource) in set.resources.iter().enumerate() {
            let problem = |reason: &str| ConfigProblem::InvalidResource {
                uri: resource.uri.clone(),
                reason: reason.to_owned(),
            };
            if resource.uri.is_empty() {
                problems.push(problem(&format!(
                    "resource #{} (counted from 1) has an empty URI",
                    index + 1
                )));
            } else if by_uri.contains_key(&resource.uri) {
                problems.push(problem(
                    "the URI is used twice; resource URIs must be unique",
                ));
            } else {
                by_uri.insert(resource.uri.clone(), index);
            }
            if resource.name.is_empty() {
                problems.push(problem("the resource has an empty name"));
            }
        }
        let mut templates: Vec<(ResourceTemplate, UriPattern)> = Vec::new();
        for template in set.templates {
            let problem = |reason: String| ConfigProblem::InvalidResource {
                uri: template.uri_template.clone(),
                reason,
            };
            if template.name.is_empty() {
                problems.push(problem("the template has an empty name".to_owned()));
            }
            if templates
                .iter()
                .any(|(t, _)| t.uri_template == template.uri_template)
            {
                problems.push(problem(
                    "the template is added twice; templates must be unique".to_owned(),
                ));
                continue;
            }
            match UriPattern::parse(&template.uri_template) {
                Ok(pattern) => {
                    for variable in template.completers.keys() {
                        if !pattern.has_variable(variable) {
                            problems.push(problem(format!(
                                "a completer is given for `{variable}`, which the template \
                                 does not have; its variables: {}",
                                pattern.variable_list()
                            )));
                        }
                    }
                    templates.push((template, pattern));
                }
                Err(reason) => problems.push(problem(format!("invalid URI template: {reason}"))),
            }
        }
        let listed = set.resources.iter().map(listed).collect();
        let listed_templates = templates.iter().map(|(t, _)| listed_template(t)).collect();
        Self {
            fixed: set.resources,
            by_uri,
            templates,
            subscriptions: set.subscriptions,
            updates: set.updates,
            listed,
            listed_templates,
        }
    }

    /// Whether `resources/subscribe` is served.
    pub(crate) fn subscriptions(&self) -> bool {
        self.subscriptions
    }

    /// Whether some template variable has a completer.
    pub(crate) fn has_completions(&self) -> bool {
        self.templates.iter().any(|(t, _)| !t.completers.is_empty())
    }

    /// The `resources/list` answer: the fixed resources.
    pub(crate) fn list(&self) -> ListResourcesResult {
        ListResourcesResult::with_all_items(self.listed.clone())
            .with_ttl_ms(FIXED_TTL_MS)
            .with_cache_scope(CacheScope::Private)
    }

    /// The `resources/templates/list` answer.
    pub(crate) fn list_templates(&self) -> ListResourceTemplatesResult {
        ListResourceTemplatesResult::with_all_items(self.listed_templates.clone())
            .with_ttl_ms(FIXED_TTL_MS)
            .with_cache_scope(CacheScope::Private)
    }

    /// `resources/read`.
    pub(crate) async fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        if let Some(resource) = self.by_uri.get(uri).and_then(|&i| self.fixed.get(i)) {
            let contents = ResourceContents {
                uri: resource.uri.clone(),
                mime_type: resource.mime_type.clone(),
                body: resource.body.clone(),
            };
            return Ok(ReadResourceResult::new(vec![contents_to_wire(contents)])
                .with_ttl_ms(FIXED_TTL_MS)
                .with_cache_scope(CacheScope::Private));
        }
        let Some((template, variables)) = self
            .templates
            .iter()
            .find_map(|(template, pattern)| Some((template, pattern.matches(uri)?)))
        else {
            return Err(not_found(uri));
        };
        let read = TemplateRead {
            uri: uri.to_owned(),
            variables,
        };
        match (template.reader)(read).await {
            Ok(contents) if contents.is_empty() => Err(not_found(uri)),
            Ok(contents) => Ok(ReadResourceResult::new(
                contents.into_iter().map(contents_to_wire).collect(),
            )
            .with_ttl_ms(0)
            .with_cache_scope(CacheScope::Private)),
            Err(ResourceError::NotFound) => Err(not_found(uri)),
            // `Failed`, and any kind added later: its text is the message.
            Err(failed) => Err(ErrorData::internal_error(
                format!(
                    "reading `{uri}` (template `{}`) failed: {failed}",
                    template.uri_template
                ),
                Some(serde_json::json!({ "uri": uri })),
            )),
        }
    }

    /// Whether `uri` is a fixed resource or matches a template.
    fn serves(&self, uri: &str) -> bool {
        self.by_uri.contains_key(uri)
            || self.templates.iter().any(|(_, p)| p.matches(uri).is_some())
    }

    /// `resources/subscribe` from the session of `subscriber`, reachable through `peer`
    /// (method not found without subscriptions).
    pub(crate) fn subscribe(
        &self,
        subscriber: &Arc<Subscriber>,
        peer: Peer<RoleServer>,
        uri: String,
    ) -> Result<(), ErrorData> {
        if !self.subscriptions {
            return Err(ErrorData::method_not_found::<SubscribeRequestMethod>());
        }
        if !self.serves(&uri) {
            return Err(not_found(&uri));
        }
        self.updates.subscribe(subscriber, peer, uri);
        Ok(())
    }

    /// What a `subscriptions/listen` stream gets of what it asks for: the URIs this set
    /// serves (`None`, so the method is unknown, without subscriptions).
    pub(crate) fn accepted_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        if !self.subscriptions {
            return None;
        }
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
            uris.iter()
                .filter(|uri| self.serves(uri))
                .cloned()
                .collect()
        });
        Some(accepted)
    }

    /// Runs one `subscriptions/listen` stream (already acknowledged): its URIs are watched
    /// until the client cancels it or the connection ends.
    pub(crate) async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let uris = context
            .accepted()
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        let _watching = self.updates.listen(context.sink().clone(), uris);
        context.cancelled().await;
        Ok(())
    }

    /// `resources/unsubscribe` (method not found without subscriptions): a URI the session
    /// did not watch is not an error.
    pub(crate) fn unsubscribe(&self, subscriber: &Subscriber, uri: &str) -> Result<(), ErrorData> {
        if !self.subscriptions {
            return Err(ErrorData::method_not_found::<UnsubscribeRequestMethod>());
        }
        subscriber.unsubscribe(uri);
        Ok(())
    }

    /// `completion/complete` for variable `argument.name` of the template `uri_template`.
    pub(crate) async fn complete(
        &self,
        uri_template: &str,
        argument: &ArgumentInfo,
        context: Option<&CompletionContext>,
    ) -> Result<CompleteResult, ErrorData> {
        let Some((template, pattern)) = self
            .templates
            .iter()
            .find(|(t, _)| t.uri_template == uri_template)
        else {
            let known: Vec<&str> = self
                .templates
                .iter()
                .map(|(t, _)| t.uri_template.as_str())
                .collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "resource template `{uri_template}` not found; templates: {}",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
                Some(serde_json::json!({ "uri": uri_template })),
            ));
        };
        if !pattern.has_variable(&argument.name) {
            return Err(ErrorData::invalid_params(
                format!(
                    "resource template `{uri_template}` has no variable `{}`; its variables: {}",
                    argument.name,
                    pattern.variable_list()
                ),
                None,
            ));
        }
        let completion = match template.completers.get(&argument.name) {
            Some(completer) => Some(
                completer
                    .complete(completion::request_from_wire(argument, context))
                    .await,
            ),
            None => None,
        };
        Ok(completion::result_to_wire(completion))
    }
}

/// SEP-2164: invalid params, with the URI in `data`.
pub(crate) fn not_found(uri: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("resource not found: {uri}"),
        Some(serde_json::json!({ "uri": uri })),
    )
}

fn contents_to_wire(contents: ResourceContents) -> rmcp::model::ResourceContents {
    match contents.body {
        ResourceBody::Text(text) => rmcp::model::ResourceContents::TextResourceContents {
            uri: contents.uri,
            mime_type: contents.mime_type,
            text,
            meta: None,
        },
        ResourceBody::Blob(blob) => rmcp::model::ResourceContents::BlobResourceContents {
            uri: contents.uri,
            mime_type: contents.mime_type,
            blob,
            meta: None,
        },
    }
}

fn listed(resource: &Resource) -> rmcp::model::Resource {
    let mut entry = rmcp::model::Resource::new(&resource.uri, &resource.name);
    if let Some(title) = &resource.title {
        entry = entry.with_title(title);
    }
    if let Some(description) = &resource.description {
        entry = entry.with_description(description);
    }
    if let Some(mime_type) = &resource.mime_type {
        entry = entry.with_mime_type(mime_type);
    }
    if let ResourceBody::Text(text) = &resource.body {
        entry = entry.with_size(text.len() as u64);
    }
    entry
}

fn listed_template(template: &ResourceTemplate) -> rmcp::model::ResourceTemplate {
    let mut entry = rmcp::model::ResourceTemplate::new(&template.uri_template, &template.name);
    if let Some(title) = &template.title {
        entry = entry.with_title(title);
    }
    if let Some(description) = &template.description {
        entry = entry.with_description(description);
    }
    if let Some(mime_type) = &template.mime_type {
        entry = entry.with_mime_type(mime_type);
    }
    entry
}

/// One piece of a URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// `{name}` (one segment: no `/`, `?` or `#`), or `{+name}` (reserved: may hold `/`).
    Variable {
        name: String,
        reserved: bool,
    },
}

/// A URI template with simple and reserved expressions (RFC 6570 levels 1 and 2, without the
/// fragment operator), matched against URIs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UriPattern {
    parts: Vec<Part>,
}

impl UriPattern {
    /// Parses `template`, saying where and why it cannot be used.
    pub(crate) fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        let mut offset = 0;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('{') {
                let Some(end) = after.find('}') else {
                    return Err(format!("the `{{` at byte {offset} is never closed"));
                };
                let expression = &after[..end];
                let (name, reserved) = match expression.strip_prefix('+') {
                    Some(name) => (name, true),
                    None => (expression, false),
                };
                if let Some(operator) = name.chars().next().filter(|c| "#./;?&=,!@|".contains(*c)) {
                    return Err(format!(
                        "`{{{expression}}}` at byte {offset}: the `{operator}` operator is not \
                         supported; use `{{name}}` or `{{+name}}`"
                    ));
                }
                if name.is_empty()
                    || !name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                {
                    return Err(format!(
                        "`{{{expression}}}` at byte {offset}: a variable name is letters, \
                         digits, `_` and `.` (lists and modifiers such as `:3` or `*` are not \
                         supported)"
                    ));
                }
                if let Some(Part::Variable { name: previous, .. }) = parts.last() {
                    return Err(format!(
                        "`{{{previous}}}` and `{{{expression}}}` are adjacent, so a URI cannot \
                         be split between them; put a literal between them"
                    ));
                }
                if parts
                    .iter()
                    .any(|p| matches!(p, Part::Variable { name: n, .. } if n == name))
                {
                    return Err(format!("variable `{name}` appears twice"));
                }
                parts.push(Part::Variable {
                    name: name.to_owned(),
                    reserved,
                });
                offset += end + 2;
                rest = &after[end + 1..];
            } else {
                let end = rest.find('{').unwrap_or(rest.len());
                let literal = &rest[..end];
                if let Some(at) = literal.find('}') {
                    return Err(format!("unmatched `}}` at byte {}", offset + at));
                }
                parts.push(Part::Literal(literal.to_owned()));
                offset += end;
                rest = &rest[end..];
            }
        }
        Ok(Self { parts })
    }

    fn has_variable(&self, variable: &str) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(p, Part::Variable { name, .. } if name == variable))
    }

    fn variable_list(&self) -> String {
        let names: Vec<&str> = self
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Variable { name, .. } => Some(name.as_str()),
                Part::Literal(_) => None,
            })
            .collect();
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    }

    /// The variables' values, percent-decoded, when `uri` matches. Each variable takes at
    /// least one character; where a literal follows a variable, the shortest value that lets
    /// the rest match wins.
    pub(crate) fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut variables = BTreeMap::new();
        self.match_from(0, uri, &mut variables).then_some(variables)
    }

    fn match_from(
        &self,
        index: usize,
        rest: &str,
        variables: &mut BTreeMap<String, String>,
    ) -> bool {
        let Some(part) = self.parts.get(index) else {
            return rest.is_empty();
        };
        match part {
            Part::Literal(literal) => rest
                .strip_prefix(literal.as_str())
                .is_some_and(|after| self.match_from(index + 1, after, variables)),
            Part::Variable { name, reserved } => {
                let allowed = |value: &str| {
                    !value.is_empty()
                        && !value.contains('#')
                        && (*reserved || !value.contains(['/', '?']))
                };
                let ends: Vec<usize> = match self.parts.get(index + 1) {
                    Some(Part::Literal(next)) => rest
                        .match_indices(next.as_str())
                        .map(|(at, _)| at)
                        .collect(),
                    _ => vec![rest.len()],
                };
                for end in ends {
                    let raw = &rest[..end];
                    if !allowed(raw) {
                        continue;
                    }
                    let Ok(value) = percent_encoding::percent_decode_str(raw).decode_utf8() else {
                        continue;
                    };
                    variables.insert(name.clone(), value.into_owned());
                    if self.match_from(index + 1, &rest[end..], variables) {
                        return true;
                    }
                    variables.remove(name);
                }
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::UriPattern;

    fn vars(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        let pattern = UriPattern::parse(template).expect("the template parses");
        pattern.matches(uri).map(|v| v.into_iter().collect())
    }

    fn pair(name: &str, value: &str) -> (String, String) {
        (name.to_owned(), value.to_owned())
    }

    #[test]
    fn simple_variables_take_one_segment() {
        assert_eq!(
            vars("test://template/{id}/data", "test://template/123/data"),
            Some(vec![pair("id", "123")])
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            vars("test://template/{id}/data", "test://template/1/datax"),
            None
        );
    }

    #[test]
    fn values_are_percent_decoded() {
        assert_eq!(
            vars("notes://{owner}/{name}", "notes://ann/two%20words"),
            Some(vec![pair("name", "two words"), pair("owner", "ann")])
        );
    }

    #[test]
    fn reserved_variables_span_slashes() {
        assert_eq!(
            vars("file:///{+path}", "file:///a/b/c.txt"),
            Some(vec![pair("path", "a/b/c.txt")])
        );
        assert_eq!(
            vars("repo://{+path}/raw", "repo://src/lib.rs/raw"),
            Some(vec![pair("path", "src/lib.rs")])
        );
    }

    #[test]
    fn unusable_templates_say_why() {
        for (template, fragment) in [
            ("x://{id", "never closed"),
            ("x://id}", "unmatched"),
            ("x://{?q}", "operator is not supported"),
            ("x://{a}{b}", "adjacent"),
            ("x://{a}/{a}", "appears twice"),
            ("x://{a:3}", "variable name"),
        ] {
            let error = UriPattern::parse(template).expect_err(template);
            assert!(error.contains(fragment), "{template}: {error}");
        }
    }
}
