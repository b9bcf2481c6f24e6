//! What a server offers: tools, prompts and resources, each with a handler that either
//! completes or asks for input. Handlers are write-once: the same function serves the
//! 2026-07-28 retry and the legacy shim.

use std::cell::RefCell;

use serde_json::{json, Value};

use crate::error::RpcError;
use crate::ticket::Principal;
use crate::wire::{ClientCapabilities, InputRequest, InputResponses};

/// Everything a handler may look at for one round.
#[derive(Clone, Debug)]
pub struct Invocation<'a> {
    /// The request's method: `tools/call`, `prompts/get` or `resources/read`.
    pub method: &'a str,
    /// The tool or prompt name, or the resource uri.
    pub target: &'a str,
    /// The request's arguments: an object, `{}` when it sent none (and for `resources/read`).
    pub arguments: &'a Value,
    /// This round's valid answers (earlier rounds' answers travel in `state`).
    pub responses: &'a InputResponses,
    /// The handler's own state, read back out of a ticket that passed every check.
    pub state: Option<&'a Value>,
    /// What the request's client declared it can answer.
    pub capabilities: &'a ClientCapabilities,
    /// Who is calling.
    pub principal: &'a Principal,
    /// The request's `_meta.progressToken`, if the client asked for progress.
    pub progress_token: Option<&'a Value>,
    /// Notifications the handler sent while it ran (progress), in order.
    pub notifications: RefCell<Vec<Value>>,
}

impl Invocation<'_> {
    /// The accepted form content of the answer under `key`, if any.
    pub fn accepted(&self, key: &str) -> Option<&serde_json::Map<String, Value>> {
        self.responses.get(key).and_then(|r| r.accepted())
    }

    /// Reports progress, when the client asked for it (a `notifications/progress` that goes
    /// out before the result; on Streamable HTTP that makes the response an SSE stream).
    pub fn progress(&self, progress: u64, total: u64, message: &str) {
        if let Some(token) = self.progress_token {
            self.notifications.borrow_mut().push(json!({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": token, "progress": progress, "total": total, "message": message},
            }));
        }
    }
}

/// What a handler decides.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The result body (the engine adds `resultType`).
    Complete(Value),
    /// Questions for the client, and the work so far (sealed into a ticket when present).
    InputRequired {
        /// Each question under its `inputRequests` key, in order.
        requests: Vec<(String, InputRequest)>,
        /// The work so far, for the next round; `None` sends no ticket.
        state: Option<Value>,
    },
    /// The call fails with this error.
    Error(RpcError),
    /// The call goes on as a task running the tool's work ([`Tool::work`]), started with
    /// this seed (what the work needs: the arguments, and what earlier rounds brought).
    /// Answered with a task only to a request that declared the tasks extension; -32021 to
    /// any other.
    StartTask(Value),
}

impl Outcome {
    /// A tool result with one text block.
    pub fn text(text: impl Into<String>) -> Outcome {
        Outcome::Complete(json!({"content": [crate::wire::text_content(text)], "isError": false}))
    }

    /// One question under `key`, with the work so far.
    pub fn ask(key: &str, request: InputRequest, state: Option<Value>) -> Outcome {
        Outcome::InputRequired {
            requests: vec![(key.to_owned(), request)],
            state,
        }
    }
}

/// What runs a tool, prompt or resource: called once per round with what that round
/// brought, it completes, asks, or fails.
pub type Handler = fn(&Invocation<'_>) -> Outcome;

/// A tool, as `tools/list` lists it and `tools/call` runs it.
#[derive(Clone, Debug)]
pub struct Tool {
    /// Its name, the `tools/call` target.
    pub name: &'static str,
    /// Its description, sent in `tools/list`.
    pub description: &'static str,
    /// The JSON Schema of its arguments (`inputSchema`).
    pub input_schema: Value,
    /// What runs it.
    pub handler: Handler,
    /// The work it runs as a task, when its handler starts one ([`Outcome::StartTask`]).
    pub work: Option<crate::tasks::TaskWork>,
}

/// A prompt, as `prompts/list` lists it and `prompts/get` runs it.
#[derive(Clone, Debug)]
pub struct Prompt {
    /// Its name, the `prompts/get` target.
    pub name: &'static str,
    /// Its description, sent in `prompts/list`.
    pub description: &'static str,
    /// Its `arguments` list as sent in `prompts/list`.
    pub arguments: Value,
    /// What runs it.
    pub handler: Handler,
}

/// A resource, as `resources/list` lists it and `resources/read` reads it.
#[derive(Clone, Debug)]
pub struct Resource {
    /// Its uri, the `resources/read` target.
    pub uri: &'static str,
    /// Its name, sent in `resources/list`.
    pub name: &'static str,
    /// Its description, sent in `resources/list`.
    pub description: &'static str,
    /// Its `mimeType`.
    pub mime_type: &'static str,
    /// What reads it.
    pub handler: Handler,
}

/// A family of resources named by an RFC 6570 level-1 template such as
/// `test://template/{id}/data`; the handler reads the variables out of the uri it gets.
#[derive(Clone, Debug)]
pub struct ResourceTemplate {
    /// The template (`uriTemplate`), matched by [`match_template`].
    pub uri_template: &'static str,
    /// Its name, sent in `resources/templates/list`.
    pub name: &'static str,
    /// Its description, sent in `resources/templates/list`.
    pub description: &'static str,
    /// The `mimeType` of the resources it names.
    pub mime_type: &'static str,
    /// What reads a resource it names.
    pub handler: Handler,
}

/// Everything a server offers. Lookups take the first match, in order.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// The tools.
    pub tools: Vec<Tool>,
    /// The prompts.
    pub prompts: Vec<Prompt>,
    /// The resources with a fixed uri, tried before the templates.
    pub resources: Vec<Resource>,
    /// The resource templates.
    pub templates: Vec<ResourceTemplate>,
}

/// The values of a template's `{variables}` in `uri`, or `None` when it does not match.
/// Each variable matches one or more characters other than `/`.
pub fn match_template(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
    let mut vars = Vec::new();
    let (mut t, mut u) = (template, uri);
    loop {
        match t.find('{') {
            None => return (t == u).then_some(vars),
            Some(open) => {
                let literal = &t[..open];
                u = u.strip_prefix(literal)?;
                let close = t[open..].find('}')? + open;
                let name = &t[open + 1..close];
                t = &t[close + 1..];
                // The value runs to the next literal character (or the end), never past '/'.
                let stop = t.chars().next();
                let end = u
                    .char_indices()
                    .find(|&(_, c)| c == '/' || Some(c) == stop)
                    .map_or(u.len(), |(i, _)| i);
                if end == 0 {
                    return None;
                }
                vars.push((name.to_owned(), u[..end].to_owned()));
                u = &u[end..];
            }
        }
    }
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
                .map(|r| r.handler)
                .or_else(|| {
                    self.templates
                        .iter()
                        .find(|t| match_template(t.uri_template, target).is_some())
                        .map(|t| t.handler)
                }),
            _ => None,
        }
    }

    /// The task work of the tool named `name`, if it runs tasks.
    pub fn task_work(&self, name: &str) -> Option<crate::tasks::TaskWork> {
        self.tools
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.work)
    }

    /// The `tools` array of a `tools/list` result.
    pub fn tools_json(&self) -> Value {
        Value::Array(
            self.tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
                .collect(),
        )
    }

    /// The `prompts` array of a `prompts/list` result.
    pub fn prompts_json(&self) -> Value {
        Value::Array(
            self.prompts
                .iter()
                .map(|p| json!({"name": p.name, "description": p.description, "arguments": p.arguments}))
                .collect(),
        )
    }

    /// The `resources` array of a `resources/list` result.
    pub fn resources_json(&self) -> Value {
        Value::Array(
            self.resources
                .iter()
                .map(|r| json!({"uri": r.uri, "name": r.name, "description": r.description, "mimeType": r.mime_type}))
                .collect(),
        )
    }

    /// The `resourceTemplates` array of a `resources/templates/list` result.
    pub fn templates_json(&self) -> Value {
        Value::Array(
            self.templates
                .iter()
                .map(|t| json!({"uriTemplate": t.uri_template, "name": t.name, "description": t.description, "mimeType": t.mime_type}))
                .collect(),
        )
    }

    /// Every tool, prompt, resource and template of `self`, then those of `more`.
    pub fn and(mut self, more: Catalog) -> Catalog {
        self.tools.extend(more.tools);
        self.prompts.extend(more.prompts);
        self.resources.extend(more.resources);
        self.templates.extend(more.templates);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_level_one_variables() {
        let t = "test://template/{id}/data";
        assert_eq!(
            match_template(t, "test://template/123/data"),
            Some(vec![("id".into(), "123".into())])
        );
        for no in [
            "test://template//data",
            "test://template/1/2/data",
            "test://template/123/datum",
            "test://other/123/data",
            "",
        ] {
            assert_eq!(match_template(t, no), None, "{no}");
        }
        assert_eq!(
            match_template("a://{x}", "a://yz"),
            Some(vec![("x".into(), "yz".into())])
        );
        assert_eq!(match_template("a://b", "a://b"), Some(vec![]));
    }
}
