//! Lowering: one selected operation becomes an [`ir::Tool`].
//!
//! Lowering decides the tool's arguments (names from [`crate::naming`]), its request body (the
//! media type sent and its encodings), its input and output schemas (through [`crate::schema`]),
//! its [`ir::Access`] and its annotation hints. Access is decided here once: from the HTTP method
//! ([`method_access`]) unless the allowlist entry sets `access:`; annotations derive from it and
//! the entry's `annotations:` override the hints, never the access.
//!
//! One file per job: `access` decides access, hints and confirmation, `body` the request body's
//! media type and encodings, `output` the output schemas, `describe` descriptions, `server`
//! the server the tools belong to, `task` whether the operation runs long; this file puts a
//! tool together.

mod access;
mod body;
mod describe;
mod output;
mod server;
mod task;

use std::path::Path;

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::allowlist::{Entry, OutputSchemaMode};
use crate::budget;
use crate::error::{Error, Warning};
use crate::ir::{self, ArgBinding, ArgLocation, BodyBinding};
use crate::naming::{self, ArgumentNames, ToolNames};
use crate::schema::{Direction, SchemaConverter, SharedDefs};
use crate::servers;
use crate::spec::{Operation, ParamLocation, Spec};
use access::{annotations_for, confirm};
use body::{body_encoding, chosen_media_type};
use describe::{annotate, operation_description};
use output::{output_schema, report_cuts};
use task::{cancel_paths, runs_long};

pub use access::{access, method_access};
pub use output::is_object_schema;
pub use server::server;

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

/// The definitions the tools of one document share while they are lowered.
pub struct Definitions<'a, 's> {
    /// Referenced schemas, converted once per document and direction.
    pub shared: &'s SharedDefs<'s>,
    /// The definitions the tools' full schemas reach, collected for the crate.
    pub full: &'a mut ir::FullDefs,
}

/// Lowers the operation `op`, selected by `entry`, to the tool named `names`. The only error is
/// an entry's `content_type:` the operation does not offer; problems in the operation's schemas
/// degrade with warnings naming their JSON pointers. Referenced schemas are converted through
/// `shared`, which the other tools of the document share.
pub fn tool<'s>(
    spec: &'s Spec,
    allowlist_path: &Path,
    entry: &Entry,
    op: &Operation,
    names: ToolNames,
    document_url: Option<&str>,
    defs: Definitions<'_, 's>,
) -> Result<(ir::Tool, Vec<Warning>), Error> {
    let media_type =
        chosen_media_type(op, entry).map_err(|(location, message)| Error::Allowlist {
            path: allowlist_path.to_owned(),
            location,
            message,
        })?;
    let (mut tool, mut warnings) = build_tool(spec, entry, op, media_type, names, defs);
    tool.http.server_url = servers::operation_url(spec, op, document_url, &mut warnings);
    Ok((tool, warnings))
}

fn build_tool<'s>(
    spec: &'s Spec,
    entry: &Entry,
    op: &Operation,
    media_type: Option<&str>,
    names: ToolNames,
    defs: Definitions<'_, 's>,
) -> (ir::Tool, Vec<Warning>) {
    let Definitions {
        shared,
        full: full_defs,
    } = defs;
    let ToolNames {
        name,
        type_stem,
        method_name,
    } = names;
    let mut input = SchemaConverter::new(&spec.root, &spec.path, Direction::Input)
        .with_lazy_defs()
        .with_shared_defs(shared);
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
    let mode = entry.output_schema.unwrap_or_default();
    let default_output_budget = match mode {
        OutputSchemaMode::Full => budget::DEFAULT_FULL_OUTPUT_SCHEMA_BUDGET,
        _ => budget::DEFAULT_OUTPUT_SCHEMA_BUDGET,
    };
    let (budget, output_budget) = match entry.schema_budget {
        Some(0) => (None, None),
        Some(bytes) => (Some(bytes), Some(bytes)),
        None => (
            Some(budget::DEFAULT_INPUT_SCHEMA_BUDGET),
            Some(default_output_budget),
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
    let root = Value::Object(input_schema);
    let input_limits = budget::Limits {
        budget,
        min_depth: 1,
        max_depth: None,
        describe: true,
        keep_required: true,
    };
    let fitted = budget::fit(&root, &mut |def| input.def(def).cloned(), input_limits);
    report_cuts(&mut warnings, &name, "inputSchema", &fitted.cuts, budget);
    let full_input_schema = fitted.summarised.then(|| {
        budget::full(
            &root,
            &mut |def| input.def(def).cloned(),
            true,
            &mut full_defs.input,
        )
    });
    let input_schema = fitted.schema;
    warnings.extend(input.finish().1);

    let title = entry
        .title
        .clone()
        .or_else(|| op.summary.clone().filter(|s| s.len() <= 100));
    let view_for = output::ViewFor {
        tool: &name,
        title: title.as_deref().unwrap_or(&name),
        ui: entry.ui,
        input: &input_schema,
    };
    let output = output_schema(
        spec,
        op,
        mode,
        output_budget,
        shared,
        &mut full_defs.output,
        view_for,
    );
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
    let full_output_schema = output.full;
    let declared_output_schema = output.declared;
    let output_limits = output.limits;
    let documented_output_schema = output
        .documented
        .filter(|d| Some(d) != output_schema.as_ref());
    let view = output.view;

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

    let task = runs_long(op, entry);
    let tool = ir::Tool {
        name,
        type_stem,
        method_name,
        title,
        description,
        input_schema,
        output_schema,
        input_limits,
        output_limits,
        full_input_schema,
        full_output_schema,
        documented_output_schema,
        declared_output_schema,
        wrap_output,
        access,
        annotations,
        confirm,
        required_scope: entry.scope.clone(),
        plugin: entry.plugin.clone(),
        rate_limit: entry.rate_limit.map(|r| (r.per_second, r.burst)),
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
            task,
            cancel: if task { cancel_paths(spec) } else { Vec::new() },
        },
        view,
    };
    (tool, warnings)
}
