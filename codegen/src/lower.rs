//! Lowering: one selected operation becomes an [`ir::Tool`].
//!
//! Lowering decides the tool's arguments (names from [`crate::naming`]), its request body (the
//! media type sent and its encodings), its input and output schemas (through [`crate::schema`]),
//! its [`ir::Access`] and its annotation hints. Access is decided here once: from the HTTP method
//! ([`method_access`]) unless the allowlist entry sets `access:`; annotations derive from it and
//! the entry's `annotations:` override the hints, never the access.

use std::collections::BTreeSet;
use std::path::Path;

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::allowlist::{Allowlist, Entry, OutputSchemaMode};
use crate::budget;
use crate::error::{Error, Warning};
use crate::ir::{self, ArgBinding, ArgLocation, BodyBinding};
use crate::naming::{self, ArgumentNames, ToolNames};
use crate::schema::{Direction, SchemaConverter};
use crate::servers;
use crate::spec::{Operation, ParamLocation, Spec};
use crate::tolerant;

fn location_arg(loc: ParamLocation) -> ArgLocation {
    match loc {
        ParamLocation::Path => ArgLocation::Path,
        ParamLocation::Query => ArgLocation::Query,
        ParamLocation::Header => ArgLocation::Header,
        ParamLocation::Cookie => ArgLocation::Cookie,
    }
}

/// Header parameters OpenAPI says are ignored (the transport sets them).
fn ignored_header(name: &str) -> bool {
    ["accept", "content-type", "authorization"].contains(&name.to_ascii_lowercase().as_str())
}

/// The request body media type to send: the entry's `content_type` if it names one the
/// operation offers (compared case-insensitively), else the preferred one (see
/// [`pick_media_type`]); `None` without a request body. An error is (location, message).
fn chosen_media_type<'o>(
    op: &'o Operation,
    entry: &Entry,
) -> Result<Option<&'o str>, (String, String)> {
    let content = op.request_body.as_ref().map(|b| &b.content);
    let Some(wanted) = &entry.content_type else {
        return Ok(content
            .and_then(pick_media_type)
            .map(|(media_type, _)| media_type.as_str()));
    };
    let location = entry.location_of("content_type", wanted);
    let method = op.method.to_ascii_uppercase();
    let Some(content) = content.filter(|c| !c.is_empty()) else {
        return Err((
            location,
            format!(
                "content_type `{}` is set, but {method} {} has no request body media types; \
                 remove `content_type:`",
                wanted.value, op.path
            ),
        ));
    };
    let offered = || {
        content
            .keys()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    content
        .keys()
        .find(|k| k.trim().eq_ignore_ascii_case(wanted.value.trim()))
        .map(|k| Some(k.as_str()))
        .ok_or_else(|| {
            (
                location,
                format!(
                    "content_type `{}` is not offered by {method} {}; it offers {}",
                    wanted.value,
                    op.path,
                    offered()
                ),
            )
        })
}

/// Lowers the operation `op`, selected by `entry`, to the tool named `names`. The only error is
/// an entry's `content_type:` the operation does not offer; problems in the operation's schemas
/// degrade with warnings naming their JSON pointers.
pub fn tool(
    spec: &Spec,
    allowlist_path: &Path,
    entry: &Entry,
    op: &Operation,
    names: ToolNames,
    document_url: Option<&str>,
) -> Result<(ir::Tool, Vec<Warning>), Error> {
    let media_type =
        chosen_media_type(op, entry).map_err(|(location, message)| Error::Allowlist {
            path: allowlist_path.to_owned(),
            location,
            message,
        })?;
    let (mut tool, mut warnings) = build_tool(spec, entry, op, media_type, names);
    tool.http.server_url = servers::operation_url(spec, op, document_url, &mut warnings);
    Ok((tool, warnings))
}

/// The access an HTTP method implies: GET, HEAD, OPTIONS and TRACE read; every other method
/// writes. The method's case does not matter.
pub fn method_access(method: &str) -> ir::Access {
    let reads = ["GET", "HEAD", "OPTIONS", "TRACE"]
        .iter()
        .any(|m| m.eq_ignore_ascii_case(method));
    if reads {
        ir::Access::Read
    } else {
        ir::Access::Write
    }
}

/// A tool's access: the entry's `access:` when set, else what the method implies
/// ([`method_access`]). Annotations never change it.
pub fn access(method: &str, entry: &Entry) -> ir::Access {
    entry.access.unwrap_or_else(|| method_access(method))
}

fn build_tool(
    spec: &Spec,
    entry: &Entry,
    op: &Operation,
    media_type: Option<&str>,
    names: ToolNames,
) -> (ir::Tool, Vec<Warning>) {
    let ToolNames {
        name,
        type_stem,
        method_name,
    } = names;
    let mut input = SchemaConverter::new(&spec.root, &spec.path, Direction::Input).with_lazy_defs();
    let mut properties: IndexMap<String, Value> = IndexMap::new();
    let mut required: Vec<String> = Vec::new();
    let mut args: Vec<ArgBinding> = Vec::new();
    let mut warnings = Vec::new();

    // Parameters, in spec order, named by `naming`.
    let params: Vec<_> = op
        .parameters
        .iter()
        .filter(|p| !(p.location == ParamLocation::Header && ignored_header(&p.name)))
        .collect();
    let wire: Vec<(&str, ParamLocation)> = params
        .iter()
        .map(|p| (p.name.as_str(), p.location))
        .collect();
    let (mut arg_names, named) = ArgumentNames::parameters(&wire);
    for (p, arg) in params.into_iter().zip(named) {
        let mut schema = input.convert(&p.schema, &p.schema_pointer);
        annotate(
            &mut schema,
            p.description.as_deref(),
            p.deprecated,
            p.example.as_ref(),
        );
        properties.insert(arg.clone(), schema);
        if p.required {
            required.push(arg.clone());
        }
        args.push(ArgBinding {
            arg,
            wire: p.name.clone(),
            location: location_arg(p.location),
            required: p.required,
            style: p.style.clone(),
            explode: p.explode,
            allow_reserved: p.allow_reserved,
        });
    }

    // Request body.
    let mut body_binding = None;
    if let Some(body) = &op.request_body
        && let Some((media_type, media)) = media_type.and_then(|m| body.content.get_key_value(m))
    {
        body_binding = Some(BodyBinding {
            content_type: media_type.clone(),
            required: body.required,
            encoding: body_encoding(spec, media_type, media, &mut warnings),
        });
        let schema_in = media.schema.clone().unwrap_or_else(|| json!({}));
        let flattened = input
            .object_properties(&schema_in, &media.schema_pointer)
            .filter(|(props, _)| !props.is_empty() && props.keys().all(|k| !arg_names.collides(k)));
        match flattened {
            Some((props, req)) => {
                for (prop, schema) in props {
                    let is_required = body.required && req.contains(&prop);
                    if is_required {
                        required.push(prop.clone());
                    }
                    args.push(ArgBinding {
                        arg: prop.clone(),
                        wire: prop.clone(),
                        location: ArgLocation::BodyField,
                        required: is_required,
                        style: None,
                        explode: None,
                        allow_reserved: false,
                    });
                    properties.insert(prop, schema);
                }
            }
            None => {
                let arg = arg_names.body();
                let mut schema = input.convert(&schema_in, &media.schema_pointer);
                annotate(&mut schema, body.description.as_deref(), false, None);
                if body.required {
                    required.push(arg.clone());
                }
                args.push(ArgBinding {
                    arg: arg.clone(),
                    wire: arg.clone(),
                    location: ArgLocation::Body,
                    required: body.required,
                    style: None,
                    explode: None,
                    allow_reserved: false,
                });
                properties.insert(arg, schema);
            }
        }
    }
    // An explicit `schema_budget` holds for both schemas; by default inputs, which the model
    // must fill in, get more room than outputs.
    let (budget, output_budget) = match entry.schema_budget {
        Some(0) => (None, None),
        Some(bytes) => (Some(bytes), Some(bytes)),
        None => (
            Some(budget::DEFAULT_INPUT_SCHEMA_BUDGET),
            Some(budget::DEFAULT_OUTPUT_SCHEMA_BUDGET),
        ),
    };
    let mut input_schema = Map::new();
    input_schema.insert("type".into(), json!("object"));
    input_schema.insert(
        "properties".into(),
        Value::Object(properties.into_iter().collect()),
    );
    if !required.is_empty() {
        input_schema.insert("required".into(), json!(required));
    }
    let fitted = budget::fit(
        &Value::Object(input_schema),
        &mut |def| input.def(def).cloned(),
        budget::Limits {
            budget,
            min_depth: 1,
            max_depth: None,
            describe: true,
        },
    );
    report_cuts(&mut warnings, &name, "inputSchema", &fitted.cuts, budget);
    let input_schema = fitted.schema;
    warnings.extend(input.finish().1);

    let mode = entry.output_schema.unwrap_or_default();
    let output = output_schema(spec, op, mode, output_budget);
    warnings.extend(output.warnings);
    report_cuts(
        &mut warnings,
        &name,
        "outputSchema",
        &output.cuts,
        output_budget,
    );
    let wrap_output = output.wrapped;
    let output_schema = output.advertised;
    let documented_output_schema = output
        .documented
        .filter(|d| Some(d) != output_schema.as_ref());

    let method = op.method.to_ascii_uppercase();
    let access = access(&method, entry);
    let annotations = annotations_for(&method, access, entry);
    let confirm = confirm(access, annotations, entry);
    let description = entry.description.clone().unwrap_or_else(|| {
        operation_description(
            op,
            entry
                .max_description_len
                .unwrap_or(budget::DEFAULT_DESCRIPTION_CHARS),
        )
    });
    let mut security: Vec<String> = op.security.iter().flatten().cloned().collect();
    security.sort();
    security.dedup();

    let tool = ir::Tool {
        name,
        type_stem,
        method_name,
        title: entry
            .title
            .clone()
            .or_else(|| op.summary.clone().filter(|s| s.len() <= 100)),
        description,
        input_schema,
        output_schema,
        documented_output_schema,
        wrap_output,
        access,
        annotations,
        confirm,
        required_scope: entry.scope.clone(),
        plugin: entry.plugin.clone(),
        tags: op.tags.clone(),
        http: ir::HttpBinding {
            method,
            path: op.path.clone(),
            operation_id: op
                .operation_id
                .clone()
                .unwrap_or_else(|| naming::method_path_name(&op.method, &op.path)),
            args,
            body: body_binding,
            security,
            server_url: None,
        },
    };
    (tool, warnings)
}

/// Adds the parameter's description, deprecation and example to its schema.
fn annotate(
    schema: &mut Value,
    description: Option<&str>,
    deprecated: bool,
    example: Option<&Value>,
) {
    let Value::Object(map) = schema else {
        if let Some(d) = description {
            *schema = json!({ "description": d });
        }
        return;
    };
    if let Some(d) = description {
        map.entry("description").or_insert_with(|| json!(d));
    }
    if deprecated {
        map.insert("deprecated".into(), json!(true));
    }
    if let Some(e) = example {
        map.entry("examples").or_insert_with(|| json!([e]));
    }
}

/// Prefers JSON, then form, multipart, text, binary, then whatever comes first.
fn pick_media_type(
    content: &IndexMap<String, crate::spec::MediaType>,
) -> Option<(&String, &crate::spec::MediaType)> {
    let rank = |mt: &str| {
        let mt = mt.to_ascii_lowercase();
        if mt == "application/json" {
            0
        } else if mt.ends_with("+json") || mt.contains("json") {
            1
        } else if mt == "application/x-www-form-urlencoded" {
            2
        } else if mt == "multipart/form-data" {
            3
        } else if mt.starts_with("text/") {
            4
        } else {
            5
        }
    };
    content.iter().min_by_key(|(mt, _)| rank(mt))
}

/// The styles OpenAPI defines for form and multipart body properties.
const BODY_STYLES: [&str; 4] = ["form", "spaceDelimited", "pipeDelimited", "deepObject"];

/// The media type's `encoding` object as per-property encodings, sorted by property name.
/// Only form and multipart bodies use it; entries that cannot be used are left out, and parts
/// of an entry that cannot be used (`headers`, a style bodies do not have) are dropped, each
/// with a warning naming its JSON pointer.
fn body_encoding(
    spec: &Spec,
    media_type: &str,
    media: &crate::spec::MediaType,
    warnings: &mut Vec<Warning>,
) -> Vec<ir::PropertyEncoding> {
    let Some(encoding) = &media.encoding else {
        return Vec::new();
    };
    let media_pointer = media
        .schema_pointer
        .strip_suffix("/schema")
        .unwrap_or(&media.schema_pointer);
    let mut warn = |pointer: String, message: String| {
        warnings.push(Warning {
            location: format!("{}: {pointer}", spec.path.display()),
            message,
        });
    };
    let essence = media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if !matches!(
        essence.as_str(),
        "application/x-www-form-urlencoded" | "multipart/form-data"
    ) {
        warn(
            format!("{media_pointer}/encoding"),
            format!(
                "`encoding` applies only to form and multipart bodies; ignored for `{media_type}`"
            ),
        );
        return Vec::new();
    }
    let Value::Object(entries) = encoding else {
        warn(
            format!("{media_pointer}/encoding"),
            "`encoding` is not an object; ignored".to_owned(),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (property, entry) in entries {
        let at = format!(
            "{media_pointer}/encoding/{}",
            crate::spec::escape_pointer_segment(property)
        );
        let Value::Object(entry) = entry else {
            warn(
                at,
                format!("the encoding of `{property}` is not an object; ignored"),
            );
            continue;
        };
        let mut encoding = ir::PropertyEncoding {
            property: property.clone(),
            content_type: None,
            style: None,
            explode: None,
            allow_reserved: false,
        };
        for (key, value) in entry {
            let at = format!("{at}/{}", crate::spec::escape_pointer_segment(key));
            match (key.as_str(), value) {
                ("contentType", Value::String(t)) => encoding.content_type = Some(t.clone()),
                ("style", Value::String(s)) if BODY_STYLES.contains(&s.as_str()) => {
                    encoding.style = Some(s.clone());
                }
                ("style", Value::String(s)) => warn(
                    at,
                    format!(
                        "style `{s}` is not defined for body properties (use one of {}); \
                         ignored",
                        BODY_STYLES.join(", ")
                    ),
                ),
                ("explode", Value::Bool(b)) => encoding.explode = Some(*b),
                ("allowReserved", Value::Bool(b)) => encoding.allow_reserved = *b,
                ("headers", _) => warn(
                    at,
                    format!("per-part headers of `{property}` are not sent; ignored"),
                ),
                ("contentType" | "style" | "explode" | "allowReserved", other) => {
                    warn(at, format!("`{key}` has the wrong type ({other}); ignored"))
                }
                _ => {}
            }
        }
        let sets_something = encoding.content_type.is_some()
            || encoding.style.is_some()
            || encoding.explode.is_some()
            || encoding.allow_reserved;
        if sets_something {
            out.push(encoding);
        }
    }
    out.sort_by(|a, b| a.property.cmp(&b.property));
    out
}

/// A tool's output schemas, fitted to its mode and budget.
struct OutputSchemas {
    /// What `tools/list` advertises (`None`: no output schema).
    advertised: Option<Value>,
    /// The documented schema, for `--output-check strict`.
    documented: Option<Value>,
    /// Whether a non-object response is wrapped as `{"result": ...}`.
    wrapped: bool,
    /// JSON pointers of the advertised schema summarised because of the budget.
    cuts: Vec<String>,
    warnings: Vec<Warning>,
}

/// The output schemas from the primary 2xx JSON response. The advertised one is the documented
/// one made tolerant ([`tolerant`]), then fitted: `full` within the budget, `compact` to the
/// root's properties (nested schemas summarised, no descriptions below the root), `none`
/// absent. The documented one (for strict checks) is fitted at least as deep as the advertised
/// one, so a result that passes it also passes what is advertised.
fn output_schema(
    spec: &Spec,
    op: &Operation,
    mode: OutputSchemaMode,
    budget: Option<usize>,
) -> OutputSchemas {
    let mut out = OutputSchemas {
        advertised: None,
        documented: None,
        wrapped: false,
        cuts: Vec::new(),
        warnings: Vec::new(),
    };
    let primary = ["200", "201", "202", "203", "2XX", "2xx"]
        .iter()
        .find_map(|code| op.responses.get(*code))
        .or_else(|| {
            op.responses
                .iter()
                .find(|(code, _)| code.starts_with('2'))
                .map(|(_, r)| r)
        });
    let Some(response) = primary else {
        return out;
    };
    let Some(media) = response
        .content
        .iter()
        .find(|(mt, _)| {
            let mt = mt.to_ascii_lowercase();
            mt == "application/json" || mt.ends_with("+json") || mt == "*/*"
        })
        .map(|(_, m)| m)
    else {
        return out;
    };
    let Some(schema) = &media.schema else {
        return out;
    };
    let mut conv = SchemaConverter::new(&spec.root, &spec.path, Direction::Output).with_lazy_defs();
    let converted = conv.convert(schema, &media.schema_pointer);
    let root = match converted.get("$ref").and_then(Value::as_str) {
        Some(r) if converted.as_object().is_some_and(|m| m.len() == 1) => r
            .strip_prefix("#/$defs/")
            .map(|name| name.replace("~1", "/").replace("~0", "~"))
            .and_then(|name| conv.def(&name))
            .filter(|target| is_object_schema(target))
            .cloned()
            .unwrap_or(converted),
        _ => converted,
    };
    let root = if is_object_schema(&root) {
        root
    } else {
        out.wrapped = true;
        json!({ "type": "object", "properties": { "result": root }, "required": ["result"] })
    };
    if mode == OutputSchemaMode::None {
        out.warnings = conv.finish().1;
        return out;
    }
    let advertised = budget::fit(
        &tolerant::tolerant_output(&root),
        &mut |def| conv.def(def).map(tolerant::tolerant_output),
        budget::Limits {
            budget,
            min_depth: 0,
            max_depth: (mode == OutputSchemaMode::Compact).then_some(1),
            describe: mode == OutputSchemaMode::Full,
        },
    );
    let documented = budget::fit(
        &root,
        &mut |def| conv.def(def).cloned(),
        budget::Limits {
            budget,
            min_depth: advertised.depth,
            max_depth: None,
            describe: false,
        },
    );
    out.advertised = Some(advertised.schema);
    out.cuts = advertised.cuts;
    out.documented = Some(documented.schema);
    out.warnings = conv.finish().1;
    out
}

/// One warning per schema node summarised to fit the budget, naming the tool and the pointer.
fn report_cuts(
    warnings: &mut Vec<Warning>,
    tool: &str,
    which: &str,
    cuts: &[String],
    budget: Option<usize>,
) {
    let budget = budget.map_or_else(|| "no budget".to_owned(), |b| format!("{b} bytes"));
    warnings.extend(cuts.iter().map(|pointer| Warning {
        location: format!("tool `{tool}`: {which} at `{pointer}`"),
        message: format!(
            "nested fields summarised to fit the schema budget ({budget}; `schema_budget:` in \
             the allowlist changes it)"
        ),
    }));
}

/// Whether a converted schema is a plain object schema (`type: object`, no composition).
pub fn is_object_schema(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    let typed_object = match map.get("type") {
        Some(Value::String(t)) => t == "object",
        _ => false,
    };
    typed_object
        && !["oneOf", "anyOf", "allOf", "$ref", "not", "if"]
            .iter()
            .any(|k| map.contains_key(*k))
}

/// Whether calls need the person's confirmation: the entry's `confirm:` when set, else the
/// server block's `confirm_destructive` for a write whose `destructive` hint is set.
fn confirm(access: ir::Access, annotations: ir::Annotations, entry: &Entry) -> bool {
    entry.confirm.unwrap_or(
        entry.confirm_destructive
            && access == ir::Access::Write
            && annotations.destructive == Some(true),
    )
}

/// Annotation hints: from the access (a read is `readOnlyHint`; a write is destructive when
/// the method is DELETE and idempotent when it is PUT or DELETE), then the entry's
/// `annotations:` overrides. `method` is upper-case.
fn annotations_for(method: &str, access: ir::Access, entry: &Entry) -> ir::Annotations {
    let mut a = match access {
        ir::Access::Read => ir::Annotations {
            read_only: Some(true),
            ..Default::default()
        },
        ir::Access::Write => ir::Annotations {
            read_only: Some(false),
            destructive: Some(method == "DELETE"),
            idempotent: Some(matches!(method, "PUT" | "DELETE")),
            open_world: None,
        },
    };
    let o = entry.annotations;
    a.read_only = o.read_only.or(a.read_only);
    a.destructive = o.destructive.or(a.destructive);
    a.idempotent = o.idempotent.or(a.idempotent);
    a.open_world = o.open_world.or(a.open_world);
    a
}

/// Summary and description joined, else `METHOD path`. With a `limit` (characters; `0`: none),
/// the first paragraph of the description (the summary when there is none; the title carries
/// the summary), markup stripped and cut to the limit by [`budget::tool_description`].
fn operation_description(op: &Operation, limit: usize) -> String {
    if limit > 0 {
        let trimmed = [op.description.as_deref(), op.summary.as_deref()]
            .into_iter()
            .flatten()
            .map(|text| budget::tool_description(text, limit))
            .find(|text| !text.is_empty());
        if let Some(trimmed) = trimmed {
            return trimmed;
        }
    }
    let parts: Vec<&str> = [op.summary.as_deref(), op.description.as_deref()]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let mut parts = parts;
    parts.dedup();
    if parts.is_empty() {
        format!("{} {}", op.method.to_ascii_uppercase(), op.path)
    } else {
        parts.join("\n\n")
    }
}

/// The server of the lowered `tools`, named `name`: version, description and title from the
/// allowlist or the spec's `info`, the default upstream URL, and the security schemes the tools
/// use.
pub fn server(
    spec: &Spec,
    allowlist: &Allowlist,
    name: String,
    tools: Vec<ir::Tool>,
    warnings: &mut Vec<Warning>,
) -> ir::Server {
    let info = spec.root.get("info");
    let info_str = |k: &str| {
        info.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let title = info_str("title").unwrap_or_else(|| name.clone());
    let upstream_url = allowlist.server.upstream_url.clone().or_else(|| {
        let url = match servers::default_url(&spec.root, "") {
            Ok(url) => url?,
            Err(problem) => {
                warnings.push(Warning {
                    location: format!("{}: {}", spec.path.display(), problem.pointer),
                    message: format!(
                        "{}; the server has no default upstream URL: set `server.upstream_url` \
                         in the allowlist or pass --upstream-url at run time",
                        problem.message
                    ),
                });
                return None;
            }
        };
        if !servers::is_absolute(&url) {
            warnings.push(Warning {
                location: format!("{}: /servers/0/url", spec.path.display()),
                message: format!(
                    "server URL `{url}` is relative; set `server.upstream_url` in the allowlist or pass --upstream-url at run time"
                ),
            });
        }
        Some(url)
    });
    let used: BTreeSet<&str> = tools
        .iter()
        .flat_map(|t| t.http.security.iter().map(String::as_str))
        .collect();
    let security_schemes = security_schemes(&spec.root, &used);
    ir::Server {
        version: allowlist
            .server
            .version
            .clone()
            .or_else(|| info_str("version"))
            .unwrap_or_else(|| "0.1.0".into()),
        description: allowlist
            .server
            .description
            .clone()
            .or_else(|| info_str("description"))
            .unwrap_or_else(|| title.clone()),
        title,
        name,
        upstream_url,
        security_schemes,
        tools,
    }
}

fn security_schemes(root: &Value, used: &BTreeSet<&str>) -> Vec<ir::SecurityScheme> {
    let Some(schemes) = root
        .pointer("/components/securitySchemes")
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let mut out: Vec<ir::SecurityScheme> = schemes
        .iter()
        .filter(|(name, _)| used.contains(name.as_str()))
        .map(|(name, s)| {
            let get = |k: &str| s.get(k).and_then(Value::as_str).unwrap_or_default();
            let kind = match (
                get("type"),
                get("in"),
                get("scheme").to_ascii_lowercase().as_str(),
            ) {
                ("apiKey", "header", _) => ir::SecurityKind::ApiKeyHeader(get("name").to_owned()),
                ("apiKey", "query", _) => ir::SecurityKind::ApiKeyQuery(get("name").to_owned()),
                ("apiKey", "cookie", _) => ir::SecurityKind::ApiKeyCookie(get("name").to_owned()),
                ("http", _, "bearer") => ir::SecurityKind::Bearer,
                ("http", _, "basic") => ir::SecurityKind::Basic,
                _ => ir::SecurityKind::Other,
            };
            ir::SecurityScheme {
                name: name.clone(),
                kind,
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}
