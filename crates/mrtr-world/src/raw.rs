//! "Run it raw": the lab's transcripts, line by line, produced by the real client and server
//! over an in-page transport. The modern era (discover, call, input_required, retry,
//! complete, and a -32022) beside the legacy era run by the same handler through the shim,
//! over stdio and over stateless HTTP.

use mrtr_core::legacy::Connection;
use mrtr_core::wire::{ClientCapabilities, InputRequest};
use mrtr_core::{
    AgreeableHost, CallContext, Client, FixedClock, Host, Principal, SeededEntropy, Server,
    Step as ClientStep,
};
use serde_json::{json, Value};

use crate::knobs::Knobs;
use crate::misuse::one_char;
use crate::world::{EPOCH_S, SHARED_SECRET};

/// A transcript's phase: where a line sits in the exchange, so the two eras line up side by
/// side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TranscriptPhase {
    /// Getting started: `server/discover`, or `initialize` in the legacy era.
    Open,
    /// The client's call.
    Call,
    /// The server asking for input.
    Ask,
    /// The client's answer: the retry, or the legacy reply to the server's request.
    Answer,
    /// The call's result.
    Finish,
    /// A request naming a protocol version the server does not speak (-32022).
    Version,
}

impl TranscriptPhase {
    /// Every phase, in the order the transcripts run.
    pub const ALL: [TranscriptPhase; 6] = [
        TranscriptPhase::Open,
        TranscriptPhase::Call,
        TranscriptPhase::Ask,
        TranscriptPhase::Answer,
        TranscriptPhase::Finish,
        TranscriptPhase::Version,
    ];

    /// The phase's heading in the side-by-side view.
    pub fn title(self) -> &'static str {
        match self {
            TranscriptPhase::Open => "Opening",
            TranscriptPhase::Call => "The call",
            TranscriptPhase::Ask => "The question",
            TranscriptPhase::Answer => "The answer",
            TranscriptPhase::Finish => "The result",
            TranscriptPhase::Version => "A version nobody speaks",
        }
    }
}

/// One message of a transcript.
#[derive(Clone, Debug, PartialEq)]
pub struct RawLine {
    /// True for client → server (`-->`).
    pub outgoing: bool,
    /// The message.
    pub json: Value,
    /// Where it sits.
    pub phase: TranscriptPhase,
    /// Set on a request the server sent the client while one of the client's own requests
    /// was still waiting for its answer: read off the lines, never typed in.
    pub mid_request: Option<MidRequest>,
}

/// A server's request to the client in the middle of the client's request: the 2025-11-25
/// way to ask (the shim's `elicitation/create`), and exactly what 2026-07-28 forbids.
#[derive(Clone, Debug, PartialEq)]
pub struct MidRequest {
    /// The server's request: its method.
    pub method: String,
    /// The client's request still waiting: its id and method.
    pub pending_id: Value,
    /// The method of that waiting request.
    pub pending_method: String,
}

impl MidRequest {
    /// The line's gloss, in a sentence or two.
    pub fn gloss(&self) -> String {
        format!(
            "The server calls the client: {} is a request of its own, sent while the client's {} (id {}) still waits for its answer. That is the 2025-11-25 way to ask, and exactly what 2026-07-28 forbids: there the server ends the call with input_required, and the client calls again with the answer.",
            self.method, self.pending_method, self.pending_id
        )
    }
}

impl RawLine {
    /// The line as the lab prints it.
    pub fn text(&self) -> String {
        format!(
            "{} {}",
            if self.outgoing { "-->" } else { "<--" },
            self.json
        )
    }
}

/// One transcript: an era over one transport.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    /// Its heading.
    pub title: String,
    /// Its messages, in order.
    pub lines: Vec<RawLine>,
}

impl Lane {
    /// JSON lines, one message per line, for download.
    pub fn jsonl(&self) -> String {
        self.lines
            .iter()
            .map(|l| json!({"direction": if l.outgoing { "client->server" } else { "server->client" }, "phase": format!("{:?}", l.phase).to_ascii_lowercase(), "message": l.json}).to_string() + "\n")
            .collect()
    }

    /// Every line as the lab prints it ([`RawLine::text`]), one per line.
    pub fn text(&self) -> String {
        self.lines.iter().map(|l| l.text() + "\n").collect()
    }
}

/// What "break it" changes in the modern run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Breakage {
    /// Change one character of the ticket before the retry.
    pub change_ticket: bool,
    /// The server skips the signature check.
    pub no_signature_check: bool,
}

fn server(knobs: &Knobs, breakage: Breakage) -> Server {
    let mut s = Server::lab(
        mrtr_core::Key::new("k1", SHARED_SECRET).unwrap_or_else(|_| unreachable!("32-byte key")),
    );
    s.config.ttl_s = knobs.ttl_s;
    s.config.policy.signature = !breakage.no_signature_check;
    s
}

/// The raw lanes draw their randomness from a stream of their own: a prod deploy there is a
/// different flow from bob's staging deploy, so its ticket must not share bob's ticket id.
const RAW_STREAM: u64 = 0x5241_5700;

struct Wire {
    server: Server,
    conn: Connection,
    rng: SeededEntropy,
    user: Principal,
    lines: Vec<RawLine>,
    /// The client's requests not answered yet: id and method.
    open: Vec<(Value, String)>,
}

impl Wire {
    fn new(server: Server, conn: Connection, seed: u64) -> Wire {
        Wire {
            server,
            conn,
            rng: SeededEntropy::new(seed ^ RAW_STREAM),
            user: Principal::user("stdio-user"),
            lines: Vec::new(),
            open: Vec::new(),
        }
    }

    /// Sends one message and records it and everything the server sends back.
    fn send(&mut self, msg: &Value, phase: TranscriptPhase) -> Vec<Value> {
        if let (Some(id), Some(method)) = (msg.get("id"), msg.get("method").and_then(Value::as_str))
        {
            self.open.push((id.clone(), method.to_owned()));
        }
        self.lines.push(RawLine {
            outgoing: true,
            json: msg.clone(),
            phase,
            mid_request: None,
        });
        let clock = FixedClock((EPOCH_S + 1) * 1000);
        let out = self
            .conn
            .receive(
                &self.server,
                msg,
                &mut CallContext {
                    principal: &self.user,
                    clock: &clock,
                    entropy: &mut self.rng,
                },
            )
            .outgoing;
        for m in &out {
            let method = m.get("method").and_then(Value::as_str);
            let phase = if method.is_some() {
                TranscriptPhase::Ask
            } else {
                phase
            };
            let mid_request = match (method, m.get("id")) {
                // A request of the server's own (a notification has no id).
                (Some(method), Some(_)) => self.open.last().map(|(id, pending)| MidRequest {
                    method: method.to_owned(),
                    pending_id: id.clone(),
                    pending_method: pending.clone(),
                }),
                // A response: that request of the client's is answered.
                (None, Some(id)) => {
                    self.open.retain(|(open, _)| open != id);
                    None
                }
                _ => None,
            };
            self.lines.push(RawLine {
                outgoing: false,
                json: m.clone(),
                phase,
                mid_request,
            });
        }
        out
    }
}

/// The 2026-07-28 era: probe, call, input_required, retry with the ticket, complete; then a
/// request at a version the server does not speak.
pub fn modern(knobs: Knobs, breakage: Breakage) -> Lane {
    let mut w = Wire::new(server(&knobs, breakage), Connection::new(), knobs.seed);
    let mut client = Client::new(
        ClientCapabilities {
            elicitation_form: true,
            ..Default::default()
        },
        "lab-client",
        "1.0.0",
    )
    .with_first_id(1);
    let probe = client.simple("server/discover", json!({}));
    w.send(&probe, TranscriptPhase::Open);
    let (mut call, first) = client.begin(
        "tools/call",
        json!({"name": "deploy", "arguments": {"env": "prod"}}),
    );
    let resp = w.send(&first, TranscriptPhase::Call);
    if let Some(r) = resp.first() {
        let phase_fix = w.lines.len() - 1;
        w.lines[phase_fix].phase = TranscriptPhase::Ask;
        let mut host = AgreeableHost::with(json!({"confirm": true}));
        if let ClientStep::Retry(mut retry) = client.on_response(&mut call, r, &mut host) {
            if breakage.change_ticket {
                if let Some(t) = retry
                    .pointer("/params/requestState")
                    .and_then(Value::as_str)
                {
                    let changed = one_char(t);
                    retry["params"]["requestState"] = json!(changed);
                }
            }
            let out = w.send(&retry, TranscriptPhase::Answer);
            if !out.is_empty() {
                let last = w.lines.len() - 1;
                w.lines[last].phase = TranscriptPhase::Finish;
            }
        }
    }
    let mut old = client.simple("tools/list", json!({}));
    old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    w.send(&old, TranscriptPhase::Version);
    Lane {
        title: "2026-07-28: input_required and a ticket".into(),
        lines: w.lines,
    }
}

/// A 2025-11-25 client over a connection that can carry server→client requests (stdio): the
/// same handler asks through the shim's real `elicitation/create`.
pub fn legacy(knobs: Knobs, stateless: bool) -> Lane {
    let conn = if stateless {
        Connection::stateless()
    } else {
        Connection::new()
    };
    let mut w = Wire::new(server(&knobs, Breakage::default()), conn, knobs.seed);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "old-client", "version": "1.0.0"}}});
    w.send(&init, TranscriptPhase::Open);
    w.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        TranscriptPhase::Open,
    );
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "deploy", "arguments": {"env": "prod"}}});
    let out = w.send(&call, TranscriptPhase::Call);
    let mut host = AgreeableHost::with(json!({"confirm": true}));
    let mut pending: Vec<Value> = out
        .into_iter()
        .filter(|m| m.get("method").is_some())
        .collect();
    while let Some(req) = pending.pop() {
        let answer = match InputRequest::from_value(&req) {
            Ok(r) => host.elicit("shim", &r),
            Err(e) => json!({"error": e}),
        };
        let reply = json!({"jsonrpc": "2.0", "id": req["id"], "result": answer});
        let out = w.send(&reply, TranscriptPhase::Answer);
        for m in out {
            if m.get("method").is_some() {
                pending.push(m);
            }
        }
    }
    for l in w.lines.iter_mut() {
        if !l.outgoing && l.json.get("id") == Some(&json!(2)) {
            l.phase = TranscriptPhase::Finish;
        }
    }
    let title = if stateless {
        "2025-11-25 over stateless HTTP: no channel to ask on"
    } else {
        "2025-11-25 over stdio: the same handler, through the shim"
    };
    Lane {
        title: title.into(),
        lines: w.lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn methods(l: &Lane) -> Vec<String> {
        l.lines
            .iter()
            .map(|x| {
                let what = x
                    .json
                    .get("method")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| {
                        if x.json.get("error").is_some() {
                            format!("error {}", x.json["error"]["code"])
                        } else {
                            x.json
                                .pointer("/result/resultType")
                                .and_then(Value::as_str)
                                .unwrap_or("result")
                                .to_owned()
                        }
                    });
                format!("{} {what}", if x.outgoing { "-->" } else { "<--" })
            })
            .collect()
    }

    #[test]
    fn the_raw_lane_ticket_has_an_id_of_its_own() {
        let tid = |t: &str| -> Value {
            let claims: Value =
                serde_json::from_str(&mrtr_core::ticket::payload_text(t).unwrap()).unwrap();
            claims["tid"].clone()
        };
        let lane = modern(Knobs::default(), Breakage::default());
        let raw = lane
            .lines
            .iter()
            .find_map(|l| {
                l.json
                    .pointer("/result/requestState")
                    .and_then(Value::as_str)
            })
            .expect("the raw lane mints a ticket");
        let bob = crate::inspect::minted_ticket(Knobs::default()).expect("bob's ticket");
        assert_ne!(tid(raw), tid(&bob), "two flows, two ticket ids");
    }

    #[test]
    fn the_modern_transcript() {
        let l = modern(Knobs::default(), Breakage::default());
        assert_eq!(
            methods(&l),
            [
                "--> server/discover",
                "<-- complete",
                "--> tools/call",
                "<-- input_required",
                "--> tools/call",
                "<-- complete",
                "--> tools/list",
                "<-- error -32022",
            ]
        );
        let (call, retry) = (&l.lines[2].json, &l.lines[4].json);
        assert_ne!(call["id"], retry["id"]);
        assert_eq!(
            l.lines[3].json["result"]["requestState"],
            retry["params"]["requestState"]
        );
        assert_eq!(
            l.lines[5].json["result"]["content"][0]["text"],
            "deployed to prod, release 2026.11.30-2"
        );
        assert_eq!(
            l.lines[7].json["error"]["data"]["supported"],
            json!(["2026-07-28"])
        );
        assert!(l
            .text()
            .lines()
            .all(|x| x.starts_with("--> ") || x.starts_with("<-- ")));
        for line in l.jsonl().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            assert!(v["message"]["jsonrpc"] == "2.0");
        }
    }

    #[test]
    fn breaking_the_ticket_gets_32602_unless_the_check_is_off() {
        let broken = modern(
            Knobs::default(),
            Breakage {
                change_ticket: true,
                no_signature_check: false,
            },
        );
        assert_eq!(broken.lines[5].json["error"]["code"], -32602);
        let open = modern(
            Knobs::default(),
            Breakage {
                change_ticket: true,
                no_signature_check: true,
            },
        );
        assert_eq!(
            open.lines[5].json["result"]["content"][0]["text"],
            "deployed to prod, release 2026.11.30-2"
        );
    }

    #[test]
    fn only_the_legacy_elicitation_is_glossed_as_what_2026_forbids() {
        let glossed = |l: &Lane| -> Vec<(usize, MidRequest)> {
            l.lines
                .iter()
                .enumerate()
                .filter_map(|(i, x)| x.mid_request.clone().map(|m| (i, m)))
                .collect()
        };
        let l = legacy(Knobs::default(), false);
        let g = glossed(&l);
        assert_eq!(g.len(), 1, "{g:?}");
        let (i, m) = &g[0];
        // The server's elicitation/create, while the client's tools/call (id 2) is open.
        assert_eq!(l.lines[*i].json["method"], "elicitation/create");
        assert!(!l.lines[*i].outgoing);
        assert_eq!(
            (m.method.as_str(), &m.pending_id, m.pending_method.as_str()),
            ("elicitation/create", &json!(2), "tools/call")
        );
        let gloss = m.gloss();
        assert!(gloss.contains("tools/call (id 2) still waits"), "{gloss}");
        assert!(gloss.contains("what 2026-07-28 forbids"), "{gloss}");
        // The answer that closes the call comes after it, and is no request of the server's.
        assert!(l.lines[*i + 1..]
            .iter()
            .any(|x| !x.outgoing && x.json["id"] == 2));
        // The 2026 lane never calls the client, nor does the stateless legacy one.
        for lane in [
            modern(Knobs::default(), Breakage::default()),
            legacy(Knobs::default(), true),
        ] {
            assert!(glossed(&lane).is_empty(), "{}", lane.title);
        }
    }

    #[test]
    fn the_legacy_transcripts() {
        let l = legacy(Knobs::default(), false);
        assert_eq!(
            methods(&l),
            [
                "--> initialize",
                "<-- result",
                "--> notifications/initialized",
                "--> tools/call",
                "<-- elicitation/create",
                "--> result",
                "<-- result",
            ]
        );
        assert_eq!(
            l.lines[6].json["result"]["content"][0]["text"],
            "deployed to prod, release 2026.11.30-2"
        );
        assert_eq!(l.lines[4].phase, TranscriptPhase::Ask);
        assert_eq!(l.lines[6].phase, TranscriptPhase::Finish);
        let s = legacy(Knobs::default(), true);
        assert_eq!(
            methods(&s),
            [
                "--> initialize",
                "<-- result",
                "--> notifications/initialized",
                "--> tools/call",
                "<-- result"
            ]
        );
        assert_eq!(s.lines[4].json["result"]["isError"], true);
    }
}
