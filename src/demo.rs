//! Runs of the real protocol core that the page shows. Pure Rust: tested natively.

use mrtr_core::checks::Check;
use mrtr_core::ticket::rewrite_payload;
use mrtr_core::wire::ClientCapabilities;
use mrtr_core::{
    AgreeableHost, CallContext, Client, FixedClock, Key, Principal, SeededEntropy, Server, Verdict,
};
use serde_json::{json, Value};

/// The simulation's epoch: 2027-01-15, so tickets show plausible times.
pub const EPOCH_MS: u64 = 1_800_000_000_000;

/// One check as the page shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckRow {
    pub id: &'static str,
    pub question: &'static str,
    pub symbol: &'static str,
    pub word: &'static str,
    pub reason: Option<String>,
}

/// A retry and what the server made of it.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryOutcome {
    pub accepted: bool,
    /// What the user sees: the tool's text, or the error message.
    pub answer: String,
    pub first_failure: Option<&'static str>,
    pub checks: Vec<CheckRow>,
}

/// The proof that the pipeline runs the core: bob's honest deploy, and the same retry with
/// the ticket edited to prod.
#[derive(Clone, Debug, PartialEq)]
pub struct ProofRun {
    pub ticket: String,
    pub honest: RetryOutcome,
    pub edited: RetryOutcome,
}

fn rows(verdict: &Verdict) -> Vec<CheckRow> {
    verdict
        .outcomes
        .iter()
        .filter(|o| o.check != Check::SingleUse || o.status != mrtr_core::Status::Off)
        .map(|o| CheckRow {
            id: o.check.id(),
            question: o.check.question(),
            symbol: o.status.symbol(),
            word: o.status.word(),
            reason: match &o.status {
                mrtr_core::Status::Failed(r) => Some(r.to_string()),
                _ => None,
            },
        })
        .collect()
}

fn outcome(reply: &mrtr_core::Reply) -> RetryOutcome {
    let verdict = reply.verdict().cloned().unwrap_or(Verdict {
        outcomes: vec![],
        claims: None,
    });
    let answer = match (reply.result(), reply.error()) {
        (Some(r), _) => r["content"][0]["text"]
            .as_str()
            .unwrap_or("(no text)")
            .to_owned(),
        (None, Some(e)) => format!("error {}: {}", e.code, e.message),
        _ => "(no answer)".to_owned(),
    };
    RetryOutcome {
        accepted: verdict.accepted() && reply.error().is_none(),
        answer,
        first_failure: verdict.first_failure().map(|(c, _)| c.id()),
        checks: rows(&verdict),
    }
}

/// Runs the honest round trip through the real client and server engines, then replays the
/// retry with an edited ticket.
pub fn proof_run() -> Result<ProofRun, String> {
    let key = Key::new("k1", b"mrtr-lab demo key, shared by A+B").map_err(|e| e.to_string())?;
    let mut server = Server::lab(key);
    let bob = Principal::user("bob");
    let mut rng = SeededEntropy::new(2026);
    let caps = ClientCapabilities {
        elicitation_form: true,
        ..Default::default()
    };
    let mut client = Client::new(caps, "mrtr-lab", "0.1.0").with_first_id(2);
    let mut host = AgreeableHost::with(json!({"confirm": true}));

    let mut replies = Vec::new();
    let mut t = 0u64;
    let mut send = |msg: &Value| -> Result<Value, String> {
        let clock = FixedClock(EPOCH_MS + t * 1000);
        t += 8;
        let reply = server.handle(
            msg,
            &mut CallContext {
                principal: &bob,
                clock: &clock,
                entropy: &mut rng,
            },
        );
        replies.push(reply.clone());
        reply.response.ok_or_else(|| "no response".to_owned())
    };
    let (log, result) = client.run(
        "tools/call",
        json!({"name": "deploy", "arguments": {"env": "staging"}}),
        &mut host,
        &mut send,
    );
    result.map_err(|e| e.to_string())?;
    let first = replies.first().ok_or("no first reply")?;
    let ticket = first.minted().ok_or("no ticket minted")?.0.to_owned();
    let honest = outcome(replies.last().ok_or("no retry")?);

    let mut retry = log.get(2).cloned().ok_or("no retry message")?;
    let edited_ticket =
        rewrite_payload(&ticket, |p| p.replace("staging", "prod")).map_err(|e| e.to_string())?;
    retry["params"]["requestState"] = json!(edited_ticket);
    retry["id"] = json!(4);
    let clock = FixedClock(EPOCH_MS + 12_000);
    let reply = server.handle(
        &retry,
        &mut CallContext {
            principal: &bob,
            clock: &clock,
            entropy: &mut rng,
        },
    );
    Ok(ProofRun {
        ticket,
        honest,
        edited: outcome(&reply),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proof_run_accepts_the_honest_retry_and_refuses_the_edit() {
        let run = proof_run().unwrap();
        assert!(run.ticket.starts_with("v1."));
        assert!(run.honest.accepted);
        assert_eq!(run.honest.answer, "deployed to staging");
        assert_eq!(
            run.honest
                .checks
                .iter()
                .map(|c| c.symbol)
                .collect::<String>(),
            "✓✓✓✓✓"
        );
        assert!(!run.edited.accepted);
        assert_eq!(run.edited.first_failure, Some("signature"));
        assert_eq!(
            run.edited.answer,
            "error -32602: Invalid or expired requestState"
        );
        assert_eq!(
            run.edited
                .checks
                .iter()
                .map(|c| c.symbol)
                .collect::<String>(),
            "✗––––"
        );
    }
}
