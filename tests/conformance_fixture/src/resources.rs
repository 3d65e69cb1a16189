//! The resources of the suite's resource scenarios, at the URIs and with the content the
//! scenarios expect.

use mcpgen::{Completer, Resource, ResourceContents, ResourceError, ResourceSet, ResourceTemplate};

/// A 1×1 red PNG.
pub const RED_PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/// Every fixture resource and template; subscriptions are accepted.
pub fn all() -> ResourceSet {
    ResourceSet::new()
        .resource(
            Resource::text(
                "test://static-text",
                "static-text",
                "This is the content of the static text resource.",
            )
            .description("A fixed text resource")
            .mime_type("text/plain"),
        )
        .resource(
            Resource::blob("test://static-binary", "static-binary", RED_PIXEL_PNG)
                .description("A fixed binary resource: a 1×1 red PNG")
                .mime_type("image/png"),
        )
        .resource(
            Resource::text(
                "test://watched-resource",
                "watched-resource",
                "This resource can be subscribed to.",
            )
            .description("A resource clients may subscribe to")
            .mime_type("text/plain"),
        )
        .template(
            ResourceTemplate::new("test://template/{id}/data", "template-data", |read| {
                let id = read.get("id").unwrap_or_default().to_owned();
                async move {
                    // The id goes into JSON as it is, so only plain ids are served.
                    if !id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                    {
                        return Err(ResourceError::NotFound);
                    }
                    let text = format!(
                        r#"{{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}}"#
                    );
                    Ok(vec![
                        ResourceContents::text(read.uri, text).with_mime_type("application/json"),
                    ])
                }
            })
            .description("Data for one id")
            .mime_type("application/json")
            .complete("id", Completer::from_values(["123", "456"])),
        )
        .subscriptions()
}
