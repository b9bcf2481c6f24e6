//! The round trip's transcript: the JSON-RPC messages on the client's side of the balancer, up
//! to a step, as tokens (keys the page explains, and what the retry changed, marked). Pure.

use mrtr_world::diff::retry_changes;
use mrtr_world::{Actor, EventKind, MessageKind, Trace};

use super::json_view::{folded_tokens, tokens, Folding, Token};

/// One message on the client's wire.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// The id of the event that sent the message.
    pub id: usize,
    /// True for a message the client sends, false for one it receives.
    pub outgoing: bool,
    /// The HTTP header that says who is calling, on the client's requests.
    pub header: Option<String>,
    /// What the message is.
    pub kind: MessageKind,
    /// The round-trip step that sends it (from 0).
    pub step: usize,
    /// The message's JSON, as highlighted tokens.
    pub tokens: Vec<Token>,
    /// The message read for what it says: the envelope folded, the ticket as a chip.
    pub folded: Vec<Token>,
}

/// The messages on the client's wire, in steps 0 to `upto`.
pub fn lines(t: &Trace, upto: usize) -> Vec<Line> {
    let first_call = t.events.iter().find_map(|e| match &e.kind {
        EventKind::Sent {
            from: Actor::Client,
            kind: MessageKind::Call,
            json,
            ..
        } => Some(json.clone()),
        _ => None,
    });
    let face = |ticket: &str| {
        let iat = mrtr_core::ticket::read_unverified(ticket)
            .map(|c| c.iat)
            .unwrap_or(0);
        super::stage::face(ticket, iat)
    };
    let folding = Folding {
        ticket_face: &face,
        issued: t.minted_ticket(),
    };
    let mut out = Vec::new();
    for (si, step) in t.steps.iter().enumerate().take(upto + 1) {
        for e in &t.events[step.events.clone()] {
            let EventKind::Sent {
                from,
                to,
                kind,
                json,
            } = &e.kind
            else {
                continue;
            };
            let on_client_wire = (*from == Actor::Client && *to == Actor::Balancer)
                || (*from == Actor::Balancer && *to == Actor::Client);
            if !on_client_wire || json.get("jsonrpc").is_none() {
                continue;
            }
            let changes = match (kind, &first_call) {
                (MessageKind::Retry, Some(call)) => retry_changes(call, json),
                _ => Vec::new(),
            };
            let outgoing = *from == Actor::Client;
            out.push(Line {
                id: e.id,
                outgoing,
                header: t
                    .bearer
                    .as_ref()
                    .filter(|_| outgoing)
                    .map(|b| format!("Authorization: Bearer {b}")),
                kind: *kind,
                step: si,
                tokens: tokens(json, &changes),
                folded: folded_tokens(json, &changes, &folding),
            });
        }
    }
    out
}

/// What the wire log says at a step where nothing crosses the client's connection.
pub fn quiet_step(lines: &[Line], step: usize) -> Option<&'static str> {
    (!lines.iter().any(|l| l.step == step)).then_some(
        "Nothing crosses the client's connection at this step: it happens inside the host, or between the load balancer and a replica.",
    )
}

/// The message's title in the wire log.
pub fn title(l: &Line) -> String {
    let what = match l.kind {
        MessageKind::Call => "the call",
        MessageKind::InputRequired => "input_required: a question and a ticket",
        MessageKind::Retry => "the retry",
        MessageKind::Complete => "the result",
        MessageKind::Error => "the refusal",
        MessageKind::Question | MessageKind::Answer => "host",
    };
    format!(
        "{} step {}: {what}",
        if l.outgoing { "-->" } else { "<--" },
        l.step + 1
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_view::text;
    use mrtr_world::diff::Change;
    use mrtr_world::{round_trip, Ending, Knobs};

    #[test]
    fn the_transcript_is_the_client_side_wire() {
        let t = round_trip(Knobs::default(), Ending::Honest);
        let ls = lines(&t, t.steps.len() - 1);
        let kinds: Vec<MessageKind> = ls.iter().map(|l| l.kind).collect();
        assert_eq!(
            kinds,
            [
                MessageKind::Call,
                MessageKind::InputRequired,
                MessageKind::Retry,
                MessageKind::Complete
            ]
        );
        assert!(text(&ls[3].tokens).contains("deployed to staging"));
        let marked: Vec<(&str, Change)> = ls[2]
            .tokens
            .iter()
            .filter_map(|t| t.change.map(|c| (t.text.as_str(), c)))
            .collect();
        assert_eq!(
            marked,
            [
                ("\"id\"", Change::Changed),
                ("\"inputResponses\"", Change::Added),
                ("\"requestState\"", Change::Added)
            ]
        );
        assert_eq!(lines(&t, 0).len(), 1);
        // Folded, the retry reads as what changed: the envelope one line, the ticket a chip.
        let folded = text(&ls[2].folded);
        assert!(
            folded.contains("\"_meta\": { … 3 fields },\n    \"name\""),
            "{folded}"
        );
        assert!(folded.contains("\"requestState\": ticket: sub bob · env staging · exp t+120 s"));
        assert!(!folded.contains("v1."));
        let asked = text(&ls[1].folded);
        assert!(asked.contains("\"requestState\": ticket: sub bob · env staging · exp t+120 s\n"));
        assert!(
            asked.contains("\"requestedSchema\": { … 3 fields }"),
            "{asked}"
        );
        let marked: Vec<&str> = ls[2]
            .folded
            .iter()
            .filter(|t| t.change.is_some())
            .map(|t| t.text.as_str())
            .collect();
        assert_eq!(marked, ["\"id\"", "\"inputResponses\"", "\"requestState\""]);
        // The tampered ending: the retry's ticket is not the one A issued, and says so.
        let t = round_trip(Knobs::default(), Ending::Tampered);
        let ls = lines(&t, t.steps.len() - 1);
        assert!(text(&ls[1].folded).contains("\"requestState\": ticket: sub bob · env staging"));
        assert!(text(&ls[2].folded).contains("\"requestState\": edited ticket: sub bob · env prod"));
    }

    #[test]
    fn the_questions_method_and_params_have_notes_of_their_own() {
        let t = round_trip(Knobs::default(), Ending::Honest);
        let ls = lines(&t, t.steps.len() - 1);
        let notes = |l: &Line, key: &str| -> Vec<&'static str> {
            l.tokens
                .iter()
                .filter(|x| x.text == format!("{key:?}"))
                .filter_map(|x| x.field)
                .collect()
        };
        // The call's method and params are the envelope's; the question's are its own.
        assert_eq!(notes(&ls[0], "method"), ["method"]);
        assert_eq!(notes(&ls[0], "params"), ["params"]);
        assert_eq!(notes(&ls[1], "method"), ["inputRequests-method"]);
        assert_eq!(notes(&ls[1], "params"), ["inputRequests-params"]);
        assert_eq!(notes(&ls[2], "content"), ["inputResponses-content"]);
        assert_eq!(notes(&ls[3], "content"), ["content"]);
    }

    #[test]
    fn requests_say_who_is_calling_and_quiet_steps_say_so() {
        let t = round_trip(Knobs::default(), Ending::Honest);
        let ls = lines(&t, t.steps.len() - 1);
        let headers: Vec<Option<&str>> = ls.iter().map(|l| l.header.as_deref()).collect();
        let bob = Some("Authorization: Bearer bob-token");
        assert_eq!(
            headers,
            [bob, None, bob, None],
            "requests carry it, answers do not"
        );
        // Steps 3 and 5 (the host asks; the balancer picks B) put nothing on the client's wire.
        let quiet: Vec<usize> = (0..t.steps.len())
            .filter(|s| quiet_step(&ls, *s).is_some())
            .collect();
        assert_eq!(quiet, [2, 4]);
    }
}
