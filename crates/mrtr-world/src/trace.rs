//! What happened, in order: the trace every view draws from.

use mrtr_core::ticket::Claims;
use mrtr_core::{RpcError, Verdict};
use serde_json::Value;

use crate::actor::Actor;

/// What a message is, for captions and colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageKind {
    /// The client's first request of a call.
    Call,
    /// A server's `input_required` result.
    InputRequired,
    /// The client passing the server's questions to the host (the user).
    Question,
    /// The host's answers back to the client.
    Answer,
    /// The client's retry, with the answers and the ticket.
    Retry,
    /// A server's final result.
    Complete,
    /// An error response.
    Error,
}

impl MessageKind {
    /// A short lowercase name, for markup.
    pub fn id(self) -> &'static str {
        match self {
            MessageKind::Call => "call",
            MessageKind::InputRequired => "inputrequired",
            MessageKind::Question => "question",
            MessageKind::Answer => "answer",
            MessageKind::Retry => "retry",
            MessageKind::Complete => "complete",
            MessageKind::Error => "error",
        }
    }
}

/// What one event of a trace is.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// A message crossed an edge. `json` is the exact JSON-RPC message where there is one
    /// (host↔client traffic is the host's own UI, shown as a plain object).
    Sent {
        /// The sender.
        from: Actor,
        /// The receiver.
        to: Actor,
        /// What the message is.
        kind: MessageKind,
        /// The message.
        json: Value,
    },
    /// The balancer chose a replica.
    Routed {
        /// The replica chosen.
        to: Actor,
        /// Why, in words.
        why: String,
    },
    /// A replica minted a ticket into its `input_required` result.
    TicketMinted {
        /// The replica.
        by: Actor,
        /// The ticket as sent.
        ticket: String,
        /// What it carries.
        claims: Claims,
    },
    /// A replica ran the checks on a returned ticket.
    Checked {
        /// The replica.
        by: Actor,
        /// The ticket as it arrived.
        ticket: String,
        /// Every check's outcome.
        verdict: Verdict,
    },
    /// A replica finished answering and kept nothing.
    Forgot {
        /// The replica.
        replica: Actor,
    },
    /// The ticket was changed on its way back.
    Edited {
        /// Who changed it.
        by: Actor,
        /// The ticket before.
        before: String,
        /// The ticket after.
        after: String,
        /// The change, in words.
        what: String,
    },
    /// The virtual clock moved on.
    ClockAdvanced {
        /// The new time, seconds since the scenario began.
        to_s: u64,
    },
    /// A replica completed the call.
    Completed {
        /// The replica.
        by: Actor,
        /// The result's first text block (`completed` if it has none).
        text: String,
    },
    /// A replica refused the request.
    Refused {
        /// The replica.
        by: Actor,
        /// The error it sent.
        error: RpcError,
        /// Why, as its log says.
        detail: String,
    },
}

/// One thing that happened, at a time on the virtual clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Stable within a trace: its position.
    pub id: usize,
    /// Seconds since the scenario began, on the virtual clock.
    pub at_s: u64,
    /// What happened.
    pub kind: EventKind,
}

/// A step of the story: a caption over a run of events.
#[derive(Clone, Debug, PartialEq)]
pub struct StoryStep {
    /// The step's heading.
    pub title: String,
    /// What the step shows, in a sentence or two.
    pub caption: String,
    /// Indices into `Trace::events`.
    pub events: std::ops::Range<usize>,
    /// The actor the step is about.
    pub focus: Actor,
}

/// A whole run: its events and the steps the story groups them into.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Trace {
    /// Every event, in order (an event's id is its index).
    pub events: Vec<Event>,
    /// The story's steps, in order.
    pub steps: Vec<StoryStep>,
    /// The bearer token the client's requests carry (on HTTP: who is calling, the principal).
    pub bearer: Option<String>,
    /// How the replicas of this run protect their tickets: what the signature check is asked.
    pub seal: mrtr_core::ticket::Seal,
    /// What went wrong, when the story ends in work the user never confirmed.
    pub harm: Option<crate::tone::Harm>,
}

/// What the server's code is doing at a step of the story, as the step's events say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerPhase {
    /// The first call reaches a replica: the handler runs with no ticket.
    FirstCall,
    /// A replica answers `input_required`: the handler asks and the ticket is minted.
    Asked,
    /// The request is with the host, the client or the balancer: no server code runs.
    Away,
    /// A replica judges the returned ticket (or finishes without one): the checks, then the
    /// handler.
    Retry,
    /// A replica refuses: the handler never runs (or runs no further).
    Refused,
}

impl ServerPhase {
    /// Read off one step's events: a refusal, then a replica checking a ticket or finishing,
    /// then a replica asking, then a call reaching a replica; otherwise no server code runs.
    pub fn of(events: &[Event]) -> ServerPhase {
        let any = |f: &dyn Fn(&EventKind) -> bool| events.iter().any(|e| f(&e.kind));
        if any(&|k| matches!(k, EventKind::Refused { .. })) {
            ServerPhase::Refused
        } else if any(&|k| matches!(k, EventKind::Checked { .. } | EventKind::Completed { .. })) {
            ServerPhase::Retry
        } else if any(
            &|k| matches!(k, EventKind::Sent { from, kind: MessageKind::InputRequired, .. } if from.is_replica()),
        ) {
            ServerPhase::Asked
        } else if any(
            &|k| matches!(k, EventKind::Sent { to, kind: MessageKind::Call, .. } if to.is_replica()),
        ) {
            ServerPhase::FirstCall
        } else {
            ServerPhase::Away
        }
    }
}

fn first_verdict(events: &[Event]) -> Option<&Verdict> {
    events.iter().find_map(|e| match &e.kind {
        EventKind::Checked { verdict, .. } => Some(verdict),
        _ => None,
    })
}

impl Trace {
    /// The events up to and including `step` (none for a step the trace does not have).
    fn events_until(&self, step: usize) -> &[Event] {
        let end = self.steps.get(step).map(|s| s.events.end).unwrap_or(0);
        &self.events[..end]
    }

    /// Messages that carried JSON-RPC, up to and including `step`.
    pub fn messages_until(&self, step: usize) -> Vec<(usize, &Event)> {
        self.events_until(step)
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::Sent { json, .. } if json.get("jsonrpc").is_some()))
            .map(|e| (e.id, e))
            .collect()
    }

    /// What the server's code does at `step` (the last step for one past the end).
    pub fn server_phase(&self, step: usize) -> ServerPhase {
        let step = step.min(self.steps.len().saturating_sub(1));
        let events = self
            .steps
            .get(step)
            .map(|s| &self.events[s.events.clone()])
            .unwrap_or_default();
        ServerPhase::of(events)
    }

    /// The first verdict in the trace.
    pub fn verdict(&self) -> Option<&Verdict> {
        first_verdict(&self.events)
    }

    /// The first verdict, once the story has reached it by `step`.
    pub fn verdict_by(&self, step: usize) -> Option<&Verdict> {
        first_verdict(self.events_until(step))
    }

    /// The first ticket minted in the trace.
    pub fn minted_ticket(&self) -> Option<&str> {
        self.events.iter().find_map(|e| match &e.kind {
            EventKind::TicketMinted { ticket, .. } => Some(ticket.as_str()),
            _ => None,
        })
    }

    /// How the story ended: the completed text or the refusal.
    pub fn outcome(&self) -> Option<Result<&str, &RpcError>> {
        self.events.iter().rev().find_map(|e| match &e.kind {
            EventKind::Completed { text, .. } => Some(Ok(text.as_str())),
            EventKind::Refused { error, .. } => Some(Err(error)),
            _ => None,
        })
    }
}
