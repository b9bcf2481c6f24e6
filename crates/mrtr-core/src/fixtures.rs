//! The lesson's `deploy` tool and every fixture the official conformance scenarios call
//! (the tasks extension's: [`crate::task_fixtures`]).

use serde_json::{json, Value};

use crate::catalog::{Catalog, Invocation, Outcome, Prompt, Resource, Tool};
use crate::error::RpcError;
pub use crate::lesson::LATEST_RELEASE;
use crate::lesson::{confirm_schema, name_request};
use crate::wire::{InputKind, InputRequest, InputResponse};

/// The catalogue of the native server: the conformance suite's feature fixtures first
/// (the suite calls the first listed tool with no arguments), then the lab's own.
pub fn full_catalog() -> Catalog {
    crate::features::catalog()
        .and(catalog())
        .and(crate::task_fixtures::conformance_catalog())
}

/// The lab's catalogue: the deploy tool and the MRTR fixtures the page runs.
pub fn catalog() -> Catalog {
    Catalog {
        tools: vec![
            Tool {
                name: "deploy",
                description: "Deploy to an environment, after the user confirms.",
                input_schema: json!({
                    "type": "object",
                    "properties": {"env": {"type": "string", "description": "Where to deploy, e.g. staging or prod"}},
                    "required": ["env"],
                }),
                handler: deploy,
                work: None,
            },
            fixture(
                "test_input_required_result_elicitation",
                "Asks the user's name.",
                elicitation,
            ),
            fixture(
                "test_input_required_result_sampling",
                "Asks the host's model a question.",
                sampling,
            ),
            fixture(
                "test_input_required_result_list_roots",
                "Asks for the client's roots.",
                list_roots,
            ),
            fixture(
                "test_input_required_result_request_state",
                "Asks a question and keeps state in a ticket.",
                request_state,
            ),
            fixture(
                "test_input_required_result_multiple_inputs",
                "Asks three kinds of input at once.",
                multiple_inputs,
            ),
            fixture(
                "test_input_required_result_multi_round",
                "Asks twice, one round after the other.",
                multi_round,
            ),
            fixture(
                "test_input_required_result_tampered_state",
                "Refuses a ticket that was changed.",
                request_state,
            ),
            fixture(
                "test_input_required_result_capabilities",
                "Asks only for what the client declared.",
                capabilities,
            ),
        ]
        .into_iter()
        .chain(crate::task_fixtures::lab_tools())
        .collect(),
        prompts: vec![Prompt {
            name: "test_input_required_result_prompt",
            description: "A prompt that asks for context first.",
            arguments: json!([]),
            handler: prompt,
        }],
        resources: vec![Resource {
            uri: "mrtr://lab/deploy-log",
            name: "deploy-log",
            description: "The deploy log, shown after the user confirms.",
            mime_type: "text/plain",
            handler: deploy_log,
        }],
        templates: Vec::new(),
    }
}

fn fixture(
    name: &'static str,
    description: &'static str,
    handler: crate::catalog::Handler,
) -> Tool {
    Tool {
        name,
        description,
        input_schema: json!({"type": "object", "properties": {}}),
        handler,
        work: None,
    }
}

/// The lesson's tool. First call: work out which release to deploy, then ask `confirm`,
/// sealing `{env, release}` into the ticket. Retry with a verified ticket and an answer:
/// deploy the release the user confirmed, to the environment, both read back out of the
/// ticket (the retry's arguments say only where).
pub fn deploy(inv: &Invocation<'_>) -> Outcome {
    let Some(env) = inv.arguments.get("env").and_then(Value::as_str) else {
        return Outcome::Error(RpcError::invalid_params(
            "deploy needs a string argument \"env\"",
        ));
    };
    let mut release = LATEST_RELEASE;
    let mut env = env;
    if let Some(state) = inv.state {
        // The work comes from the ticket, not the arguments: that is what lets any replica
        // finish, and why the ticket must be protected. The release is work the first call
        // did that the retry does not repeat: a newer build may exist by now, but the user
        // confirmed this one.
        env = state.get("env").and_then(Value::as_str).unwrap_or(env);
        release = state
            .get("release")
            .and_then(Value::as_str)
            .unwrap_or(release);
        // Without a valid answer, fall through and ask again.
        if let Some(InputResponse::Elicit { content, .. }) = inv.responses.get("confirm") {
            let yes = inv.accepted("confirm").is_some()
                && content
                    .as_ref()
                    .and_then(|c| c.get("confirm"))
                    .and_then(Value::as_bool)
                    == Some(true);
            return if yes {
                Outcome::text(format!("deployed to {env}, release {release}"))
            } else {
                Outcome::text(format!(
                    "not deployed: the user did not confirm the deploy to {env}"
                ))
            };
        }
    }
    Outcome::ask(
        "confirm",
        InputRequest::elicit(
            format!("Deploy release {release} to {env}?"),
            confirm_schema(),
        ),
        Some(json!({"env": env, "release": release})),
    )
}

fn elicitation(inv: &Invocation<'_>) -> Outcome {
    if let Some(name) = inv
        .accepted("user_name")
        .and_then(|c| c.get("name"))
        .and_then(Value::as_str)
    {
        return Outcome::text(format!("Hello, {name}!"));
    }
    Outcome::ask("user_name", name_request(), None)
}

fn sampling(inv: &Invocation<'_>) -> Outcome {
    if let Some(text) = inv
        .responses
        .get("capital_question")
        .and_then(|r| r.sampled_text())
    {
        return Outcome::text(format!("The model answered: {text}"));
    }
    Outcome::ask(
        "capital_question",
        InputRequest::sample_text("What is the capital of France?", 100),
        None,
    )
}

fn roots_of(r: Option<&InputResponse>) -> Option<Vec<String>> {
    match r {
        Some(InputResponse::Roots(list)) => Some(
            list.iter()
                .filter_map(|r| r.get("uri").and_then(Value::as_str).map(str::to_owned))
                .collect(),
        ),
        _ => None,
    }
}

fn list_roots(inv: &Invocation<'_>) -> Outcome {
    if let Some(uris) = roots_of(inv.responses.get("client_roots")) {
        return Outcome::text(format!("Roots: {}", uris.join(", ")));
    }
    Outcome::ask("client_roots", InputRequest::Roots, None)
}

fn request_state(inv: &Invocation<'_>) -> Outcome {
    if inv.state.is_some() {
        if let Some(ok) = inv
            .accepted("confirm")
            .and_then(|c| c.get("ok"))
            .and_then(Value::as_bool)
        {
            return Outcome::text(format!("state-ok (confirmed: {ok})"));
        }
    }
    Outcome::ask(
        "confirm",
        InputRequest::elicit(
            "Continue?",
            json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
        ),
        Some(json!({"step": "confirm"})),
    )
}

fn multiple_inputs(inv: &Invocation<'_>) -> Outcome {
    let caps = inv.capabilities;
    let mut requests = Vec::new();
    if caps.allows(InputKind::ElicitForm) {
        requests.push(("user_name".to_owned(), name_request()));
    }
    if caps.allows(InputKind::Sampling) {
        requests.push((
            "greeting".to_owned(),
            InputRequest::sample_text("Write a one-line greeting.", 50),
        ));
    }
    if caps.allows(InputKind::Roots) {
        requests.push(("client_roots".to_owned(), InputRequest::Roots));
    }
    if requests.is_empty() {
        return Outcome::Error(RpcError::missing_capability(
            "This tool needs elicitation, sampling or roots",
            json!({"elicitation": {"form": {}}}),
        ));
    }
    let answered = requests.iter().all(|(k, _)| inv.responses.get(k).is_some());
    if inv.state.is_some() && answered {
        let name = inv
            .accepted("user_name")
            .and_then(|c| c.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("(no name)");
        let greeting = inv
            .responses
            .get("greeting")
            .and_then(|r| r.sampled_text())
            .unwrap_or("(no greeting)");
        let roots = roots_of(inv.responses.get("client_roots")).unwrap_or_default();
        return Outcome::text(format!(
            "name: {name}; greeting: {greeting}; roots: {}",
            roots.join(", ")
        ));
    }
    Outcome::InputRequired {
        requests,
        state: Some(json!({"step": "all"})),
    }
}

fn multi_round(inv: &Invocation<'_>) -> Outcome {
    let round = inv
        .state
        .and_then(|s| s.get("round"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let step = |n: u32| {
        InputRequest::elicit(
            format!("Step {n}: continue?"),
            json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
        )
    };
    match round {
        1 if inv.responses.get("step1").is_some() => {
            // Answers are per round: fold what step 1 decided into the next ticket (only
            // that: a ticket has a size limit, and an answer may carry anything).
            let first = inv
                .accepted("step1")
                .and_then(|c| c.get("ok"))
                .and_then(Value::as_bool);
            Outcome::ask("step2", step(2), Some(json!({"round": 2, "step1": first})))
        }
        2 if inv.responses.get("step2").is_some() => {
            Outcome::text("multi-round complete: both steps answered")
        }
        1 => Outcome::ask("step1", step(1), Some(json!({"round": 1}))),
        2 => Outcome::ask("step2", step(2), inv.state.cloned()),
        _ => Outcome::ask("step1", step(1), Some(json!({"round": 1}))),
    }
}

/// Adapts to what the client declared instead of failing: the conformance suite expects an
/// `input_required` that uses only declared kinds.
fn capabilities(inv: &Invocation<'_>) -> Outcome {
    let key = "answer";
    if let Some(r) = inv.responses.get(key) {
        if inv.state.is_some() {
            let what = match r {
                InputResponse::Elicit { .. } => "elicitation",
                InputResponse::Sampling(_) => "sampling",
                InputResponse::Roots(_) => "roots",
            };
            return Outcome::text(format!("answered by {what}"));
        }
    }
    let caps = inv.capabilities;
    let request = if caps.allows(InputKind::ElicitForm) {
        InputRequest::elicit(
            "Pick a colour",
            json!({"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}),
        )
    } else if caps.allows(InputKind::Sampling) {
        InputRequest::sample_text("Pick a colour.", 20)
    } else if caps.allows(InputKind::Roots) {
        InputRequest::Roots
    } else {
        return Outcome::Error(RpcError::missing_capability(
            "This tool needs elicitation, sampling or roots",
            json!({"elicitation": {"form": {}}}),
        ));
    };
    let asked = request.method();
    Outcome::ask(key, request, Some(json!({"asked": asked})))
}

fn prompt(inv: &Invocation<'_>) -> Outcome {
    if let Some(ctx) = inv
        .accepted("user_context")
        .and_then(|c| c.get("context"))
        .and_then(Value::as_str)
    {
        return Outcome::Complete(json!({
            "description": "A prompt built from the user's context",
            "messages": [{"role": "user", "content": {"type": "text", "text": format!("Context: {ctx}")}}],
        }));
    }
    Outcome::ask(
        "user_context",
        InputRequest::elicit(
            "What context should the prompt use?",
            json!({"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}),
        ),
        Some(json!({"prompt": "context"})),
    )
}

fn deploy_log(inv: &Invocation<'_>) -> Outcome {
    if inv.state.is_some() && inv.accepted("confirm").is_some() {
        return Outcome::Complete(json!({
            "contents": [{"uri": inv.target, "mimeType": "text/plain", "text": "staging: deployed\nprod: not deployed"}],
            "ttlMs": 0,
            "cacheScope": "private",
        }));
    }
    Outcome::ask(
        "confirm",
        InputRequest::elicit("Show the deploy log?", confirm_schema()),
        Some(json!({"read": inv.target})),
    )
}
