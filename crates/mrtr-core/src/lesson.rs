//! What the lesson's tools share, whether they ask in MRTR rounds ([`crate::fixtures`]) or
//! inside a task ([`crate::task_fixtures`]): the release the deploy resolves, and the questions
//! asked.

use serde_json::{json, Value};

use crate::wire::InputRequest;

/// The build the deploy tool resolves on a first call: the newest release, as a real tool
/// would look it up. Fixed here, so every run and test sees the same.
pub const LATEST_RELEASE: &str = "2026.11.30-2";

/// The schema of a yes-or-no confirmation (`confirm`, a boolean).
pub fn confirm_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"confirm": {"type": "boolean", "title": "Confirm", "description": "Go ahead?"}},
        "required": ["confirm"],
    })
}

/// "What is your name?" (`name`, a string).
pub fn name_request() -> InputRequest {
    InputRequest::elicit(
        "What is your name?",
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    )
}
