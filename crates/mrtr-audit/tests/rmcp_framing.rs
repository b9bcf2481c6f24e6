//! The audit against a simulated server that frames its tickets as rmcp 3.11 does:
//! `rs1.<b64url(exp_be64 ‖ JSON)>.<b64url(tag)>`, or `rs2.<b64url(kid)>.<body>.<tag>` with a
//! key ring. The payload is readable behind its binary expiry, so the field-edit row must
//! run (not be skipped as sealed) and judge the server by its answer.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use mrtr_audit::{audit, Exchange, Options, Report, Status, Who, Wire};
use serde_json::{json, Value};
use sha2::Sha256;

const KEY: &[u8] = b"a-32-byte-key-for-the-simulation";

/// A deploy tool behind rmcp's framing, on a virtual clock.
struct RmcpLike {
    /// Verify the tag (off: the server trusts whatever body comes back).
    check_tag: bool,
    /// `Some(kid)`: rs2 tickets naming the key; `None`: rs1.
    kid: Option<&'static str>,
    ttl_ms: u64,
    now_ms: u64,
}

impl RmcpLike {
    fn tag(&self, body: &[u8]) -> Vec<u8> {
        let mut mac = Hmac::<Sha256>::new_from_slice(KEY).expect("any key length");
        // A domain label, the kid, then the body: rmcp's order (its exact encoding is its own).
        mac.update(if self.kid.is_some() {
            b"rmcp/mrtr/request-state/v2"
        } else {
            b"rmcp/mrtr/request-state/v1"
        });
        mac.update(self.kid.unwrap_or("").as_bytes());
        mac.update(body);
        mac.finalize().into_bytes().to_vec()
    }

    fn seal(&self, state: &Value) -> String {
        let mut body = (self.now_ms + self.ttl_ms).to_be_bytes().to_vec();
        body.extend(serde_json::to_vec(state).unwrap());
        let (b, t) = (
            URL_SAFE_NO_PAD.encode(&body),
            URL_SAFE_NO_PAD.encode(self.tag(&body)),
        );
        match self.kid {
            Some(kid) => format!("rs2.{}.{b}.{t}", URL_SAFE_NO_PAD.encode(kid)),
            None => format!("rs1.{b}.{t}"),
        }
    }

    fn open(&self, ticket: &str) -> Result<Value, &'static str> {
        let segs: Vec<&str> = ticket.split('.').collect();
        let (body, tag) = match (self.kid, segs.as_slice()) {
            (None, ["rs1", b, t]) => (b, t),
            (Some(kid), ["rs2", k, b, t])
                if URL_SAFE_NO_PAD.decode(k).ok().as_deref() == Some(kid.as_bytes()) =>
            {
                (b, t)
            }
            _ => return Err("malformed"),
        };
        let body = URL_SAFE_NO_PAD.decode(body).map_err(|_| "encoding")?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| "encoding")?;
        if self.check_tag && tag != self.tag(&body) {
            return Err("integrity");
        }
        let exp = u64::from_be_bytes(body.get(..8).ok_or("short")?.try_into().unwrap());
        if exp != 0 && exp <= self.now_ms {
            return Err("expired");
        }
        serde_json::from_slice(&body[8..]).map_err(|_| "json")
    }

    fn handle(&self, msg: &Value) -> Value {
        let id = msg["id"].clone();
        let p = &msg["params"];
        let result = match msg["method"].as_str() {
            Some("tools/list") => json!({"resultType": "complete", "tools": [{
                "name": "deploy",
                "inputSchema": {"type": "object", "properties": {"env": {"type": "string"}}, "required": ["env"]},
            }]}),
            Some("tools/call") if p["name"] == "deploy" => {
                let ask = |state: &Value| {
                    json!({
                        "resultType": "input_required",
                        "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                            "mode": "form", "message": "Deploy?",
                            "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}}}},
                        "requestState": self.seal(state),
                    })
                };
                match p.get("requestState") {
                    None => ask(&json!({"env": p["arguments"]["env"]})),
                    Some(Value::String(t)) => match self.open(t) {
                        Ok(state)
                            if p.pointer("/inputResponses/confirm/content/confirm")
                                == Some(&json!(true)) =>
                        {
                            json!({
                                "resultType": "complete",
                                "content": [{"type": "text", "text": format!("deployed to {}", state["env"].as_str().unwrap_or(""))}],
                            })
                        }
                        Ok(state) => ask(&state),
                        Err(_) => {
                            return json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "Invalid or expired requestState"}})
                        }
                    },
                    Some(_) => {
                        return json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "requestState must be a string"}})
                    }
                }
            }
            _ => {
                return json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no such method"}})
            }
        };
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    }
}

impl Wire for RmcpLike {
    fn send(&mut self, msg: &Value, _who: Who) -> Result<Exchange, String> {
        self.now_ms += 10;
        Ok(Exchange {
            status: Some(200),
            body: self.handle(msg),
        })
    }
    fn race(&mut self, msgs: &[Value], who: Who) -> Option<Result<Vec<Exchange>, String>> {
        Some(msgs.iter().map(|m| self.send(m, who)).collect())
    }
    fn wait_ms(&mut self, ms: u64) {
        self.now_ms += ms;
    }
    fn ms_into_second(&self) -> u64 {
        self.now_ms % 1000
    }
    fn oversize_body(&mut self, _bytes: usize) -> Option<Result<Exchange, String>> {
        None
    }
    fn callers(&self) -> mrtr_audit::Callers {
        mrtr_audit::Callers::http(Some("bob-token"), Some("alice-token"))
    }
    fn restart(&mut self) -> Option<Result<(), String>> {
        None
    }
}

fn run(check_tag: bool, kid: Option<&'static str>) -> Report {
    // A clock well past zero, so that the expiry's bytes are not all zero.
    let mut wire = RmcpLike {
        check_tag,
        kid,
        ttl_ms: 2_000,
        now_ms: 1_764_000_000_000,
    };
    let opts = Options {
        ttl_wait_s: Some(3),
        ..Options::default()
    };
    audit(&mut wire, &opts, &mut |_| {}).expect("the audit runs")
}

fn row<'a>(r: &'a Report, id: &str) -> &'a mrtr_audit::RowResult {
    r.rows
        .iter()
        .find(|x| x.row.id == id)
        .expect("the row is in the report")
}

#[test]
fn field_edit_runs_against_rmcp_framing_and_a_checked_tag_refuses_it() {
    for kid in [None, Some("k2")] {
        let r = run(true, kid);
        let fe = row(&r, "field-edit");
        assert_eq!(fe.status, Status::Pass, "{kid:?}: {}", fe.evidence);
        // The evidence names what was sent and what came back.
        assert!(
            fe.evidence.contains("binary prefix of 8 bytes"),
            "{}",
            fe.evidence
        );
        assert!(fe.evidence.contains("error -32602"), "{}", fe.evidence);
        let sent = fe.sent.as_ref().expect("the edited retry is recorded");
        let t = sent["params"]["requestState"].as_str().unwrap();
        assert!(
            t.starts_with(if kid.is_some() { "rs2." } else { "rs1." }),
            "{t}"
        );
        assert_eq!(r.status("honest"), Some(Status::Pass));
        assert_eq!(r.status("substitution"), Some(Status::Pass));
        assert_eq!(r.status("expired"), Some(Status::Pass));
    }
}

#[test]
fn a_server_that_trusts_the_body_fails_field_edit_with_the_edit_as_evidence() {
    let r = run(false, None);
    let fe = row(&r, "field-edit");
    assert_eq!(fe.status, Status::Fail, "{}", fe.evidence);
    assert!(
        fe.evidence.contains(r#"the text at "env" changed"#),
        "{}",
        fe.evidence
    );
    assert!(fe.evidence.contains("a complete result"), "{}", fe.evidence);
    let got = fe.got.as_ref().expect("the answer is recorded");
    assert!(
        got.to_string().contains("-edited"),
        "the edited field did the work: {got}"
    );
}
