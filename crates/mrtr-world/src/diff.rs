//! What changed between a call and its retry, field by field.

use serde_json::Value;

/// How a field of the retry compares with the call's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Equal in both (or absent from both).
    Same,
    /// In both, with different values.
    Changed,
    /// Only in the retry.
    Added,
    /// Only in the call.
    Removed,
}

/// A top-level field of the request or of its params, and how it differs in the retry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldChange {
    /// `id`, `method`, or `params.<key>`.
    pub path: String,
    /// How it differs.
    pub change: Change,
}

/// Compares `id`, `method` and every key of `params`.
pub fn retry_changes(call: &Value, retry: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    for key in ["id", "method"] {
        out.push(FieldChange {
            path: key.to_owned(),
            change: compare(call.get(key), retry.get(key)),
        });
    }
    let empty = serde_json::Map::new();
    let a = call
        .get("params")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let b = retry
        .get("params")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for k in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
        out.push(FieldChange {
            path: format!("params.{k}"),
            change: compare(a.get(k), b.get(k)),
        });
    }
    out
}

fn compare(a: Option<&Value>, b: Option<&Value>) -> Change {
    match (a, b) {
        (Some(x), Some(y)) if x == y => Change::Same,
        (Some(_), Some(_)) => Change::Changed,
        (None, Some(_)) => Change::Added,
        (Some(_), None) => Change::Removed,
        (None, None) => Change::Same,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_retry_changes_the_id_and_adds_answers_and_ticket() {
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "deploy", "arguments": {"env": "staging"}}});
        let retry = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "deploy", "arguments": {"env": "staging"}, "inputResponses": {}, "requestState": "v1.x.y"}});
        let c = retry_changes(&call, &retry);
        let get = |p: &str| c.iter().find(|f| f.path == p).unwrap().change;
        assert_eq!(get("id"), Change::Changed);
        assert_eq!(get("method"), Change::Same);
        assert_eq!(get("params.arguments"), Change::Same);
        assert_eq!(get("params.inputResponses"), Change::Added);
        assert_eq!(get("params.requestState"), Change::Added);
    }
}
