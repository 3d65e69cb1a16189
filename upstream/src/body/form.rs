//! `application/x-www-form-urlencoded` bodies.

use mcpgen_core::tool::PropertyEncoding;

use super::encoding::{body_style, encoding_of, styled};
use super::shape::Property;
use crate::media::is_json_media_type;
use crate::style::{self, Escape, Target, form_encode};

/// Encodes an object body as `application/x-www-form-urlencoded` pairs.
pub(super) fn form(
    properties: &[Property<'_>],
    encoding: &[PropertyEncoding],
) -> Result<String, String> {
    let mut pairs = Vec::new();
    for property in properties {
        let own = encoding_of(encoding, property.name);
        let escape = Escape::new(Target::Form, own.is_some_and(|e| e.allow_reserved));
        match styled(own) {
            Some(_) if property.value.is_null() => {}
            Some(own) => {
                let (style, explode) = body_style(own, &property.what)?;
                pairs.extend(style::query(
                    property.name,
                    property.value,
                    style,
                    explode,
                    escape,
                ));
            }
            None if property.value.is_null() => {}
            None if own
                .and_then(|e| e.content_type)
                .is_some_and(is_json_media_type) =>
            {
                let json = serde_json::to_string(property.value)
                    .map_err(|e| format!("cannot encode {} as JSON: {e}", property.what))?;
                pairs.push(format!(
                    "{}={}",
                    form_encode(property.name),
                    escape.value(&json)
                ));
            }
            None => {
                let mut named = Vec::new();
                style::bracket_pairs(
                    &escape.name(property.name),
                    property.value,
                    escape,
                    &mut named,
                );
                pairs.extend(
                    named
                        .into_iter()
                        .map(|(name, value)| format!("{name}={value}")),
                );
            }
        }
    }
    Ok(pairs.join("&"))
}
