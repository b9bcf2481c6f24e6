//! The rules explorer: pick a method and the capabilities a client declares; the real server
//! answers, and the page shows what it may ask for and what it did. Its `tools/call` is the
//! lesson's own: bob's client calls `deploy` for staging, and the lab's deploy handler runs.

use mrtr_core::answered::{classify, Answered};
use mrtr_core::wire::{
    may_require_input, ClientCapabilities, Envelope, InputKind, InputRequest, INPUT_CAPABLE_METHODS,
};
use mrtr_core::{CallContext, FixedClock, Key, Principal, SeededEntropy, Server};
use serde_json::{json, Value};

use crate::kinds::KindLabel;
use crate::world::{EPOCH_S, SHARED_SECRET};

/// The methods the explorer offers: the three that may answer `input_required`, then
/// three listings and discovery, which never do.
pub const METHODS: [&str; 7] = [
    "tools/call",
    "prompts/get",
    "resources/read",
    "tools/list",
    "prompts/list",
    "resources/list",
    "server/discover",
];
/// The kinds of input the explorer shows, each with whether a request may be asked for it.
pub const KINDS: [InputKind; 4] = [
    InputKind::ElicitForm,
    InputKind::ElicitUrl,
    InputKind::Sampling,
    InputKind::Roots,
];

/// What the server answered the explorer's request.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// `input_required`, asking for these kinds.
    Asked(Vec<InputKind>),
    /// A complete result.
    Complete,
    /// A capability was missing: the code the server sent (-32021) and what it required.
    MissingCapability {
        /// The error code.
        code: i64,
        /// The error's `requiredCapabilities` (`null` if absent).
        required: Value,
    },
    /// Any other error: its code and message.
    Error(i64, String),
    /// Not a response the core can read (never from the lab's own server), and why.
    Malformed(String),
}

impl Answer {
    /// The answer in a line, read off the response: kinds asked for, or the code sent.
    pub fn headline(&self) -> String {
        match self {
            Answer::Asked(k) => format!("input_required, asking for {}", kinds_label(k)),
            Answer::Complete => "complete".into(),
            Answer::MissingCapability { code, .. } => {
                format!("error {code}: a capability is missing")
            }
            Answer::Error(c, m) => format!("error {c}: {m}"),
            Answer::Malformed(why) => format!("not a response: {why}"),
        }
    }
}

/// One request of the rules explorer and what came of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Exploration {
    /// The method explored.
    pub method: String,
    /// Whether this method may ever answer `input_required`.
    pub may_ask: bool,
    /// Each kind of input, and whether this request allows asking for it.
    pub allowed: Vec<(InputKind, bool)>,
    /// The request sent.
    pub request: Value,
    /// The server's response (`null` if none).
    pub response: Value,
    /// What the response came to.
    pub answer: Answer,
    /// Why the server answered so, in a sentence or two.
    pub explanation: String,
}

fn params_for(method: &str) -> Value {
    match method {
        // The lesson's call: the deploy handler needs the user's yes, which only a form gives.
        "tools/call" => json!({"name": "deploy", "arguments": {"env": "staging"}}),
        "prompts/get" => json!({"name": "test_input_required_result_prompt"}),
        "resources/read" => json!({"uri": "mrtr://lab/deploy-log"}),
        _ => json!({}),
    }
}

/// Whether every key of `small` is in `big`, recursively (a capability object inside another).
fn contained(small: &Value, big: &Value) -> bool {
    match (small, big) {
        (Value::Object(s), Value::Object(b)) => s
            .iter()
            .all(|(k, v)| b.get(k).is_some_and(|bv| contained(v, bv))),
        _ => true,
    }
}

/// The kinds of input a `requiredCapabilities` object names.
fn kinds_required(required: &Value) -> Vec<InputKind> {
    KINDS
        .into_iter()
        .filter(|k| contained(&k.required_capability(), required))
        .collect()
}

fn kinds_label(kinds: &[InputKind]) -> String {
    kinds
        .iter()
        .map(|k| k.label())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Sends the lab's server one `method` request declaring `caps`, as bob (the lesson's deploy
/// for `tools/call`), and reads what it answered.
pub fn explore(method: &str, caps: ClientCapabilities) -> Exploration {
    let server =
        Server::lab(Key::new("k1", SHARED_SECRET).unwrap_or_else(|_| unreachable!("32-byte key")));
    let mut params = params_for(method);
    params["_meta"] = Envelope::new(
        caps.clone(),
        Some(json!({"name": "rules-explorer", "version": "1"})),
    )
    .to_meta();
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let clock = FixedClock(EPOCH_S * 1000);
    let bob = Principal::user("bob");
    let reply = server.handle(
        &request,
        &mut CallContext {
            principal: &bob,
            clock: &clock,
            entropy: &mut SeededEntropy::new(1),
        },
    );
    let response = reply.response.clone().unwrap_or(Value::Null);
    let answer = answer_of(&response);
    let may_ask = may_require_input(method);
    let allowed = KINDS
        .iter()
        .map(|k| (*k, may_ask && caps.allows(*k)))
        .collect();
    let explanation = explain(method, &answer, may_ask);
    Exploration {
        method: method.to_owned(),
        may_ask,
        allowed,
        request,
        response,
        answer,
        explanation,
    }
}

/// What the server's `response` was, as the explorer sorts it.
fn answer_of(response: &Value) -> Answer {
    match classify(response) {
        Answered::Error(e) if e.code == mrtr_core::error::MISSING_REQUIRED_CLIENT_CAPABILITY => {
            Answer::MissingCapability {
                code: e.code,
                required: e
                    .data
                    .and_then(|d| d.get("requiredCapabilities").cloned())
                    .unwrap_or(Value::Null),
            }
        }
        Answered::Error(e) => Answer::Error(e.code, e.message),
        Answered::InputRequired(result) => Answer::Asked(
            result
                .get("inputRequests")
                .and_then(Value::as_object)
                .map(|m| {
                    m.values()
                        .filter_map(|r| InputRequest::from_value(r).ok())
                        .map(|r| r.kind())
                        .collect()
                })
                .unwrap_or_default(),
        ),
        Answered::Complete(_) => Answer::Complete,
        Answered::Malformed(why) => Answer::Malformed(why),
    }
}

/// Why the server answered `method` as it did, in a sentence drawn from the same answer.
fn explain(method: &str, answer: &Answer, may_ask: bool) -> String {
    match (answer, may_ask) {
        (_, false) => format!(
            "{method} is not one of {}, so its result is never input_required, whatever the client declares. It answered at once.",
            INPUT_CAPABLE_METHODS.join(", ")
        ),
        (Answer::Asked(k), true) => format!("The server asked for {}: only kinds this request declared.", kinds_label(k)),
        (Answer::MissingCapability { code, required }, true) => {
            let kinds = kinds_required(required);
            let what = if kinds.is_empty() {
                "input".to_owned()
            } else {
                kinds_label(&kinds)
            };
            format!(
                "The server needed {what}, which this request did not declare, so instead of asking it answered {code} and named what it needs in requiredCapabilities: {required}."
            )
        }
        (Answer::Complete, true) => "The server had all it needed and completed.".into(),
        (Answer::Error(c, m), true) => format!("The server answered {c}: {m}."),
        (Answer::Malformed(why), true) => format!("The server's answer is not a JSON-RPC response: {why}."),
    }
}

/// Every combination of the four declarations.
pub fn all_caps() -> Vec<ClientCapabilities> {
    (0..16u8)
        .map(|b| ClientCapabilities {
            elicitation_form: b & 1 != 0,
            elicitation_url: b & 2 != 0,
            sampling: b & 4 != 0,
            sampling_tools: false,
            roots: b & 8 != 0,
            tasks: false,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_and_capability_combination_follows_the_rules() {
        for method in METHODS {
            for caps in all_caps() {
                let e = explore(method, caps.clone());
                match &e.answer {
                    Answer::Asked(kinds) => {
                        assert!(may_require_input(method), "{method} asked");
                        assert!(!kinds.is_empty());
                        for k in kinds {
                            assert!(
                                caps.allows(*k),
                                "{method} asked for undeclared {k:?} with {caps:?}"
                            );
                        }
                    }
                    Answer::MissingCapability { code, required } => {
                        assert!(may_require_input(method));
                        assert!(required.is_object());
                        assert_eq!(e.response["error"]["code"], *code);
                        assert_eq!(*code, -32021);
                    }
                    Answer::Complete => assert!(
                        !may_require_input(method),
                        "{method} completed without asking"
                    ),
                    Answer::Error(c, m) => panic!("{method} {caps:?}: {c} {m}"),
                    Answer::Malformed(why) => panic!("{method} {caps:?}: {why}"),
                }
                if !may_require_input(method) {
                    assert_eq!(e.answer, Answer::Complete);
                    assert!(e.allowed.iter().all(|(_, a)| !a));
                }
            }
        }
    }

    #[test]
    fn tools_call_is_the_lessons_deploy_and_asks_only_for_a_declared_form() {
        for caps in all_caps() {
            let e = explore("tools/call", caps.clone());
            assert_eq!(e.request["params"]["name"], "deploy");
            assert_eq!(e.request["params"]["arguments"], json!({"env": "staging"}));
            if caps.elicitation_form {
                assert_eq!(
                    e.answer,
                    Answer::Asked(vec![InputKind::ElicitForm]),
                    "{caps:?}"
                );
                // The question is the deploy handler's own.
                let question = format!(
                    "Deploy release {} to staging?",
                    mrtr_core::fixtures::LATEST_RELEASE
                );
                assert_eq!(
                    e.response
                        .pointer("/result/inputRequests/confirm/params/message"),
                    Some(&json!(question))
                );
            } else {
                // Sampling or roots would not do: only a form gets bob's yes, so the
                // server names the form it needs instead of asking.
                let required = json!({"elicitation": {"form": {}}});
                assert_eq!(
                    e.answer,
                    Answer::MissingCapability {
                        code: -32021,
                        required: required.clone()
                    },
                    "{caps:?}"
                );
                assert_eq!(e.answer.headline(), "error -32021: a capability is missing");
                assert!(
                    e.explanation.starts_with(
                        "The server needed elicitation (form), which this request did not declare"
                    ) && e.explanation.ends_with(&format!("{required}.")),
                    "{}",
                    e.explanation
                );
            }
        }
        let form = ClientCapabilities {
            elicitation_form: true,
            ..Default::default()
        };
        assert_eq!(
            explore("prompts/get", form).answer,
            Answer::Asked(vec![InputKind::ElicitForm])
        );
        assert!(explore("tools/list", ClientCapabilities::all())
            .explanation
            .contains("never input_required"));
    }

    #[test]
    fn required_capabilities_read_back_as_kinds() {
        assert_eq!(
            kinds_required(&json!({"elicitation": {"form": {}}})),
            [InputKind::ElicitForm]
        );
        assert_eq!(
            kinds_required(&json!({"elicitation": {"form": {}, "url": {}}, "roots": {}})),
            [
                InputKind::ElicitForm,
                InputKind::ElicitUrl,
                InputKind::Roots
            ]
        );
        assert!(kinds_required(&json!({"other": {}})).is_empty());
    }
}
