//! The server engine, sans I/O: one JSON-RPC request in, one response out, plus a trace of
//! what it did (the checks it ran, the tickets it minted). The same engine runs in the page,
//! behind the native HTTP and stdio fronts, and inside the legacy shim.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Map, Value};

use crate::canonical::arguments_digest;
use crate::catalog::{Catalog, Invocation, Outcome};
use crate::checks::{verify, Check, CheckPolicy, Presented, Verdict};
use crate::entropy::{Clock, Entropy};
use crate::error::RpcError;
use crate::redemption::{MemoryStore, RedemptionStore};
use crate::ticket::{Claims, Codec, Key, Keyring, Principal, Seal};
use crate::wire::{
    input_required_result, may_require_input, ClientCapabilities, Envelope, InputResponses,
    Message, RequestId, META_SERVER_INFO, MODERN_VERSION, SUPPORTED_VERSIONS,
};

/// Knobs of one server (one replica).
#[derive(Clone, Debug, PartialEq)]
pub struct ServerConfig {
    pub name: String,
    pub version: String,
    /// Ticket lifetime in seconds.
    pub ttl_s: u64,
    pub policy: CheckPolicy,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            name: "mrtr-lab".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            ttl_s: 120,
            policy: CheckPolicy::default(),
        }
    }
}

/// What the engine did while answering, for logs and the page.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceEvent {
    /// A returned ticket went through the checks.
    TicketChecked { ticket: String, verdict: Verdict },
    /// A new ticket was sealed into an `input_required` result.
    TicketMinted { ticket: String, claims: Claims },
    /// The handler asked for input under these keys.
    Asked { keys: Vec<String> },
    /// The handler completed the call.
    Completed,
    /// The request was refused; `detail` is what only the log gets to see.
    Refused { error: RpcError, detail: String },
}

/// One answer of the engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The response to send, or `None` for notifications and stray responses.
    pub response: Option<Value>,
    /// The status a Streamable HTTP front should use.
    pub http_status: u16,
    pub trace: Vec<TraceEvent>,
}

impl Reply {
    pub fn error(&self) -> Option<RpcError> {
        self.response
            .as_ref()
            .and_then(|r| r.get("error"))
            .and_then(RpcError::from_value)
    }

    pub fn result(&self) -> Option<&Value> {
        self.response.as_ref().and_then(|r| r.get("result"))
    }

    /// The verdict on the ticket this request carried, if it carried one.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.trace.iter().find_map(|e| match e {
            TraceEvent::TicketChecked { verdict, .. } => Some(verdict),
            _ => None,
        })
    }

    /// The ticket minted for this request's answer, if any.
    pub fn minted(&self) -> Option<(&str, &Claims)> {
        self.trace.iter().find_map(|e| match e {
            TraceEvent::TicketMinted { ticket, claims } => Some((ticket.as_str(), claims)),
            _ => None,
        })
    }
}

/// Who is calling and when, with the randomness to use.
pub struct CallContext<'a> {
    pub principal: &'a Principal,
    pub clock: &'a dyn Clock,
    pub entropy: &'a mut dyn Entropy,
}

/// A 2026-07-28 server: stateless per request, except for the optional redemption store.
pub struct Server {
    pub config: ServerConfig,
    pub codec: Codec,
    pub catalog: Catalog,
    store: Box<dyn RedemptionStore + Send>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("config", &self.config)
            .field("codec", &self.codec)
            .field("redeemed", &self.store.len())
            .finish()
    }
}

impl Server {
    pub fn new(config: ServerConfig, codec: Codec, catalog: Catalog) -> Server {
        Server {
            config,
            codec,
            catalog,
            store: Box::new(MemoryStore::default()),
        }
    }

    /// The lab's server: the deploy tool and every conformance fixture, signed tickets.
    pub fn lab(key: Key) -> Server {
        Server::new(
            ServerConfig::default(),
            Codec::new(Keyring::new(key), Seal::Signed),
            crate::fixtures::catalog(),
        )
    }

    /// Replaces the redemption store (a shared one lets replicas refuse each other's repeats).
    pub fn with_store(mut self, store: Box<dyn RedemptionStore + Send>) -> Server {
        self.store = store;
        self
    }

    pub fn redeemed_count(&self) -> usize {
        self.store.len()
    }

    /// Handles one message given as text (malformed JSON gets -32700).
    pub fn handle_text(&mut self, text: &str, ctx: &mut CallContext<'_>) -> Reply {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => self.handle(&v, ctx),
            Err(e) => refuse(
                None,
                RpcError::parse_error(format!("Parse error: {e}")),
                400,
                Vec::new(),
            ),
        }
    }

    /// Handles one 2026-07-28 message.
    pub fn handle(&mut self, message: &Value, ctx: &mut CallContext<'_>) -> Reply {
        let (id, method, params) = match Message::from_value(message) {
            Ok(Message::Request { id, method, params }) => (id, method, params),
            Ok(_) => {
                return Reply {
                    response: None,
                    http_status: 202,
                    trace: Vec::new(),
                }
            }
            Err(e) => {
                let id = message.get("id").and_then(RequestId::from_value);
                return refuse(id.as_ref(), e, 400, Vec::new());
            }
        };
        let mut trace = Vec::new();
        if matches!(method.as_str(), "initialize" | "ping") {
            let e = RpcError::method_not_found(&method).with_data(json!({
                "supported": SUPPORTED_VERSIONS,
                "hint": "2026-07-28 has no initialize or ping: send server/discover or the request itself, with params._meta",
            }));
            return refuse(Some(&id), e, 404, trace);
        }
        let envelope = match Envelope::from_params(params.as_ref()) {
            Ok(e) => e,
            Err(e) => return refuse(Some(&id), e, 400, trace),
        };
        if envelope.protocol_version != MODERN_VERSION {
            let e = RpcError::unsupported_version(&envelope.protocol_version, &SUPPORTED_VERSIONS);
            return refuse(Some(&id), e, 400, trace);
        }
        let params = params.unwrap_or_else(|| json!({}));
        let result = match method.as_str() {
            "server/discover" => Ok(self.discover()),
            "tools/list" => Ok(listing("tools", self.catalog.tools_json())),
            "prompts/list" => Ok(listing("prompts", self.catalog.prompts_json())),
            "resources/list" => Ok(listing("resources", self.catalog.resources_json())),
            m if may_require_input(m) => {
                self.call(m, &params, &envelope.capabilities, ctx, &mut trace)
            }
            other => return refuse(Some(&id), RpcError::method_not_found(other), 404, trace),
        };
        match result {
            Ok(result) => Reply {
                response: Some(crate::wire::response(&id, result)),
                http_status: 200,
                trace,
            },
            Err(e) => {
                let status = e.http_status();
                refuse(Some(&id), e, status, trace)
            }
        }
    }

    fn discover(&self) -> Value {
        json!({
            "resultType": "complete",
            "supportedVersions": [MODERN_VERSION],
            "capabilities": {"tools": {"listChanged": false}, "prompts": {"listChanged": false}, "resources": {}},
            "instructions": "MRTR Lab: call deploy {\"env\": \"staging\"} and answer the confirmation.",
            "ttlMs": 3_600_000,
            "cacheScope": "public",
            "_meta": {META_SERVER_INFO: {"name": self.config.name, "version": self.config.version}},
        })
    }

    /// One round of an input-capable request: check the ticket if one came back, run the
    /// handler, and either complete or ask (sealing the handler's state into a new ticket).
    /// The legacy shim calls this too, with the capabilities declared at `initialize`.
    pub fn call(
        &mut self,
        method: &str,
        params: &Value,
        caps: &ClientCapabilities,
        ctx: &mut CallContext<'_>,
        trace: &mut Vec<TraceEvent>,
    ) -> Result<Value, RpcError> {
        let (target_key, what) = match method {
            "resources/read" => ("uri", "resource"),
            "prompts/get" => ("name", "prompt"),
            _ => ("name", "tool"),
        };
        let target = params
            .get(target_key)
            .and_then(Value::as_str)
            .ok_or_else(|| {
                RpcError::invalid_params(format!("{method} needs a string \"{target_key}\""))
            })?;
        let handler = self
            .catalog
            .handler(method, target)
            .ok_or_else(|| RpcError::invalid_params(format!("Unknown {what}: {target}")))?;
        let arguments = match (method, params.get("arguments")) {
            ("resources/read", _) | (_, None) | (_, Some(Value::Null)) => json!({}),
            (_, Some(a @ Value::Object(_))) => a.clone(),
            (_, Some(_)) => {
                return Err(RpcError::invalid_params("\"arguments\" must be an object"))
            }
        };
        let responses = InputResponses::from_params(Some(params))?;
        let now_s = ctx.clock.now_s();

        let mut state = None;
        match params.get("requestState") {
            None | Some(Value::Null) => {}
            Some(Value::String(ticket)) => {
                let answered = responses.keys();
                let presented = Presented {
                    ticket,
                    principal: ctx.principal,
                    method,
                    target,
                    arguments: &arguments,
                    answered: &answered,
                    now_s,
                };
                let verdict = verify(
                    &self.codec,
                    &presented,
                    &self.config.policy,
                    Some(self.store.as_mut()),
                );
                let failure = verdict.first_failure().map(|(c, r)| (c, r.to_string()));
                state = verdict.claims.as_ref().map(|c| c.state.clone());
                trace.push(TraceEvent::TicketChecked {
                    ticket: ticket.clone(),
                    verdict,
                });
                match failure {
                    // A missing answer is not an attack: the handler asks again.
                    None | Some((Check::Answer, _)) => {}
                    Some((check, reason)) => {
                        let e = RpcError::invalid_request_state();
                        trace.push(TraceEvent::Refused {
                            error: e.clone(),
                            detail: format!("{} check failed: {reason}", check.id()),
                        });
                        return Err(e);
                    }
                }
            }
            Some(_) => {
                let e = RpcError::invalid_request_state();
                trace.push(TraceEvent::Refused {
                    error: e.clone(),
                    detail: "requestState is not a string".into(),
                });
                return Err(e);
            }
        }

        let inv = Invocation {
            method,
            target,
            arguments: &arguments,
            responses: &responses,
            state: state.as_ref(),
            capabilities: caps,
            principal: ctx.principal,
        };
        match handler(&inv) {
            Outcome::Complete(body) => {
                trace.push(TraceEvent::Completed);
                Ok(with_result_type("complete", body))
            }
            Outcome::Error(e) => {
                trace.push(TraceEvent::Refused {
                    error: e.clone(),
                    detail: "the handler returned an error".into(),
                });
                Err(e)
            }
            Outcome::InputRequired { requests, state } => {
                if requests.is_empty() && state.is_none() {
                    return Err(RpcError::internal(
                        "handler asked for input with neither inputRequests nor requestState",
                    ));
                }
                // Safety net: never send a kind of request the client did not declare.
                let mut missing = Map::new();
                for (_, r) in &requests {
                    if !caps.allows(r.kind()) {
                        merge(&mut missing, r.kind().required_capability());
                    }
                }
                if !missing.is_empty() {
                    let e = RpcError::missing_capability(
                        format!("{target} needs a client capability this request did not declare"),
                        Value::Object(missing),
                    );
                    trace.push(TraceEvent::Refused {
                        error: e.clone(),
                        detail: "the handler asked for an undeclared kind of input".into(),
                    });
                    return Err(e);
                }
                let keys: Vec<String> = requests.iter().map(|(k, _)| k.clone()).collect();
                let ticket = state.map(|s| {
                    let claims = Claims {
                        v: 1,
                        kid: String::new(),
                        tid: ticket_id(ctx.entropy),
                        iat: now_s,
                        exp: now_s.saturating_add(self.config.ttl_s),
                        sub: ctx.principal.as_claim(),
                        method: method.to_owned(),
                        target: target.to_owned(),
                        args: arguments_digest(&arguments),
                        awaits: keys.clone(),
                        state: s,
                    };
                    let ticket = self.codec.mint(&claims, ctx.entropy);
                    let claims = Claims {
                        kid: self.codec.keyring.signing_key().id().to_owned(),
                        ..claims
                    };
                    trace.push(TraceEvent::TicketMinted {
                        ticket: ticket.clone(),
                        claims,
                    });
                    ticket
                });
                trace.push(TraceEvent::Asked { keys });
                Ok(input_required_result(&requests, ticket.as_deref()))
            }
        }
    }
}

fn refuse(
    id: Option<&RequestId>,
    error: RpcError,
    status: u16,
    mut trace: Vec<TraceEvent>,
) -> Reply {
    if !trace
        .iter()
        .any(|e| matches!(e, TraceEvent::Refused { .. }))
    {
        trace.push(TraceEvent::Refused {
            error: error.clone(),
            detail: error.message.clone(),
        });
    }
    Reply {
        response: Some(crate::wire::error_response(id, &error)),
        http_status: status,
        trace,
    }
}

fn listing(key: &str, items: Value) -> Value {
    let mut m = Map::new();
    m.insert("resultType".into(), json!("complete"));
    m.insert(key.into(), items);
    m.insert("ttlMs".into(), json!(60_000));
    m.insert("cacheScope".into(), json!("public"));
    Value::Object(m)
}

/// Puts `resultType` first, then the body's own fields.
fn with_result_type(kind: &str, body: Value) -> Value {
    let mut m = Map::new();
    m.insert("resultType".into(), json!(kind));
    if let Value::Object(b) = body {
        for (k, v) in b {
            if k != "resultType" {
                m.insert(k, v);
            }
        }
    }
    Value::Object(m)
}

fn merge(into: &mut Map<String, Value>, add: Value) {
    if let Value::Object(add) = add {
        for (k, v) in add {
            match (into.get_mut(&k), v) {
                (Some(Value::Object(existing)), Value::Object(more)) => {
                    for (k2, v2) in more {
                        existing.insert(k2, v2);
                    }
                }
                (_, v) => {
                    into.insert(k, v);
                }
            }
        }
    }
}

fn ticket_id(entropy: &mut dyn Entropy) -> String {
    let mut b = [0u8; 12];
    entropy.fill(&mut b);
    URL_SAFE_NO_PAD.encode(b)
}
