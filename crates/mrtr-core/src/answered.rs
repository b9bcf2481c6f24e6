//! How a JSON-RPC response answered: done, asking for input, refused, or not a response at all.
//! The one reading of a response in the workspace: the client, the world, the audit, the
//! native client and the page all classify with [`classify`] and map its [`Answered`] to
//! their own words.

use serde_json::Value;

use crate::error::RpcError;
use crate::wire::ResultType;

/// What a JSON-RPC response says, read once.
#[derive(Clone, Debug, PartialEq)]
pub enum Answered {
    /// A `result` whose `resultType` is `complete` (or missing): the work was done. Holds the
    /// result object.
    Complete(Value),
    /// A `result` whose `resultType` is `input_required`: the server asks before it finishes.
    /// Holds the result object (its `inputRequests` and `requestState`).
    InputRequired(Value),
    /// An `error` object with an integer `code` (a missing `message` reads as empty).
    Error(RpcError),
    /// Not a response one can act on, and why: not an object, neither or both of `result`
    /// and `error`, a result that is not an object or has an unknown `resultType`, an error
    /// without an integer code or with a message that is not text.
    Malformed(String),
}

impl Answered {
    /// The result object, when the response has one that was read.
    pub fn result(&self) -> Option<&Value> {
        match self {
            Answered::Complete(r) | Answered::InputRequired(r) => Some(r),
            _ => None,
        }
    }

    /// The error, when the response refused.
    pub fn error(&self) -> Option<&RpcError> {
        match self {
            Answered::Error(e) => Some(e),
            _ => None,
        }
    }

    /// The error code, when the response refused.
    pub fn code(&self) -> Option<i64> {
        self.error().map(|e| e.code)
    }

    /// The ticket an `input_required` result carries (`requestState`), if any.
    pub fn request_state(&self) -> Option<&str> {
        match self {
            Answered::InputRequired(r) => r.get("requestState").and_then(Value::as_str),
            _ => None,
        }
    }
}

/// The task a call was answered with (`resultType: "task"`), for a client that declared the
/// tasks extension; `None` for any other response.
pub fn created_task(response: &Value) -> Option<&Value> {
    let result = response.get("result")?;
    (response.get("error").is_none() && ResultType::of(result) == Ok(ResultType::Task))
        .then_some(result)
}

/// Reads a JSON-RPC response. The `id` is not checked: whose answer it is is the caller's
/// question (the client matches it to its request).
pub fn classify(response: &Value) -> Answered {
    let Some(obj) = response.as_object() else {
        return Answered::Malformed("not a JSON object".into());
    };
    match (obj.get("result"), obj.get("error")) {
        (Some(_), Some(_)) => Answered::Malformed("both \"result\" and \"error\"".into()),
        (None, None) => Answered::Malformed("neither \"result\" nor \"error\"".into()),
        (Some(result), None) => {
            if !result.is_object() {
                return Answered::Malformed("\"result\" is not an object".into());
            }
            match ResultType::of(result) {
                Ok(ResultType::Complete) => Answered::Complete(result.clone()),
                Ok(ResultType::InputRequired) => Answered::InputRequired(result.clone()),
                // Read only by a client that declared the extension ([`created_task`]).
                Ok(ResultType::Task) => Answered::Malformed(
                    "resultType \"task\" answers only a request that declared the tasks extension"
                        .into(),
                ),
                Err(why) => Answered::Malformed(why),
            }
        }
        (None, Some(error)) => {
            let Some(code) = error.get("code") else {
                return Answered::Malformed("an \"error\" without a \"code\"".into());
            };
            let Some(code) = code.as_i64() else {
                return Answered::Malformed(format!(
                    "an error \"code\" that is not an integer: {code}"
                ));
            };
            let message = match error.get("message") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(other) => {
                    return Answered::Malformed(format!(
                        "an error \"message\" that is not text: {other}"
                    ))
                }
            };
            Answered::Error(RpcError {
                code,
                message,
                data: error.get("data").cloned(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn malformed(v: Value) -> String {
        match classify(&v) {
            Answered::Malformed(why) => why,
            other => panic!("{v} read as {other:?}"),
        }
    }

    #[test]
    fn a_result_is_complete_unless_it_asks() {
        let done = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}});
        assert_eq!(classify(&done), Answered::Complete(json!({"content": []})));
        let said = json!({"id": 1, "result": {"resultType": "complete"}});
        assert!(matches!(classify(&said), Answered::Complete(_)));
        let null = json!({"id": 1, "result": {"resultType": null}});
        assert!(matches!(classify(&null), Answered::Complete(_)));
        let asked =
            json!({"id": 2, "result": {"resultType": "input_required", "requestState": "t"}});
        let a = classify(&asked);
        assert!(matches!(a, Answered::InputRequired(_)));
        assert_eq!(a.request_state(), Some("t"));
        assert_eq!(classify(&done).request_state(), None);
    }

    #[test]
    fn an_error_keeps_its_code_message_and_data() {
        let e = json!({"id": 1, "error": {"code": -32602, "message": "Invalid", "data": {"reason": "x"}}});
        let a = classify(&e);
        assert_eq!(a.code(), Some(-32602));
        assert_eq!(a.error().unwrap().message, "Invalid");
        assert_eq!(a.error().unwrap().data, Some(json!({"reason": "x"})));
        assert_eq!(a.result(), None);
        // The id of a refusal may be null (a request that could not be read).
        let no_message = json!({"id": null, "error": {"code": -32700}});
        assert_eq!(classify(&no_message).error().unwrap().message, "");
    }

    #[test]
    fn every_other_shape_is_malformed_and_says_why() {
        assert!(malformed(json!("text")).contains("not a JSON object"));
        assert!(malformed(json!([1])).contains("not a JSON object"));
        assert!(malformed(Value::Null).contains("not a JSON object"));
        assert!(malformed(json!({"id": 1})).contains("neither"));
        assert!(
            malformed(json!({"result": {}, "error": {"code": 1, "message": "x"}})).contains("both")
        );
        assert!(malformed(json!({"error": {"message": "x"}})).contains("without a \"code\""));
        assert!(
            malformed(json!({"error": {"code": "-32602", "message": "x"}}))
                .contains("not an integer")
        );
        assert!(
            malformed(json!({"error": {"code": -32602.5, "message": "x"}}))
                .contains("not an integer")
        );
        assert!(malformed(json!({"error": {"code": 1, "message": 7}})).contains("not text"));
        assert!(malformed(json!({"error": "refused"})).contains("without a \"code\""));
        // A task is an answer only to a request that declared the extension.
        let task = json!({"result": {"resultType": "task", "taskId": "t"}});
        assert!(malformed(task.clone()).contains("declared the tasks extension"));
        assert_eq!(created_task(&task), Some(&task["result"]));
        assert_eq!(
            created_task(&json!({"result": {"resultType": "complete"}})),
            None
        );
        assert!(
            malformed(json!({"result": {"resultType": "later"}})).contains("unknown resultType")
        );
        assert!(malformed(json!({"result": {"resultType": 3}})).contains("unknown resultType"));
        assert!(malformed(json!({"result": "done"})).contains("not an object"));
    }
}
