//! The OpenAPI `encoding` object of a form or multipart body: a property's own encoding, and
//! the style it asks for.

use mcpgen_core::tool::PropertyEncoding;

use crate::style::Style;

/// The encoding the binding gives for the property named `name` on the wire, if any.
pub(super) fn encoding_of<'e>(
    encoding: &'e [PropertyEncoding],
    name: &str,
) -> Option<&'e PropertyEncoding> {
    encoding.iter().find(|e| e.property == name)
}

/// The encoding of a property if it sets `style` or `explode`, which makes the property
/// written in that style rather than by the defaults.
pub(super) fn styled(encoding: Option<&PropertyEncoding>) -> Option<&PropertyEncoding> {
    encoding.filter(|e| e.style.is_some() || e.explode.is_some())
}

/// The style and explode an encoding asks for (`form` by default, explode following the
/// style), or a message if the style has no meaning in a body.
pub(super) fn body_style(encoding: &PropertyEncoding, what: &str) -> Result<(Style, bool), String> {
    let style = match encoding.style {
        None => Style::Form,
        Some(name) => match Style::parse(name) {
            Some(
                style @ (Style::Form
                | Style::SpaceDelimited
                | Style::PipeDelimited
                | Style::DeepObject),
            ) => style,
            _ => {
                return Err(format!(
                    "{what} is encoded with style `{name}`, which OpenAPI does not define for                      a request body property (the tool table is broken)"
                ));
            }
        },
    };
    Ok((style, encoding.explode.unwrap_or(style == Style::Form)))
}
