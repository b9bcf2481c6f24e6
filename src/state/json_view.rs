//! Pretty-printed JSON as tokens, with the MRTR fields marked for explanation and the
//! differences between a call and its retry marked for highlighting. Pure: tested natively.

use mrtr_world::diff::{Change, FieldChange};
use serde_json::Value;

/// One run of text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    /// The key this token names, when the page explains it.
    pub field: Option<&'static str>,
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
    pub ticket_face: &'a dyn Fn(&str) -> String,
    /// The ticket the server issued: any other one is marked as edited.
    pub issued: Option<&'a str>,
}

/// What each explained field means, in the lab's words.
pub fn explain(key: &str) -> Option<(&'static str, &'static str)> {
    let text = match key {
        "jsonrpc" => "Always \"2.0\": every MCP message is JSON-RPC.",
        "id" => "Pairs a response with its request. A retry stands on its own, so it carries an id of its own.",
        "method" => "What is asked for. The retry repeats it unchanged.",
        "params" => "The request's details, and the MCP envelope in _meta.",
        "_meta" => "The per-request envelope: protocol version, client info and declared capabilities. It travels with every request because the server remembers nothing in between.",
        "io.modelcontextprotocol/clientCapabilities" => "What this client can do for the server. The server may only ask for kinds declared here, in this very request.",
        "io.modelcontextprotocol/protocolVersion" => "The protocol revision of this request. Unknown versions get -32022 with the supported list.",
        "name" => "The tool to call.",
        "arguments" => "The tool's arguments. The ticket carries a digest of them, so a staging ticket cannot be spent on prod.",
        "result" => "A successful answer. Asking for input is also a result, not an error.",
        "resultType" => "\"complete\" means done; \"input_required\" means the server needs answers before it can finish.",
        "inputRequests" => "The server's questions, under keys it chose. Each is an elicitation, sampling or roots request.",
        "requestState" => "The ticket: the server's half-done work, signed. The client sends it back byte for byte and never reads or changes it.",
        "inputResponses" => "The answers, under the same keys as the questions.",
        "content" => "What the tool returns.",
        "error" => "A refusal. The lab's server answers every bad ticket with the same -32602, whatever the reason, as both SDKs do: the spec asks only that it refuse, and one answer for all tells a prober nothing.",
        _ => return None,
    };
    // The static key is what the page uses as an anchor.
    let id = match key {
        "jsonrpc" => "jsonrpc",
        "id" => "id",
        "method" => "method",
        "params" => "params",
        "_meta" => "_meta",
        "io.modelcontextprotocol/clientCapabilities" => "clientCapabilities",
        "io.modelcontextprotocol/protocolVersion" => "protocolVersion",
        "name" => "name",
        "arguments" => "arguments",
        "result" => "result",
        "resultType" => "resultType",
        "inputRequests" => "inputRequests",
        "requestState" => "requestState",
        "inputResponses" => "inputResponses",
        "content" => "content",
        _ => "error",
    };
    Some((id, text))
}

/// The explanation of the key `key` at `path` (dotted, from the message's top): a key
/// explained only where it means what its note says (`name` is the tool's name in `params`,
/// not `clientInfo.name`).
pub fn explain_at(path: &str, key: &str) -> Option<(&'static str, &'static str)> {
    match key {
        "name" if path != "params.name" => None,
        _ => explain(key),
    }
}

/// A JSON-RPC message in one line, for a folded view: what it asks, or how it answers.
pub fn one_line(msg: &Value) -> String {
    let id = msg
        .get("id")
        .map(|i| format!(" (id {i})"))
        .unwrap_or_default();
    if let Some(m) = msg.get("method").and_then(Value::as_str) {
        let target = msg
            .pointer("/params/name")
            .or_else(|| msg.pointer("/params/uri"))
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
    if let Some(e) = msg.get("error") {
        let code = e.get("code").map(Value::to_string).unwrap_or_default();
        let text = e.get("message").and_then(Value::as_str).unwrap_or("");
        return format!("error {code} {text:?}{id}");
    }
    match msg.pointer("/result/resultType").and_then(Value::as_str) {
        Some(kind) => format!("result, {kind}{id}"),
        None if msg.get("result").is_some() => format!("result{id}"),
        None => "not a JSON-RPC message".to_owned(),
    }
}

/// Tokens of `value`, indented by two spaces. `changes` marks keys (top level, and one level
/// under `params`) that differ from the call.
pub fn tokens(value: &Value, changes: &[FieldChange]) -> Vec<Token> {
    let mut out = Vec::new();
    write(value, 0, "", changes, None, &mut out);
    out
}

/// The same tokens with the envelope folded and each ticket shown as a chip: a message read
/// for what it says, not byte by byte.
pub fn folded_tokens(value: &Value, changes: &[FieldChange], f: &Folding) -> Vec<Token> {
    let mut out = Vec::new();
    write(value, 0, "", changes, Some(f), &mut out);
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

fn write(
    v: &Value,
    depth: usize,
    path: &str,
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
                out.push(Token {
                    text: serde_json::to_string(k).unwrap_or_default(),
                    field: explain_at(&child_path, k).map(|(id, _)| id),
                    change,
                    folded: None,
                });
                plain(out, ": ");
                write(child, depth + 1, &child_path, changes, fold, out);
                plain(out, if i + 1 < m.len() { ",\n" } else { "\n" });
            }
            plain(out, format!("{}}}", pad(depth)));
        }
        Value::Array(a) if !a.is_empty() => {
            plain(out, "[\n");
            for (i, child) in a.iter().enumerate() {
                plain(out, pad(depth + 1));
                write(child, depth + 1, path, changes, fold, out);
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
        assert_eq!(explain_at("params._meta.x.name", "name"), None);
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
        for key in [
            "id",
            "resultType",
            "inputRequests",
            "requestState",
            "inputResponses",
            "_meta",
        ] {
            assert!(explain(key).is_some(), "{key}");
        }
    }
}
