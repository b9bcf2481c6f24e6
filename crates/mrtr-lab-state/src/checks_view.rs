//! A verdict as rows the page shows: symbol and word (never colour alone), and the reason.

use mrtr_core::checks::{Check, Refusal, Status};
use mrtr_core::ticket::OpenError;
use mrtr_core::ticket::Seal;
use mrtr_core::Verdict;
use mrtr_world::checks::{reason, CheckWords, StatusWords};
use mrtr_world::tone::{Harm, Tone};

/// One check's row in the page's list of checks.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckRow {
    /// The check's id (`Check::id`).
    pub id: &'static str,
    /// The question the check asks of the ticket.
    pub question: &'static str,
    /// The status's symbol, shown beside its word.
    pub symbol: &'static str,
    /// The status's word (never colour alone).
    pub word: &'static str,
    /// Why it failed, or what is unanswered; `None` otherwise.
    pub reason: Option<String>,
}

/// One row per check; single use only when it is on. `seal` is how the run's replicas protect
/// their tickets: it decides what the signature check is asked.
pub fn check_rows(verdict: &Verdict, seal: Seal) -> Vec<CheckRow> {
    verdict
        .outcomes
        .iter()
        .filter(|o| o.check != Check::SingleUse || o.status != Status::Off)
        .map(|o| CheckRow {
            id: o.check.id(),
            question: question(o.check, &o.status, seal),
            symbol: o.status.symbol(),
            word: o.status.word(),
            reason: match &o.status {
                Status::Failed(r) => Some(reason(r)),
                Status::Unanswered { keys } => Some(format!(
                    "no answer of the kind asked for {}; not a refusal: the server asks again",
                    keys.join(", ")
                )),
                _ => None,
            },
        })
        .collect()
}

/// What the row asks. A string that is not a ticket at all fails before any signature is
/// compared (and whether or not the signature check is on): it is asked whether it reads as a
/// ticket, so the row never says a signature failed to match when none was compared.
fn question(check: Check, status: &Status, seal: Seal) -> &'static str {
    match (check, status) {
        (Check::Signature, Status::Failed(Refusal::Unopened(e)))
            if !matches!(
                e,
                OpenError::BadMac | OpenError::UnknownKey(_) | OpenError::CannotDecrypt
            ) =>
        {
            "Reads as a ticket"
        }
        _ => check.question(seal),
    }
}

/// "Accepted", "Asked again: …" or "Refused at the … check": the verdict's tone, in words.
pub fn headline(verdict: &Verdict) -> String {
    match (verdict.first_failure(), Tone::of_verdict(verdict, None)) {
        (Some((c, _)), _) => format!("{} at the {} check", Tone::Refused.word(), c.id()),
        (None, Tone::Asked) => format!("{}: no answer of the kind asked", Tone::Asked.word()),
        (None, t) => t.word().into(),
    }
}

/// The headline and tone of a verdict whose work the world judged: work that was harm reads
/// as harm (its word and tone), never "Accepted" as a success.
pub fn judged(verdict: &Verdict, harm: Option<&Harm>) -> (String, Tone) {
    match Tone::of_verdict(verdict, harm) {
        Tone::Harm => (Harm::headline("no check refused it"), Tone::Harm),
        t => (headline(verdict), t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr_world::{round_trip, Ending, Knobs};

    #[test]
    fn rows_come_from_the_cores_verdict() {
        let t = round_trip(Knobs::default(), Ending::Tampered);
        let v = t.verdict().unwrap();
        let rows = check_rows(v, t.seal);
        assert_eq!(rows[0].question, "Signature matches");
        assert_eq!(rows.iter().map(|r| r.symbol).collect::<String>(), "✗––––");
        assert_eq!(rows[0].word, "failed");
        assert!(rows[0].reason.as_deref().unwrap().contains("signature"));
        assert_eq!(headline(v), "Refused at the signature check");
        let t = round_trip(
            Knobs {
                single_use: true,
                ..Knobs::default()
            },
            Ending::Honest,
        );
        assert_eq!(check_rows(t.verdict().unwrap(), t.seal).len(), 6);
        assert_eq!(headline(t.verdict().unwrap()), "Accepted");
        assert_eq!(Tone::of_verdict(t.verdict().unwrap(), None), Tone::Done);
    }

    #[test]
    fn the_signature_row_is_asked_the_way_the_runs_tickets_are_protected() {
        let sealed = round_trip(
            Knobs {
                seal: Seal::Sealed,
                ..Knobs::default()
            },
            Ending::Honest,
        );
        let rows = check_rows(sealed.verdict().unwrap(), sealed.seal);
        assert_eq!(rows[0].question, "Seal opens");
        let signed = round_trip(Knobs::default(), Ending::Honest);
        for r in check_rows(signed.verdict().unwrap(), signed.seal) {
            assert!(
                !r.question.to_lowercase().contains("seal"),
                "{}",
                r.question
            );
        }
    }

    #[test]
    fn harm_never_reads_as_a_success() {
        let mut k = Knobs::default();
        k.policy_b.signature = false;
        let t = round_trip(k, Ending::Tampered);
        let v = t.verdict().unwrap();
        assert_eq!(
            Tone::of_verdict(v, None),
            Tone::Done,
            "the checks alone let it through"
        );
        let (head, tone) = judged(v, t.harm.as_ref());
        assert_eq!(tone, Tone::Harm);
        assert!(
            head.starts_with("Harm done") && !head.contains("Accepted"),
            "{head}"
        );
        // The honest deploy stays a success.
        let honest = round_trip(Knobs::default(), Ending::Honest);
        assert_eq!(
            judged(honest.verdict().unwrap(), honest.harm.as_ref()),
            ("Accepted".to_owned(), Tone::Done)
        );
    }

    #[test]
    fn a_string_that_is_no_ticket_is_never_said_to_fail_the_signature() {
        use mrtr_world::inspect::inspect;
        for signature_on in [true, false] {
            let mut k = Knobs::default();
            k.policy_b.signature = signature_on;
            let i = inspect(k, "not a ticket", 8).unwrap();
            let row = check_rows(&i.verdict, Seal::Signed).remove(0);
            assert_eq!(
                (row.id, row.question, row.word),
                ("signature", "Reads as a ticket", "failed")
            );
        }
        // An edit that reads but does not match is a signature that fails to match.
        let i = inspect(
            Knobs::default(),
            &mrtr_world::scenario::tamper(
                &mrtr_world::inspect::minted_ticket(Knobs::default()).unwrap(),
            )
            .0,
            8,
        )
        .unwrap();
        assert_eq!(
            check_rows(&i.verdict, Seal::Signed)[0].question,
            "Signature matches"
        );
    }

    #[test]
    fn a_retry_without_the_answer_reads_as_asked_again() {
        let o = mrtr_world::misuse::play(Knobs::default(), mrtr_world::misuse::Move::WithoutAnswer)
            .unwrap();
        let v = &o.attempts[0].verdict;
        assert_eq!(headline(v), "Asked again: no answer of the kind asked");
        assert_eq!(Tone::of_verdict(v, None), Tone::Asked);
        let answer = check_rows(v, Seal::Signed)
            .into_iter()
            .find(|r| r.id == "answer")
            .unwrap();
        assert_eq!(answer.word, "asked again");
        assert!(answer.reason.unwrap().contains("not a refusal"));
    }
}
