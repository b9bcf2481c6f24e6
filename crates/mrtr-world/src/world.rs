//! The world: a virtual clock, seeded randomness, two replicas of the real server behind a
//! balancer, and the real client. It records everything into a trace as it goes; a scenario
//! is plain code that drives it, so the same knobs always give the same trace, byte for byte.

use mrtr_core::ticket::{Codec, Key, Keyring};
use mrtr_core::wire::ClientCapabilities;
use mrtr_core::{
    CallContext, Client, FixedClock, Principal, Reply, SeededEntropy, Server, ServerConfig,
    TraceEvent,
};
use serde_json::Value;

use crate::actor::{Actor, Replica};
use crate::knobs::{Knobs, StoreMode};
use crate::memory::{Loss, SharedMemory};
use crate::trace::{Event, EventKind, MessageKind, StoryStep, Trace};

pub use crate::knobs::EPOCH_S;
/// The key every replica shares by default (32 bytes).
pub const SHARED_SECRET: &[u8; 32] = b"mrtr-lab demo key, shared by A+B";
/// The key replica B holds when the knob says it differs.
pub const OTHER_SECRET: &[u8; 32] = b"replica B's own key, not shared!";

/// The codec a replica holds under these knobs: the shared key, or for B, when the knob says
/// so, a key of its own.
pub fn replica_codec(knobs: &Knobs, r: Replica) -> Codec {
    let key = |id: &str, secret: &[u8; 32]| {
        Key::new(id, secret).unwrap_or_else(|_| unreachable!("32-byte demo keys"))
    };
    let k = match r {
        Replica::B if knobs.b_key_differs => key("kb", OTHER_SECRET),
        _ => key("k1", SHARED_SECRET),
    };
    Codec::new(Keyring::new(k), knobs.seal)
}

/// One run of the simulation, recording its trace as a scenario drives it.
pub struct World {
    /// The settings it was built with.
    pub knobs: Knobs,
    now_s: u64,
    rng: SeededEntropy,
    replicas: [Server; 2],
    /// The real client engine (form elicitation declared; ids start at 2).
    pub client: Client,
    trace: Trace,
    step_start: usize,
    /// The memory both replicas share, when they share one.
    memory: Option<SharedMemory>,
}

impl World {
    /// A world at time 0 with two replicas of the lab's server built from `knobs` (sharing
    /// one redemption store when the knobs say so) and an empty trace.
    pub fn new(knobs: Knobs) -> World {
        let replica = |r: Replica| {
            Server::new(
                ServerConfig {
                    name: format!("replica-{}", r.name().to_ascii_lowercase()),
                    ttl_s: knobs.ttl_s,
                    policy: knobs.policy(r),
                    naive_ask_again: knobs.naive_ask_again,
                    ..ServerConfig::default()
                },
                replica_codec(&knobs, r),
                mrtr_core::fixtures::catalog(),
            )
        };
        let mut a = replica(Replica::A);
        let mut b = replica(Replica::B);
        let memory = match knobs.store {
            StoreMode::Shared => Some(SharedMemory::with_copy()),
            StoreMode::Quorum => Some(SharedMemory::quorum()),
            StoreMode::PerReplica => None,
        };
        if let Some(m) = &memory {
            a = a.with_store(Box::new(m.clone()));
            b = b.with_store(Box::new(m.clone()));
        }
        let caps = ClientCapabilities {
            elicitation_form: true,
            ..Default::default()
        };
        World {
            knobs,
            now_s: 0,
            rng: SeededEntropy::new(knobs.seed),
            replicas: [a, b],
            client: Client::new(caps, "mrtr-lab-client", "1.0.0").with_first_id(2),
            trace: Trace {
                seal: knobs.seal,
                ..Trace::default()
            },
            step_start: 0,
            memory,
        }
    }

    /// The machine the shared memory answers from dies (`None`: the replicas keep their
    /// memories in their own processes, so there is no such machine).
    pub fn memory_machine_dies(&mut self) -> Option<Loss> {
        self.memory.as_ref().and_then(SharedMemory::machine_dies)
    }

    /// Time passed: a standby copy of the memory catches up.
    fn time_passed(&self) {
        if let Some(m) = &self.memory {
            m.catch_up();
        }
    }

    /// Seconds since the scenario began.
    pub fn now_s(&self) -> u64 {
        self.now_s
    }

    fn push(&mut self, kind: EventKind) {
        let id = self.trace.events.len();
        self.trace.events.push(Event {
            id,
            at_s: self.now_s,
            kind,
        });
    }

    /// Moves the clock to `to_s` (never backwards).
    pub fn set_time(&mut self, to_s: u64) {
        if to_s != self.now_s {
            self.now_s = to_s.max(self.now_s);
            self.time_passed();
            self.push(EventKind::ClockAdvanced { to_s: self.now_s });
        }
    }

    /// Moves the clock to any time, even backwards: the timeline asks "what if this retry
    /// came at t?" for each row.
    pub fn jump_to(&mut self, to_s: u64) {
        if to_s != self.now_s {
            self.now_s = to_s;
            self.time_passed();
            self.push(EventKind::ClockAdvanced { to_s });
        }
    }

    /// Records a message from `from` to `to`.
    pub fn send(&mut self, from: Actor, to: Actor, kind: MessageKind, json: Value) {
        self.push(EventKind::Sent {
            from,
            to,
            kind,
            json,
        });
    }

    /// Records the balancer choosing `to`, and why.
    pub fn route(&mut self, to: Replica, why: impl Into<String>) {
        self.push(EventKind::Routed {
            to: to.actor(),
            why: why.into(),
        });
    }

    /// Records that `replica` finished answering and kept nothing.
    pub fn forgot(&mut self, replica: Replica) {
        self.push(EventKind::Forgot {
            replica: replica.actor(),
        });
    }

    /// Records `by` changing the ticket from `before` to `after` (`what`: the change in words).
    pub fn edited(&mut self, by: Actor, before: &str, after: &str, what: impl Into<String>) {
        self.push(EventKind::Edited {
            by,
            before: before.to_owned(),
            after: after.to_owned(),
            what: what.into(),
        });
    }

    /// Ends the current step: everything recorded since the last one belongs to it.
    pub fn step(&mut self, title: impl Into<String>, caption: impl Into<String>, focus: Actor) {
        let end = self.trace.events.len();
        self.trace.steps.push(StoryStep {
            title: title.into(),
            caption: caption.into(),
            events: self.step_start..end,
            focus,
        });
        self.step_start = end;
    }

    /// A replica handles one message from `principal` at the current time, and the trace
    /// records what it did (tickets minted and checked, the completion or refusal).
    pub fn serve(&mut self, replica: Replica, principal: &Principal, msg: &Value) -> Reply {
        let clock = FixedClock((EPOCH_S + self.now_s) * 1000);
        let reply = self.replicas[replica.index()].handle(
            msg,
            &mut CallContext {
                principal,
                clock: &clock,
                entropy: &mut self.rng,
            },
        );
        let by = replica.actor();
        for e in &reply.trace {
            let kind = match e {
                TraceEvent::TicketMinted { ticket, claims } => EventKind::TicketMinted {
                    by,
                    ticket: ticket.clone(),
                    claims: claims.clone(),
                },
                TraceEvent::TicketChecked { ticket, verdict } => EventKind::Checked {
                    by,
                    ticket: ticket.clone(),
                    verdict: verdict.clone(),
                },
                TraceEvent::Refused { error, detail } => EventKind::Refused {
                    by,
                    error: error.clone(),
                    detail: detail.clone(),
                },
                TraceEvent::Completed => EventKind::Completed {
                    by,
                    text: reply
                        .result()
                        .and_then(|r| r.pointer("/content/0/text"))
                        .and_then(Value::as_str)
                        .unwrap_or("completed")
                        .to_owned(),
                },
                // The lab's deploy sends no progress.
                TraceEvent::Asked { .. } | TraceEvent::Notified(_) => continue,
                // The lesson's world does not run tasks.
                TraceEvent::Task(_) => continue,
            };
            self.push(kind);
        }
        reply
    }

    /// Records the bearer token the client's requests carry.
    pub fn bearer(&mut self, token: String) {
        self.trace.bearer = Some(token);
    }

    /// Ends the run: events after the last step become a final step, "The end"; the trace.
    pub fn finish(mut self) -> Trace {
        if self.step_start < self.trace.events.len() {
            self.step("The end", "", Actor::Client);
        }
        self.trace
    }
}
