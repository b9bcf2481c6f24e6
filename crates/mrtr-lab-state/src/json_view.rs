//! Pretty-printed JSON as tokens, with the MRTR fields marked for explanation and the
//! differences between a call and its retry marked for highlighting. Pure: tested natively.

use mrtr_core::answered::{classify, Answered};
use mrtr_world::diff::{Change, FieldChange};
use serde_json::Value;

/// One run of text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The text.
    pub text: String,
    /// The key this token names, when the page explains it.
    pub field: Option<&'static str>,
    /// How the token's field changed, when it did.
    pub change: Option<Change>,
    /// Stands for folded content.
    pub folded: Option<Folded>,
}

/// What a folded token stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Folded {
    /// An object read on demand: the `_meta` envelope, a form's schema.
    Object,
    /// A ticket, shown as what it says.
    Ticket,
    /// A ticket that is not the one the server issued: changed on the way back.
    EditedTicket,
}

/// What a folded message hides: `_meta` (the envelope) and a form's `requestedSchema`, and
/// each ticket string, shown as what anyone holding it reads.
pub struct Folding<'a> {
    /// What anyone holding a ticket reads of it: the chip's text.
    pub ticket_face: &'a dyn Fn(&str) -> String,
    /// The ticket the server issued: any other one is marked as edited.
    pub issued: Option<&'a str>,
}

/// A note on a key of a message, found by where the key sits (its JSON path), never by its
/// name alone: `method` at the top is what the request asks for, but inside `inputRequests`
/// it is the kind of a question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note {
    /// The page's anchor for it (`tip-{id}`).
    pub id: &'static str,
    /// The note's text.
    pub text: &'static str,
    /// Where it applies: paths of keys from the message's top, `*` for any one key (the keys
    /// the server chose for its questions).
    pub paths: &'static [&'static [&'static str]],
}

/// Every key the page explains, in the lab's words.
pub const NOTES: [Note; 22] = [
    Note { id: "jsonrpc", paths: &[&["jsonrpc"]], text: "Always \"2.0\": every MCP message is JSON-RPC." },
    Note { id: "id", paths: &[&["id"]], text: "Pairs a response with its request. A retry stands on its own, so it carries an id of its own." },
    Note { id: "method", paths: &[&["method"]], text: "What is asked for. The retry repeats it unchanged." },
    Note { id: "params", paths: &[&["params"]], text: "The request's details, and the MCP envelope in _meta." },
    Note { id: "_meta", paths: &[&["params", "_meta"]], text: "The per-request envelope: protocol version, client info and declared capabilities. It travels with every request because the server remembers nothing in between." },
    Note { id: "clientCapabilities", paths: &[&["params", "_meta", "io.modelcontextprotocol/clientCapabilities"]], text: "What this client can do for the server. The server may only ask for kinds declared here, in this very request." },
    Note { id: "protocolVersion", paths: &[&["params", "_meta", "io.modelcontextprotocol/protocolVersion"]], text: "The protocol revision of this request. Unknown versions get -32022 with the supported list." },
    Note { id: "name", paths: &[&["params", "name"]], text: "The tool to call." },
    Note { id: "arguments", paths: &[&["params", "arguments"]], text: "The tool's arguments. The ticket carries a digest of them, so a staging ticket cannot be spent on prod." },
    Note { id: "result", paths: &[&["result"]], text: "A successful answer. Asking for input is also a result, not an error." },
    Note { id: "resultType", paths: &[&["result", "resultType"]], text: "\"complete\" means done; \"input_required\" means the server needs answers before it can finish." },
    Note { id: "inputRequests", paths: &[&["result", "inputRequests"]], text: "The server's questions, under keys it chose. Each is an elicitation, sampling or roots request." },
    Note { id: "inputRequests-key", paths: &[&["result", "inputRequests", "*"]], text: "One question, under a key the server chose: the answer comes back under the same key in inputResponses." },
    Note { id: "inputRequests-method", paths: &[&["result", "inputRequests", "*", "method"]], text: "The kind of question: elicitation/create asks the user, through the host (sampling/createMessage would ask the host's model; roots/list, for the client's folders). A 2025-11-25 server sent the client such a request of its own; here it only rides inside the result, and the client does the asking." },
    Note { id: "inputRequests-params", paths: &[&["result", "inputRequests", "*", "params"]], text: "What the client needs to ask the question: for a form, the message to show and the schema of the answer (requestedSchema)." },
    Note { id: "requestState", paths: &[&["result", "requestState"], &["params", "requestState"]], text: "The ticket: the server's half-done work, signed. The client sends it back byte for byte and never reads or changes it." },
    Note { id: "inputResponses", paths: &[&["params", "inputResponses"]], text: "The answers, under the same keys as the questions." },
    Note { id: "inputResponses-key", paths: &[&["params", "inputResponses", "*"]], text: "The answer to the question of the same key in inputRequests." },
    Note { id: "inputResponses-action", paths: &[&["params", "inputResponses", "*", "action"]], text: "What the user did with the form: accept, decline or cancel. Only an accepted answer carries content." },
    Note { id: "inputResponses-content", paths: &[&["params", "inputResponses", "*", "content"]], text: "The user's answer, shaped as the question's requestedSchema asked." },
    Note { id: "content", paths: &[&["result", "content"]], text: "What the tool returns." },
    Note { id: "error", paths: &[&["error"]], text: "A refusal. The lab's server answers every bad ticket with the same -32602, whatever the reason, as both SDKs do: the spec asks only that it refuse, and one answer for all tells a prober nothing." },
];

/// The note on the key at `path` (its keys from the message's top), if the page explains it.
pub fn note_at(path: &[&str]) -> Option<&'static Note> {
    NOTES.iter().find(|n| {
        n.paths
            .iter()
            .any(|p| p.len() == path.len() && p.iter().zip(path).all(|(a, b)| *a == "*" || a == b))
    })
}

/// The note of that id.
pub fn note(id: &str) -> Option<&'static Note> {
    NOTES.iter().find(|n| n.id == id)
}

/// A JSON-RPC message in one line, for a folded view: what it asks, or how it answers.
pub fn one_line(msg: &Value) -> String {
    let id = msg
        .get("id")
        .map(|i| format!(" (id {i})"))
        .unwrap_or_default();
    if let Some(m) = msg.get("method").and_then(Value::as_str) {
        // What the request names: a tool, prompt, resource or task (the `Mcp-Name` rule).
        let target = mrtr_core::headers::name_param(m)
            .and_then(|key| msg.get("params")?.get(key))
            .and_then(Value::as_str)
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        let what = if msg.get("id").is_some() {
            "request"
        } else {
            "notification"
        };
        return format!("{what} {m}{target}{id}");
    }
    // A call answered with a task (read by a client that declared the tasks extension).
    if let Some(task) = mrtr_core::answered::created_task(msg) {
        let status = task.get("status").and_then(Value::as_str).unwrap_or("?");
        return format!("result, task, {status}{id}");
    }
    // An answer, as the core's one classifier reads it; the resultType shown as written, and a
    // task's status when the result is one (tasks/get).
    match classify(msg) {
        Answered::Error(e) => format!("error {} {:?}{id}", e.code, e.message),
        Answered::Complete(r) | Answered::InputRequired(r) => {
            let status = r
                .get("taskId")
                .and(r.get("status"))
                .and_then(Value::as_str)
                .map(|s| format!(", task {s}"))
                .unwrap_or_default();
            match r.get("resultType").and_then(Value::as_str) {
                Some(kind) => format!("result, {kind}{status}{id}"),
                None => format!("result{status}{id}"),
            }
        }
        Answered::Malformed(_) => "not a JSON-RPC message".to_owned(),
    }
}

/// Tokens of `value`, indented by two spaces. `changes` marks keys (top level, and one level
/// under `params`) that differ from the call.
pub fn tokens(value: &Value, changes: &[FieldChange]) -> Vec<Token> {
    let mut out = Vec::new();
    write(value, 0, "", &mut Vec::new(), changes, None, &mut out);
    out
}

/// The same tokens with the envelope folded and each ticket shown as a chip: a message read
/// for what it says, not byte by byte.
pub fn folded_tokens(value: &Value, changes: &[FieldChange], f: &Folding) -> Vec<Token> {
    let mut out = Vec::new();
    write(value, 0, "", &mut Vec::new(), changes, Some(f), &mut out);
    out
}

fn plain(out: &mut Vec<Token>, text: impl Into<String>) {
    let text = text.into();
    if let Some(last) = out.last_mut() {
        if last.field.is_none() && last.change.is_none() && last.folded.is_none() {
            last.text.push_str(&text);
            return;
        }
    }
    out.push(Token {
        text,
        field: None,
        change: None,
        folded: None,
    });
}

/// Writes `v`, at dotted `path` (for the retry's changes) whose keys are `keys` (for notes).
fn write<'a>(
    v: &'a Value,
    depth: usize,
    path: &str,
    keys: &mut Vec<&'a str>,
    changes: &[FieldChange],
    fold: Option<&Folding>,
    out: &mut Vec<Token>,
) {
    let pad = |d: usize| "  ".repeat(d);
    let key = path.rsplit('.').next().unwrap_or(path);
    match (fold, v) {
        (Some(_), Value::Object(m)) if key == "_meta" || key == "requestedSchema" => {
            return out.push(Token {
                text: format!("{{ … {} fields }}", m.len()),
                field: None,
                change: None,
                folded: Some(Folded::Object),
            });
        }
        (Some(f), Value::String(t)) if key == "requestState" => {
            let edited = f.issued.is_some_and(|i| i != t);
            return out.push(Token {
                text: format!(
                    "{}: {}",
                    if edited { "edited ticket" } else { "ticket" },
                    (f.ticket_face)(t)
                ),
                field: None,
                change: None,
                folded: Some(if edited {
                    Folded::EditedTicket
                } else {
                    Folded::Ticket
                }),
            });
        }
        _ => {}
    }
    match v {
        Value::Object(m) if !m.is_empty() => {
            plain(out, "{\n");
            for (i, (k, child)) in m.iter().enumerate() {
                plain(out, pad(depth + 1));
                let child_path = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                let change = changes
                    .iter()
                    .find(|c| c.path == child_path && c.change != Change::Same)
                    .map(|c| c.change);
                keys.push(k);
                out.push(Token {
                    text: serde_json::to_string(k).unwrap_or_default(),
                    field: note_at(keys).map(|n| n.id),
                    change,
                    folded: None,
                });
                plain(out, ": ");
                write(child, depth + 1, &child_path, keys, changes, fold, out);
                keys.pop();
                plain(out, if i + 1 < m.len() { ",\n" } else { "\n" });
            }
            plain(out, format!("{}}}", pad(depth)));
        }
        Value::Array(a) if !a.is_empty() => {
            plain(out, "[\n");
            for (i, child) in a.iter().enumerate() {
                plain(out, pad(depth + 1));
                write(child, depth + 1, path, keys, changes, fold, out);
                plain(out, if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            plain(out, format!("{}]", pad(depth)));
        }
        other => plain(out, other.to_string()),
    }
}

/// The tokens' text joined: must equal serde_json's pretty form.
pub fn text(tokens: &[Token]) -> String {
    tokens.iter().map(|t| t.text.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr_world::diff::retry_changes;
    use serde_json::json;

    #[test]
    fn a_message_in_one_line() {
        assert_eq!(
            one_line(
                &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "deploy"}})
            ),
            "request tools/call deploy (id 2)"
        );
        assert_eq!(
            one_line(&json!({"id": 2, "error": {"code": -32021, "message": "Missing capability"}})),
            "error -32021 \"Missing capability\" (id 2)"
        );
        assert_eq!(
            one_line(&json!({"id": 3, "result": {"resultType": "input_required"}})),
            "result, input_required (id 3)"
        );
        assert_eq!(
            one_line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            "notification notifications/initialized"
        );
        assert_eq!(one_line(&json!([1])), "not a JSON-RPC message");
        // What the core cannot read as an answer is not summed up as one.
        for bad in [
            json!({"id": 4, "error": {"code": "-32602", "message": "x"}}),
            json!({"id": 4, "result": {"resultType": "later"}}),
            json!({"id": 4, "result": {}, "error": {"code": -32602, "message": "x"}}),
        ] {
            assert_eq!(one_line(&bad), "not a JSON-RPC message", "{bad}");
        }
        // The tasks extension: a call answered with a task, a task read, a task named.
        assert_eq!(
            one_line(
                &json!({"id": 5, "result": {"resultType": "task", "taskId": "t", "status": "working"}})
            ),
            "result, task, working (id 5)"
        );
        assert_eq!(
            one_line(
                &json!({"id": 6, "result": {"resultType": "complete", "taskId": "t", "status": "input_required"}})
            ),
            "result, complete, task input_required (id 6)"
        );
        assert_eq!(
            one_line(&json!({"id": 7, "method": "tasks/get", "params": {"taskId": "t1"}})),
            "request tasks/get t1 (id 7)"
        );
    }

    #[test]
    fn only_the_tools_name_is_explained_as_the_tool_to_call() {
        let v = json!({"params": {"name": "deploy", "_meta": {"io.modelcontextprotocol/clientInfo": {"name": "lab-client"}}}});
        let named: Vec<String> = tokens(&v, &[])
            .into_iter()
            .filter(|t| t.field == Some("name"))
            .map(|t| t.text)
            .collect();
        assert_eq!(named, ["\"name\""]);
        assert_eq!(note_at(&["params", "_meta", "x", "name"]), None);
    }

    #[test]
    fn nested_keys_get_their_own_notes_not_the_envelopes() {
        let asked = json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "input_required",
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {"mode": "form", "message": "Deploy?"}}},
            "requestState": "v1.a.b"}});
        let retry = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "deploy",
            "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}, "requestState": "v1.a.b"}});
        let done = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "deployed"}]}});
        let fields = |v: &Value| -> Vec<(String, &'static str)> {
            tokens(v, &[])
                .into_iter()
                .filter_map(|t| t.field.map(|f| (t.text, f)))
                .collect()
        };
        let of = |v: &Value, key: &str| -> Vec<&'static str> {
            fields(v)
                .into_iter()
                .filter(|(t, _)| *t == format!("{key:?}"))
                .map(|(_, f)| f)
                .collect()
        };
        // The question's method and params are the question's, not the request's.
        assert_eq!(of(&asked, "method"), ["inputRequests-method"]);
        assert_eq!(of(&asked, "params"), ["inputRequests-params"]);
        assert_eq!(of(&asked, "confirm"), ["inputRequests-key"]);
        assert_eq!(of(&retry, "method"), ["method"]);
        assert_eq!(of(&retry, "params"), ["params"]);
        // The user's content is not the tool's.
        assert_eq!(of(&retry, "content"), ["inputResponses-content"]);
        assert_eq!(of(&retry, "action"), ["inputResponses-action"]);
        assert_eq!(of(&done, "content"), ["content"]);
        assert_eq!(of(&asked, "requestState"), ["requestState"]);
        assert_eq!(of(&retry, "requestState"), ["requestState"]);
        // Keys no note is about are left alone, whatever their name.
        assert!(of(&asked, "message").is_empty());
        assert!(of(&retry, "confirm") == ["inputResponses-key"]);
        assert!(of(&json!({"params": {"x": {"method": 1, "id": 2}}}), "method").is_empty());
        // Each note has its own id and text, and no two notes claim one place.
        for (i, n) in NOTES.iter().enumerate() {
            assert!(
                NOTES[..i].iter().all(|o| o.id != n.id && o.text != n.text),
                "{}",
                n.id
            );
            for p in n.paths {
                assert_eq!(note_at(p).map(|m| m.id), Some(n.id), "{p:?}");
            }
            assert_eq!(note(n.id), Some(n));
        }
    }

    #[test]
    fn text_equals_the_pretty_form() {
        let v =
            json!({"jsonrpc": "2.0", "id": 3, "params": {"a": [1, {"b": null}], "e": {}, "f": []}});
        assert_eq!(
            text(&tokens(&v, &[])),
            serde_json::to_string_pretty(&v).unwrap()
        );
    }

    #[test]
    fn mrtr_fields_are_marked_and_retry_changes_highlighted() {
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "deploy"}});
        let retry = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "deploy", "requestState": "v1.a.b"}});
        let t = tokens(&retry, &retry_changes(&call, &retry));
        let id = t.iter().find(|t| t.text == "\"id\"").unwrap();
        assert_eq!((id.field, id.change), (Some("id"), Some(Change::Changed)));
        let rs = t.iter().find(|t| t.text == "\"requestState\"").unwrap();
        assert_eq!(
            (rs.field, rs.change),
            (Some("requestState"), Some(Change::Added))
        );
        let method = t.iter().find(|t| t.text == "\"method\"").unwrap();
        assert_eq!(method.change, None);
        for id in [
            "id",
            "resultType",
            "inputRequests",
            "requestState",
            "inputResponses",
            "_meta",
        ] {
            assert!(note(id).is_some(), "{id}");
        }
    }
}
