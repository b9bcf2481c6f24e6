//! What a server offers: tools, prompts and resources, each with a handler that either
//! completes or asks for input. Handlers are write-once: the same function serves the
//! 2026-07-28 retry and the legacy shim.

use serde_json::{json, Value};

use crate::error::RpcError;
use crate::ticket::Principal;
use crate::wire::{ClientCapabilities, InputRequest, InputResponses};

/// Everything a handler may look at for one round.
#[derive(Clone, Debug)]
pub struct Invocation<'a> {
    pub method: &'a str,
    /// The tool or prompt name, or the resource uri.
    pub target: &'a str,
    pub arguments: &'a Value,
    /// This round's valid answers (earlier rounds' answers travel in `state`).
    pub responses: &'a InputResponses,
    /// The handler's own state, read back out of a ticket that passed every check.
    pub state: Option<&'a Value>,
    pub capabilities: &'a ClientCapabilities,
    pub principal: &'a Principal,
}

impl Invocation<'_> {
    /// The accepted form content of the answer under `key`, if any.
    pub fn accepted(&self, key: &str) -> Option<&serde_json::Map<String, Value>> {
        self.responses.get(key).and_then(|r| r.accepted())
    }
}

/// What a handler decides.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The result body (the engine adds `resultType`).
    Complete(Value),
    /// Questions for the client, and the work so far (sealed into a ticket when present).
    InputRequired {
        requests: Vec<(String, InputRequest)>,
        state: Option<Value>,
    },
    Error(RpcError),
}

impl Outcome {
    /// A tool result with one text block.
    pub fn text(text: impl Into<String>) -> Outcome {
        Outcome::Complete(json!({"content": [crate::wire::text_content(text)], "isError": false}))
    }

    pub fn ask(key: &str, request: InputRequest, state: Option<Value>) -> Outcome {
        Outcome::InputRequired {
            requests: vec![(key.to_owned(), request)],
            state,
        }
    }
}

pub type Handler = fn(&Invocation<'_>) -> Outcome;

#[derive(Clone, Debug)]
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
    pub handler: Handler,
}

#[derive(Clone, Debug)]
pub struct Prompt {
    pub name: &'static str,
    pub description: &'static str,
    pub arguments: Value,
    pub handler: Handler,
}

#[derive(Clone, Debug)]
pub struct Resource {
    pub uri: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    pub handler: Handler,
}

#[derive(Clone, Debug, Default)]
pub struct Catalog {
    pub tools: Vec<Tool>,
    pub prompts: Vec<Prompt>,
    pub resources: Vec<Resource>,
}

impl Catalog {
    /// The handler for an input-capable method and target.
    pub fn handler(&self, method: &str, target: &str) -> Option<Handler> {
        match method {
            "tools/call" => self
                .tools
                .iter()
                .find(|t| t.name == target)
                .map(|t| t.handler),
            "prompts/get" => self
                .prompts
                .iter()
                .find(|p| p.name == target)
                .map(|p| p.handler),
            "resources/read" => self
                .resources
                .iter()
                .find(|r| r.uri == target)
                .map(|r| r.handler),
            _ => None,
        }
    }

    pub fn tools_json(&self) -> Value {
        Value::Array(
            self.tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
                .collect(),
        )
    }

    pub fn prompts_json(&self) -> Value {
        Value::Array(
            self.prompts
                .iter()
                .map(|p| json!({"name": p.name, "description": p.description, "arguments": p.arguments}))
                .collect(),
        )
    }

    pub fn resources_json(&self) -> Value {
        Value::Array(
            self.resources
                .iter()
                .map(|r| json!({"uri": r.uri, "name": r.name, "description": r.description, "mimeType": "text/plain"}))
                .collect(),
        )
    }
}
