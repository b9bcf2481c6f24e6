//! The official conformance suite's feature fixtures: tools that return every kind of
//! content, report progress or fail on purpose, prompts with arguments, embedded resources
//! and images, static resources and a resource template. Names, texts and data are the ones
//! the suite's scenarios call and check. The native server serves them beside the lab's
//! own catalogue; the page does not need them.

use serde_json::{json, Value};

use crate::catalog::{Catalog, Invocation, Outcome, Prompt, Resource, ResourceTemplate, Tool};
use crate::error::RpcError;
use crate::wire::{text_content, InputKind};

/// A 1×1 red PNG.
pub const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file with one silent sample.
pub const WAV_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// Every feature fixture. The first tool answers a call with no arguments (the suite's
/// header scenario calls the first listed tool with `{}`).
// Over 80 lines on purpose: a table, one entry per fixture the conformance suite names, read
// beside the suite's list; splitting it would only scatter the list.
pub fn catalog() -> Catalog {
    let no_args = || json!({"type": "object", "properties": {}});
    let tool = |name, description, handler| Tool {
        name,
        description,
        input_schema: no_args(),
        handler,
        work: None,
    };
    Catalog {
        tools: vec![
            tool("test_simple_text", "Returns one text block.", simple_text),
            tool("test_image_content", "Returns an image.", image),
            tool("test_audio_content", "Returns an audio clip.", audio),
            tool(
                "test_embedded_resource",
                "Returns an embedded text resource.",
                embedded,
            ),
            tool(
                "test_multiple_content_types",
                "Returns text, an image and a resource.",
                mixed,
            ),
            tool(
                "test_error_handling",
                "Fails on purpose, as a tool result with isError.",
                failing,
            ),
            tool(
                "test_tool_with_progress",
                "Reports progress three times, then answers.",
                with_progress,
            ),
            tool(
                "test_missing_capability",
                "Needs the sampling capability; -32021 without it.",
                needs_sampling,
            ),
            tool(
                "test_streaming_elicitation",
                "Answers without ever sending a request on the stream.",
                streaming,
            ),
            tool(
                "test_logging_tool",
                "Sends no log messages unless a log level was asked for.",
                logging,
            ),
            Tool {
                name: "test_param_header",
                description:
                    "Echoes its region, which clients mirror into the Mcp-Param-Region header.",
                input_schema: json!({
                    "type": "object",
                    "properties": {"region": {"type": "string", "x-mcp-header": "Region", "description": "Where to run"}},
                    "required": ["region"],
                }),
                handler: param_header,
                work: None,
            },
            Tool {
                name: "json_schema_2020_12_tool",
                description:
                    "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
                input_schema: json!({
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                    "properties": {
                        "name": {"type": "string"},
                        "address": {"$ref": "#/$defs/address"},
                        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                        "phone": {"type": "string"},
                        "email": {"type": "string"},
                    },
                    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                    "then": {"required": ["phone"]},
                    "else": {"required": ["email"]},
                    "additionalProperties": false,
                }),
                handler: json_schema_tool,
                work: None,
            },
        ],
        prompts: vec![
            Prompt {
                name: "test_simple_prompt",
                description: "A simple prompt without arguments",
                arguments: json!([]),
                handler: simple_prompt,
            },
            Prompt {
                name: "test_prompt_with_arguments",
                description: "A prompt with required arguments",
                arguments: json!([
                    {"name": "arg1", "description": "First test argument", "required": true},
                    {"name": "arg2", "description": "Second test argument", "required": true},
                ]),
                handler: prompt_with_arguments,
            },
            Prompt {
                name: "test_prompt_with_embedded_resource",
                description: "A prompt that embeds a resource",
                arguments: json!([{"name": "resourceUri", "description": "URI of the resource to embed", "required": true}]),
                handler: prompt_with_resource,
            },
            Prompt {
                name: "test_prompt_with_image",
                description: "A prompt that shows an image",
                arguments: json!([]),
                handler: prompt_with_image,
            },
        ],
        resources: vec![
            Resource {
                uri: "test://static-text",
                name: "static-text",
                description: "A static text resource for testing",
                mime_type: "text/plain",
                handler: static_text,
            },
            Resource {
                uri: "test://static-binary",
                name: "static-binary",
                description: "A static binary resource (a PNG) for testing",
                mime_type: "image/png",
                handler: static_binary,
            },
        ],
        templates: vec![ResourceTemplate {
            uri_template: "test://template/{id}/data",
            name: "template",
            description: "Data for any id",
            mime_type: "application/json",
            handler: template_data,
        }],
    }
}

fn result(content: Vec<Value>) -> Outcome {
    Outcome::Complete(json!({"content": content, "isError": false}))
}

fn simple_text(_: &Invocation<'_>) -> Outcome {
    Outcome::text("This is a simple text response for testing.")
}

fn image_block() -> Value {
    json!({"type": "image", "data": PNG_BASE64, "mimeType": "image/png"})
}

fn image(_: &Invocation<'_>) -> Outcome {
    result(vec![image_block()])
}

fn audio(_: &Invocation<'_>) -> Outcome {
    result(vec![
        json!({"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"}),
    ])
}

fn embedded(_: &Invocation<'_>) -> Outcome {
    result(vec![json!({"type": "resource", "resource": {
        "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}})])
}

fn mixed(_: &Invocation<'_>) -> Outcome {
    result(vec![
        text_content("Multiple content types test:"),
        image_block(),
        json!({"type": "resource", "resource": {
            "uri": "test://mixed-content-resource", "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}),
    ])
}

fn failing(_: &Invocation<'_>) -> Outcome {
    Outcome::Complete(json!({
        "content": [text_content("This tool intentionally returns an error for testing")],
        "isError": true,
    }))
}

fn with_progress(inv: &Invocation<'_>) -> Outcome {
    for step in [0, 50, 100] {
        inv.progress(step, 100, &format!("Completed step {step} of 100"));
    }
    let token = match inv.progress_token {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "no progress token".into(),
    };
    Outcome::text(token)
}

fn needs_sampling(inv: &Invocation<'_>) -> Outcome {
    if inv.capabilities.allows(InputKind::Sampling) {
        return Outcome::text("Success");
    }
    Outcome::Error(RpcError::missing_capability(
        "test_missing_capability needs the sampling capability",
        json!({"sampling": {}}),
    ))
}

fn streaming(_: &Invocation<'_>) -> Outcome {
    Outcome::text("Streaming complete")
}

fn logging(_: &Invocation<'_>) -> Outcome {
    Outcome::text("Logging evaluated")
}

fn param_header(inv: &Invocation<'_>) -> Outcome {
    match inv.arguments.get("region").and_then(Value::as_str) {
        Some(r) => Outcome::text(format!("region: {r}")),
        None => Outcome::Error(RpcError::invalid_params(
            "test_param_header needs a string argument \"region\"",
        )),
    }
}

fn json_schema_tool(inv: &Invocation<'_>) -> Outcome {
    Outcome::text(format!(
        "JSON Schema 2020-12 tool called with: {}",
        inv.arguments
    ))
}

fn prompt(messages: Vec<Value>) -> Outcome {
    Outcome::Complete(json!({"messages": messages}))
}

fn user(content: Value) -> Value {
    json!({"role": "user", "content": content})
}

fn simple_prompt(_: &Invocation<'_>) -> Outcome {
    prompt(vec![user(text_content(
        "This is a simple prompt for testing.",
    ))])
}

fn string_argument<'a>(inv: &'a Invocation<'_>, name: &str) -> Result<&'a str, Outcome> {
    inv.arguments
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| {
            Outcome::Error(RpcError::invalid_params(format!(
                "{} needs a string argument {name:?}",
                inv.target
            )))
        })
}

fn prompt_with_arguments(inv: &Invocation<'_>) -> Outcome {
    let (a1, a2) = match (string_argument(inv, "arg1"), string_argument(inv, "arg2")) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    prompt(vec![user(text_content(format!(
        "Prompt with arguments: arg1='{a1}', arg2='{a2}'"
    )))])
}

fn prompt_with_resource(inv: &Invocation<'_>) -> Outcome {
    let uri = match string_argument(inv, "resourceUri") {
        Ok(u) => u,
        Err(e) => return e,
    };
    prompt(vec![
        user(json!({"type": "resource", "resource": {
            "uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing."}})),
        user(text_content("Please process the embedded resource above.")),
    ])
}

fn prompt_with_image(_: &Invocation<'_>) -> Outcome {
    prompt(vec![
        user(image_block()),
        user(text_content("Please analyze the image above.")),
    ])
}

fn read(contents: Value) -> Outcome {
    Outcome::Complete(json!({"contents": [contents], "ttlMs": 300_000, "cacheScope": "public"}))
}

fn static_text(inv: &Invocation<'_>) -> Outcome {
    read(
        json!({"uri": inv.target, "mimeType": "text/plain", "text": "This is the content of the static text resource."}),
    )
}

fn static_binary(inv: &Invocation<'_>) -> Outcome {
    read(json!({"uri": inv.target, "mimeType": "image/png", "blob": PNG_BASE64}))
}

fn template_data(inv: &Invocation<'_>) -> Outcome {
    let id = crate::catalog::match_template("test://template/{id}/data", inv.target)
        .and_then(|v| v.into_iter().next())
        .map(|(_, id)| id)
        .unwrap_or_default();
    let text = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
    read(json!({"uri": inv.target, "mimeType": "application/json", "text": text.to_string()}))
}
