//! The prompts of the suite's prompt scenarios, named and answering as the scenarios expect.

use mcpgen::{Completer, Content, Prompt, PromptArgument, PromptMessage, PromptSet};

use crate::resources::RED_PIXEL_PNG;

/// Every fixture prompt.
pub fn all() -> PromptSet {
    PromptSet::new()
        .prompt(
            Prompt::fixed(
                "test_simple_prompt",
                vec![PromptMessage::user_text(
                    "This is a simple prompt for testing.",
                )],
            )
            .description("A prompt without arguments"),
        )
        .prompt(
            Prompt::new("test_prompt_with_arguments", |args| async move {
                let arg1 = args.get("arg1").unwrap_or_default();
                let arg2 = args.get("arg2").unwrap_or_default();
                Ok(vec![PromptMessage::user_text(format!(
                    "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
                ))])
            })
            .description("A prompt with two required arguments")
            .argument(
                PromptArgument::new("arg1")
                    .description("First test argument")
                    .required()
                    .complete(Completer::from_values(["paris", "park", "party", "test"])),
            )
            .argument(
                PromptArgument::new("arg2")
                    .description("Second test argument")
                    .required(),
            ),
        )
        .prompt(
            Prompt::new("test_prompt_with_embedded_resource", |args| async move {
                let uri = args.get("resourceUri").unwrap_or_default().to_owned();
                Ok(vec![
                    PromptMessage::user(Content::TextResource {
                        uri,
                        mime_type: "text/plain".to_owned(),
                        text: "Embedded resource content for testing.".to_owned(),
                    }),
                    PromptMessage::user_text("Please process the embedded resource above."),
                ])
            })
            .description("A prompt that embeds the resource it is given")
            .argument(
                PromptArgument::new("resourceUri")
                    .description("URI of the resource to embed")
                    .required(),
            ),
        )
        .prompt(
            Prompt::fixed(
                "test_prompt_with_image",
                vec![
                    PromptMessage::user(Content::Image {
                        data: RED_PIXEL_PNG.to_owned(),
                        mime_type: "image/png".to_owned(),
                    }),
                    PromptMessage::user_text("Please analyze the image above."),
                ],
            )
            .description("A prompt with an image: a 1×1 red PNG"),
        )
        .prompt(crate::asking::test_input_required_result_prompt())
}
