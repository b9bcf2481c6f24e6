//! One connection that speaks both eras, sans I/O.
//!
//! `server/discover` or a request carrying the 2026-07-28 envelope is served statelessly by
//! [`Server::handle`]. `initialize` opens the 2025-11-25 era for the connection; there the
//! same write-once handlers run behind a shim that turns each input request into a real
//! server→client request (`elicitation/create`, …), waits for the answers, and runs the
//! handler again with them and the same ticket. Where the transport cannot carry a
//! server→client request (stateless legacy HTTP) the call fails cleanly instead.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::error::{RpcError, MISSING_REQUIRED_CLIENT_CAPABILITY};
use crate::server::{CallContext, Lifetime, Server, TraceEvent};
use crate::wire::{
    error_response, may_require_input, request, response, ClientCapabilities, Envelope, MessageRef,
    RequestId, ResultType, LEGACY_VERSION,
};

/// Rounds the shim runs before giving up, as the TypeScript SDK's shim does.
pub const MAX_SHIM_ROUNDS: u32 = 8;
/// How long the shim waits for the client to answer one round (a person may be answering),
/// as the TypeScript SDK's shim does. A call still waiting then fails with a clear message.
pub const SHIM_WAIT_S: u64 = 600;
/// The life of each round's ticket the shim keeps in-process: a second more than its wait, so a
/// deadline counted in whole seconds never bites before the wait is over. (The server's own
/// TTL is for tickets that travel to a client; these never leave the process.)
pub const SHIM_TICKET_TTL_S: u64 = SHIM_WAIT_S + 1;
/// Calls one connection may have waiting for answers at once; more are refused at once
/// rather than held without bound.
pub const MAX_WAITING_CALLS: usize = 32;

/// Which protocol version a connection's client speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// 2026-07-28: stateless requests carrying the envelope; MRTR for input.
    Modern,
    /// 2025-11-25: `initialize` first; input through server→client requests (the shim).
    Legacy,
}

impl Era {
    /// The era's protocol version string, as sent on the wire.
    pub fn version(self) -> &'static str {
        match self {
            Era::Modern => crate::wire::MODERN_VERSION,
            Era::Legacy => LEGACY_VERSION,
        }
    }
}

/// A legacy call waiting for the client's answers to the shim's requests.
#[derive(Clone, Debug)]
struct ShimCall {
    original_id: RequestId,
    method: String,
    params: Map<String, Value>,
    ticket: Option<String>,
    /// The shim's request ids still unanswered, with the input key each one asks for.
    outstanding: BTreeMap<RequestId, String>,
    answers: Map<String, Value>,
    round: u32,
    /// When this round's requests went out, in milliseconds.
    asked_at_ms: u64,
}

/// What one incoming message produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Delivery {
    /// Messages to send back, in order.
    pub outgoing: Vec<Value>,
    /// What the server did handling it, for the log (never sent).
    pub trace: Vec<TraceEvent>,
}

/// One transport connection (a stdio process, a sessionful HTTP session, or a stateless
/// legacy HTTP front that cannot push).
#[derive(Clone, Debug)]
pub struct Connection {
    era: Option<Era>,
    /// `initialize` was received: requests without the 2026-07-28 envelope are legacy from
    /// then on, even after modern requests on the same connection.
    initialized: bool,
    can_push: bool,
    legacy_caps: ClientCapabilities,
    pending: Vec<ShimCall>,
    next_shim_id: u64,
}

impl Connection {
    /// A connection that can carry server→client requests (stdio, sessionful HTTP).
    pub fn new() -> Connection {
        Connection {
            era: None,
            initialized: false,
            can_push: true,
            legacy_caps: ClientCapabilities::default(),
            pending: Vec::new(),
            next_shim_id: 1,
        }
    }

    /// A connection with no channel for server→client requests.
    pub fn stateless() -> Connection {
        Connection {
            can_push: false,
            ..Connection::new()
        }
    }

    /// The era the connection is in: legacy from `initialize` on, modern after a modern
    /// request succeeds on a connection not initialized; `None` before either.
    pub fn era(&self) -> Option<Era> {
        self.era
    }

    /// Calls waiting for the client's answers.
    pub fn waiting(&self) -> usize {
        self.pending.len()
    }

    /// Parses and handles one line of text.
    pub fn receive_text(
        &mut self,
        server: &Server,
        text: &str,
        ctx: &mut CallContext<'_>,
    ) -> Delivery {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => self.receive(server, &v, ctx),
            Err(e) => Delivery {
                outgoing: vec![error_response(
                    None,
                    &RpcError::parse_error(format!("Parse error: {e}")),
                )],
                trace: Vec::new(),
            },
        }
    }

    /// Fails every call that has waited longer than [`SHIM_WAIT_S`] for its answers. The
    /// transport calls this now and then (and [`Connection::receive`] calls it first), so a
    /// call nobody answers ends instead of waiting forever.
    pub fn expire(&mut self, now_ms: u64) -> Delivery {
        let mut out = Delivery::default();
        let (overdue, waiting): (Vec<ShimCall>, Vec<ShimCall>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|c| now_ms.saturating_sub(c.asked_at_ms) >= SHIM_WAIT_S * 1000);
        self.pending = waiting;
        for call in overdue {
            out.outgoing.push(self.fail(
                &call,
                &format!("no answer to the server's question within {SHIM_WAIT_S} s; call again to be asked again"),
            ));
        }
        out
    }

    /// Handles one incoming message.
    pub fn receive(
        &mut self,
        server: &Server,
        message: &Value,
        ctx: &mut CallContext<'_>,
    ) -> Delivery {
        let mut out = self.expire(ctx.clock.now_ms());
        let more = self.dispatch(server, message, ctx);
        out.outgoing.extend(more.outgoing);
        out.trace.extend(more.trace);
        out
    }

    fn dispatch(
        &mut self,
        server: &Server,
        message: &Value,
        ctx: &mut CallContext<'_>,
    ) -> Delivery {
        let msg = match MessageRef::from_value(message) {
            Ok(m) => m,
            Err(e) => {
                let id = message.get("id").and_then(RequestId::from_value);
                return Delivery {
                    outgoing: vec![error_response(id.as_ref(), &e)],
                    trace: Vec::new(),
                };
            }
        };
        match msg {
            MessageRef::Request { id, method, params } => {
                let modern = method == "server/discover" || Envelope::is_present(params);
                if method == "initialize" {
                    self.era = Some(Era::Legacy);
                    self.initialized = true;
                    return self.initialize(server, &id, params);
                }
                if modern || !self.initialized {
                    let reply = server.handle_request(id, method, params, ctx);
                    // A modern request on an initialized connection is served statelessly
                    // and leaves the connection's era alone: a dual-era server serves both.
                    if modern && reply.error().is_none() && !self.initialized {
                        self.era = Some(Era::Modern);
                    }
                    return Delivery {
                        outgoing: reply.response.into_iter().collect(),
                        trace: reply.trace,
                    };
                }
                self.legacy_request(server, id, method, params.cloned(), ctx)
            }
            MessageRef::Notification {
                method: "notifications/cancelled",
                params,
            } => self.cancel(params),
            MessageRef::Notification { .. } => Delivery::default(),
            MessageRef::Response { id, result } => {
                self.answer(server, &id, Ok(result.clone()), ctx)
            }
            MessageRef::Error {
                id: Some(id),
                error,
            } => self.answer(server, &id, Err(error), ctx),
            MessageRef::Error { id: None, .. } => Delivery::default(),
        }
    }

    fn initialize(&mut self, server: &Server, id: &RequestId, params: Option<&Value>) -> Delivery {
        self.legacy_caps = params
            .and_then(|p| p.get("capabilities"))
            .map(ClientCapabilities::from_value)
            .unwrap_or_default();
        let result = json!({
            "protocolVersion": LEGACY_VERSION,
            "capabilities": {"tools": {"listChanged": false}, "prompts": {"listChanged": false}, "resources": {}},
            "serverInfo": {"name": server.config.name, "version": server.config.version},
            "instructions": "MRTR Lab (2025-11-25 era): questions arrive as server-to-client requests.",
        });
        Delivery {
            outgoing: vec![response(id, result)],
            trace: Vec::new(),
        }
    }

    fn legacy_request(
        &mut self,
        server: &Server,
        id: RequestId,
        method: &str,
        params: Option<Value>,
        ctx: &mut CallContext<'_>,
    ) -> Delivery {
        let list = |key: &str, items: Value| Delivery {
            outgoing: vec![response(&id, json!({ key: items }))],
            trace: Vec::new(),
        };
        match method {
            "ping" => Delivery {
                outgoing: vec![response(&id, json!({}))],
                trace: Vec::new(),
            },
            "tools/list" => list("tools", server.catalog.tools_json()),
            "prompts/list" => list("prompts", server.catalog.prompts_json()),
            "resources/list" => list("resources", server.catalog.resources_json()),
            m if may_require_input(m) && self.pending.len() >= MAX_WAITING_CALLS => {
                let call = ShimCall {
                    original_id: id,
                    method: m.to_owned(),
                    params: Map::new(),
                    ticket: None,
                    outstanding: BTreeMap::new(),
                    answers: Map::new(),
                    round: 0,
                    asked_at_ms: 0,
                };
                Delivery {
                    outgoing: vec![self.fail(&call, &format!("too many calls ({MAX_WAITING_CALLS}) are already waiting for answers on this connection; answer those first"))],
                    trace: Vec::new(),
                }
            }
            m if may_require_input(m) => {
                let mut params = params
                    .and_then(|p| p.as_object().cloned())
                    .unwrap_or_default();
                // A legacy client has no tickets; whatever it sends under these keys is not ours.
                params.remove("inputResponses");
                params.remove("requestState");
                let call = ShimCall {
                    original_id: id,
                    method: m.to_owned(),
                    params,
                    ticket: None,
                    outstanding: BTreeMap::new(),
                    answers: Map::new(),
                    round: 0,
                    asked_at_ms: 0,
                };
                self.run_round(server, call, ctx)
            }
            other => Delivery {
                outgoing: vec![error_response(
                    Some(&id),
                    &RpcError::method_not_found(other),
                )],
                trace: Vec::new(),
            },
        }
    }

    /// Runs the handler once more with the answers gathered so far, then completes, fails, or
    /// sends the next round of server→client requests.
    fn run_round(
        &mut self,
        server: &Server,
        mut call: ShimCall,
        ctx: &mut CallContext<'_>,
    ) -> Delivery {
        let mut out = Delivery::default();
        loop {
            call.round += 1;
            let mut params = call.params.clone();
            if !call.answers.is_empty() {
                params.insert(
                    "inputResponses".into(),
                    Value::Object(std::mem::take(&mut call.answers)),
                );
            }
            if let Some(t) = &call.ticket {
                params.insert("requestState".into(), Value::String(t.clone()));
            }
            let caps = self.legacy_caps.clone();
            let result = server.call_with_life(
                &call.method,
                &Value::Object(params),
                &caps,
                ctx,
                &mut out.trace,
                Lifetime::EachRound(SHIM_TICKET_TTL_S),
            );
            let result = match result {
                Ok(r) => r,
                Err(e) => {
                    out.outgoing.push(self.refusal(&call, &e));
                    return out;
                }
            };
            if ResultType::of(&result) != Ok(ResultType::InputRequired) {
                let mut r = result;
                if let Some(m) = r.as_object_mut() {
                    m.shift_remove("resultType");
                }
                out.outgoing.push(response(&call.original_id, r));
                return out;
            }
            if !self.can_push {
                out.outgoing.push(self.fail(&call, "this server needs to ask you something, but a stateless 2025-11-25 connection has no channel to ask on; use a 2026-07-28 client or a stdio connection"));
                return out;
            }
            if call.round >= MAX_SHIM_ROUNDS {
                out.outgoing
                    .push(self.fail(&call, "gave up after too many rounds of questions"));
                return out;
            }
            call.ticket = result
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let requests = result
                .get("inputRequests")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            if requests.is_empty() {
                continue; // A state-only round: run again at once.
            }
            for (key, req) in requests {
                let id = self.next_id();
                out.outgoing.push(self.as_request(&id, &req));
                call.outstanding.insert(id, key);
            }
            call.asked_at_ms = ctx.clock.now_ms();
            self.pending.push(call);
            return out;
        }
    }

    /// The answer to a call the handler refused: -32021 is a 2026-07-28 code, so a
    /// 2025-11-25 client gets the failure its era knows, as the TypeScript SDK's shim does.
    fn refusal(&self, call: &ShimCall, e: &RpcError) -> Value {
        if e.code != MISSING_REQUIRED_CLIENT_CAPABILITY {
            return error_response(Some(&call.original_id), e);
        }
        let missing = e
            .data
            .as_ref()
            .and_then(|d| d.get("requiredCapabilities"))
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        self.fail(call, &format!("this call needs to ask you something, but the client did not declare the {missing} capability at initialize"))
    }

    /// The next id of a request the shim sends the client.
    fn next_id(&mut self) -> RequestId {
        let id = RequestId::String(format!("mrtr-shim-{}", self.next_shim_id));
        self.next_shim_id += 1;
        id
    }

    /// One of the handler's `inputRequests`, as the server→client request a 2025-11-25
    /// client expects under `id`.
    fn as_request(&self, id: &RequestId, req: &Value) -> Value {
        let method = req
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("elicitation/create");
        let mut params = req.get("params").cloned().unwrap_or_else(|| json!({}));
        if params.get("mode").and_then(Value::as_str) == Some("url") {
            // 2025-11-25 URL elicitation carries an id of its own.
            if let Some(p) = params.as_object_mut() {
                p.insert(
                    "elicitationId".into(),
                    json!(format!("elicit-{}", self.next_shim_id)),
                );
            }
        }
        request(id, method, Some(params))
    }

    fn fail(&self, call: &ShimCall, why: &str) -> Value {
        if call.method == "tools/call" {
            response(
                &call.original_id,
                json!({"content": [{"type": "text", "text": why}], "isError": true}),
            )
        } else {
            error_response(Some(&call.original_id), &RpcError::internal(why))
        }
    }

    /// `notifications/cancelled` for a call still waiting: it is dropped, never answered, and
    /// its slot is free again; the shim cancels its own questions to the client in turn, so a
    /// form still open can close. An unknown or finished request id is ignored.
    fn cancel(&mut self, params: Option<&Value>) -> Delivery {
        let Some(id) = params
            .and_then(|p| p.get("requestId"))
            .and_then(RequestId::from_value)
        else {
            return Delivery::default();
        };
        let Some(pos) = self.pending.iter().position(|c| c.original_id == id) else {
            return Delivery::default();
        };
        let call = self.pending.remove(pos);
        let outgoing = call
            .outstanding
            .keys()
            .map(|asked| {
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
                    "requestId": asked.to_value(),
                    "reason": format!("request {id} was cancelled by the client"),
                }})
            })
            .collect();
        Delivery {
            outgoing,
            trace: Vec::new(),
        }
    }

    /// The client answered one of the shim's requests.
    fn answer(
        &mut self,
        server: &Server,
        id: &RequestId,
        answer: Result<Value, RpcError>,
        ctx: &mut CallContext<'_>,
    ) -> Delivery {
        let Some(pos) = self
            .pending
            .iter()
            .position(|c| c.outstanding.contains_key(id))
        else {
            return Delivery::default(); // Not ours: ignore.
        };
        let mut call = self.pending.remove(pos);
        let key = call.outstanding.remove(id).unwrap_or_default();
        match answer {
            Ok(v) => {
                call.answers.insert(key, v);
            }
            Err(e) => {
                return Delivery {
                    outgoing: vec![self.fail(
                        &call,
                        &format!("the client could not answer {key:?}: {}", e.message),
                    )],
                    trace: Vec::new(),
                };
            }
        }
        if !call.outstanding.is_empty() {
            self.pending.push(call);
            return Delivery::default();
        }
        self.run_round(server, call, ctx)
    }
}

impl Default for Connection {
    fn default() -> Self {
        Connection::new()
    }
}
