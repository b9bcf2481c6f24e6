//! The ticket timeline: one ticket minted at t = 0 and the lesson's six retries against the
//! clock, each a real run through a replica. Rows run in table order on one world, so single
//! use sees the honest retry before the repeat.

use mrtr_core::{Principal, Verdict};
use serde_json::Value;

use crate::actor::Replica;
use crate::knobs::Knobs;
use crate::scenario::tamper;
use crate::setup::{alice, bob, judge, mint, with_env, with_id, with_ticket, Flow, Harm, Outcome};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowKind {
    Honest,
    Edited,
    Stolen,
    Late,
    OtherRequest,
    SentTwice,
}

impl RowKind {
    pub const ALL: [RowKind; 6] = [
        RowKind::Honest,
        RowKind::Edited,
        RowKind::Stolen,
        RowKind::Late,
        RowKind::OtherRequest,
        RowKind::SentTwice,
    ];

    /// The lesson's times, in seconds after the mint.
    pub fn default_at(self) -> u64 {
        match self {
            RowKind::Honest => 8,
            RowKind::Edited => 12,
            RowKind::Stolen => 20,
            RowKind::Late => 300,
            RowKind::OtherRequest => 30,
            RowKind::SentTwice => 40,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            RowKind::Honest => "Honest retry",
            RowKind::Edited => "Ticket edited to prod",
            RowKind::Stolen => "alice with bob's ticket",
            RowKind::Late => "The same retry, much later",
            RowKind::OtherRequest => "Staging ticket on a prod deploy",
            RowKind::SentTwice => "The honest retry, sent again",
        }
    }

    /// Which replica the balancer sends the row to. The repeat lands on the other replica,
    /// which is where a per-replica redemption memory fails.
    pub fn replica(self) -> Replica {
        match self {
            RowKind::SentTwice => Replica::A,
            _ => Replica::B,
        }
    }
}

/// The default times, in table order.
pub fn default_times() -> [u64; 6] {
    RowKind::ALL.map(RowKind::default_at)
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub kind: RowKind,
    pub at_s: u64,
    pub replica: Replica,
    pub bearer: String,
    pub id: i64,
    /// What was sent, in a few words.
    pub sent: String,
    pub request: Value,
    pub response: Value,
    pub verdict: Verdict,
    pub outcome: Outcome,
    /// What went wrong, when the row did work bob never confirmed (a second deploy counts).
    pub harm: Option<Harm>,
    pub answer: String,
    /// The reason the server logged (never sent).
    pub detail: Option<String>,
}

impl Row {
    /// The row's class: `ok`, `harm` or `refused` (a repeated question counts as refused:
    /// nothing was done).
    pub fn tone(&self) -> &'static str {
        match (self.outcome.completed(), &self.harm) {
            (true, None) => "ok",
            (true, Some(_)) => "harm",
            (false, _) => "refused",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    pub ticket: String,
    pub ttl_s: u64,
    pub rows: Vec<Row>,
}

/// Runs the six rows at `times` (seconds after the mint, in table order).
pub fn timeline(knobs: Knobs, times: [u64; 6]) -> Option<Timeline> {
    let m = mint(knobs)?;
    let mut w = m.world;
    // Every row is sent on bob's one confirmation: a second deploy is harm.
    let mut flow = Flow::of(&m.claims);
    let mut rows = Vec::new();
    for (kind, at_s) in RowKind::ALL.into_iter().zip(times) {
        let (who, id, msg, sent): (Principal, i64, Value, String) = match kind {
            RowKind::Honest => (
                bob(),
                3,
                m.retry.clone(),
                "deploy {env: staging} + ticket + yes".into(),
            ),
            RowKind::Edited => {
                let (edited, _) = tamper(&m.ticket);
                (
                    bob(),
                    4,
                    with_ticket(&m.retry, &edited),
                    "deploy + ticket edited to prod".into(),
                )
            }
            RowKind::Stolen => (
                alice(),
                5,
                m.retry.clone(),
                "deploy {env: staging} + bob's ticket".into(),
            ),
            RowKind::Late => (
                bob(),
                6,
                m.retry.clone(),
                "the honest retry, unchanged".into(),
            ),
            RowKind::OtherRequest => (
                bob(),
                7,
                with_env(&m.retry, "prod"),
                "deploy {env: prod} + staging ticket".into(),
            ),
            RowKind::SentTwice => (
                bob(),
                8,
                m.retry.clone(),
                "the honest retry, a second time".into(),
            ),
        };
        // Each retry is a request of its own, with an id of its own.
        let msg = with_id(&msg, id);
        let j = judge(&mut w, &mut flow, kind.replica(), &who, at_s, &msg);
        rows.push(Row {
            kind,
            at_s,
            replica: kind.replica(),
            bearer: format!("{who}-token"),
            id,
            sent,
            request: msg,
            response: j.response,
            verdict: j.verdict,
            outcome: j.outcome,
            harm: j.harm,
            answer: j.answer,
            detail: j.detail,
        });
    }
    Some(Timeline {
        ticket: m.ticket,
        ttl_s: knobs.ttl_s,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knobs::StoreMode;
    use crate::setup::HarmKind;

    fn symbols(knobs: Knobs, times: [u64; 6]) -> Vec<String> {
        timeline(knobs, times)
            .unwrap()
            .rows
            .iter()
            .map(|r| crate::checks::symbols(&r.verdict))
            .collect()
    }

    #[test]
    fn the_default_matrix_is_the_lessons() {
        assert_eq!(
            symbols(Knobs::default(), default_times()),
            ["✓✓✓✓✓", "✗––––", "✓✗–––", "✓✓✗––", "✓✓✓✗–", "✓✓✓✓✓"]
        );
        let t = timeline(Knobs::default(), default_times()).unwrap();
        assert_eq!(
            t.rows[0].answer,
            "Accepted: deployed to staging, release 2026.11.30-2."
        );
        assert_eq!(t.rows[2].bearer, "alice-token");
        assert!(t.rows[3].answer.contains("Expiry not passed"));
        assert!(t.rows[1]
            .detail
            .as_deref()
            .unwrap()
            .starts_with("signature"));
    }

    #[test]
    fn moving_the_clock_or_the_ttl_recomputes() {
        let mut times = default_times();
        times[0] = 121;
        assert_eq!(symbols(Knobs::default(), times)[0], "✓✓✗––");
        let short = Knobs {
            ttl_s: 10,
            ..Knobs::default()
        };
        let s = symbols(short, default_times());
        assert_eq!(s[0], "✓✓✓✓✓");
        assert_eq!(s[4], "✓✓✗––"); // at 30 s a 10 s ticket has expired before the request is compared
        assert_eq!(s[5], "✓✓✗––");
    }

    #[test]
    fn single_use_refuses_the_repeat_only_with_a_shared_memory() {
        let shared = Knobs {
            single_use: true,
            ..Knobs::default()
        };
        let s = symbols(shared, default_times());
        assert_eq!(s[0], "✓✓✓✓✓✓");
        assert_eq!(s[5], "✓✓✓✓✓✗");
        let per_replica = Knobs {
            single_use: true,
            store: StoreMode::PerReplica,
            ..Knobs::default()
        };
        let s = symbols(per_replica, default_times());
        assert_eq!(s[5], "✓✓✓✓✓✓", "replica A never saw B's redemption");
    }

    #[test]
    fn every_row_sends_a_request_with_an_id_of_its_own() {
        let t = timeline(Knobs::default(), default_times()).unwrap();
        let mut ids: Vec<i64> = t.rows.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), t.rows.len());
    }

    #[test]
    fn the_raw_lab_server_accepts_what_it_should_not() {
        // Signs the caller and an expiry into the ticket, but checks neither.
        let mut knobs = Knobs::default();
        knobs.policy_b.expiry = false;
        knobs.policy_b.principal = false;
        let t = timeline(knobs, default_times()).unwrap();
        // It deploys for alice, and late: harm, never a success.
        assert_eq!(
            t.rows[2].answer,
            "Harm done: deployed to staging, release 2026.11.30-2. The ticket was bob's, and alice, who confirmed nothing, got the deploy: B let it through because its principal check is off."
        );
        assert_eq!(t.rows[2].harm.as_ref().unwrap().kind, HarmKind::OtherCaller);
        assert_eq!(t.rows[3].harm.as_ref().unwrap().kind, HarmKind::Late);
        assert!(t.rows[3]
            .answer
            .starts_with("Harm done: deployed to staging"));
        assert_eq!(t.rows[2].tone(), "harm");
        assert_eq!(crate::checks::symbols(&t.rows[1].verdict), "✗○○––");
    }

    #[test]
    fn the_second_send_deploys_again_and_is_harm_unless_single_use_refuses_it() {
        let t = timeline(Knobs::default(), default_times()).unwrap();
        let tones: Vec<&str> = t.rows.iter().map(Row::tone).collect();
        assert_eq!(
            tones,
            ["ok", "refused", "refused", "refused", "refused", "harm"]
        );
        let h = t.rows[5].harm.as_ref().unwrap();
        assert_eq!(h.kind, HarmKind::Again);
        assert!(
            h.what_went_wrong.contains("single use is off"),
            "{}",
            h.what_went_wrong
        );
        let single = Knobs {
            single_use: true,
            ..Knobs::default()
        };
        let t = timeline(single, default_times()).unwrap();
        assert_eq!(t.rows[5].tone(), "refused");
        // A memory per replica: A never saw B's redemption.
        let per_replica = Knobs {
            store: StoreMode::PerReplica,
            ..single
        };
        let t = timeline(per_replica, default_times()).unwrap();
        let h = t.rows[5].harm.as_ref().unwrap();
        assert!(
            h.what_went_wrong.contains("never saw the first redemption"),
            "{}",
            h.what_went_wrong
        );
    }
}
