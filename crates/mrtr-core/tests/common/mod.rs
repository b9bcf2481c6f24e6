//! Helpers shared by the integration tests: a lab server, envelopes, and one-call sends.
#![allow(dead_code)]

use mrtr_core::wire::{ClientCapabilities, Envelope};
use mrtr_core::{CallContext, FixedClock, Key, Principal, Reply, SeededEntropy, Server};
use serde_json::{json, Value};

pub const EPOCH_MS: u64 = 1_800_000_000_000;
pub const SECRET: &[u8; 32] = b"0123456789abcdef0123456789abcdef";

pub fn lab() -> Server {
    Server::lab(Key::new("k1", SECRET).unwrap())
}

/// The conformance harness's default capabilities.
pub fn all_caps() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}})
}

pub fn meta(caps: Value) -> Value {
    let mut env = Envelope::new(
        ClientCapabilities::from_value(&caps),
        Some(json!({"name": "test", "version": "1"})),
    );
    env.raw_capabilities = caps;
    env.to_meta()
}

pub fn req(id: i64, method: &str, mut params: Value) -> Value {
    if params.get("_meta").is_none() {
        params["_meta"] = meta(all_caps());
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

pub fn tool(id: i64, name: &str, extra: Value) -> Value {
    let mut params = json!({"name": name});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            params[k] = v;
        }
    }
    req(id, "tools/call", params)
}

pub fn send_as(s: &mut Server, who: Principal, at_s: u64, msg: &Value) -> Reply {
    let clock = FixedClock(EPOCH_MS + at_s * 1000);
    let mut rng = SeededEntropy::new(at_s.wrapping_add(99));
    s.handle(
        msg,
        &mut CallContext {
            principal: &who,
            clock: &clock,
            entropy: &mut rng,
        },
    )
}

pub fn send(s: &mut Server, msg: &Value) -> Reply {
    send_as(s, Principal::Anonymous, 0, msg)
}

pub fn result(r: &Reply) -> &Value {
    r.result()
        .unwrap_or_else(|| panic!("expected a result, got {:?}", r.response))
}

pub fn text(r: &Reply) -> String {
    result(r)["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// A verdict in one line for assertions: ✓ passed, ✗ failed, ? unanswered, – not reached,
/// ○ off (single use left out while off). The page's own words live in mrtr-world.
pub fn symbols(v: &mrtr_core::Verdict) -> String {
    use mrtr_core::checks::{Check, Status};
    v.outcomes
        .iter()
        .filter(|o| o.check != Check::SingleUse || o.status != Status::Off)
        .map(|o| match o.status {
            Status::Passed => '✓',
            Status::Failed(_) => '✗',
            Status::Unanswered { .. } => '?',
            Status::NotReached => '–',
            Status::Off => '○',
        })
        .collect()
}
