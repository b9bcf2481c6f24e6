//! The audit's wire to a simulated replica: the page's sample report, and the proof that
//! each row fails exactly when the check that guards it is off, in milliseconds.

use mrtr_core::checks::CheckPolicy;
use mrtr_core::redemption::MemoryStore;
use mrtr_core::tasks::TaskFlaws;
use mrtr_core::ticket::{Codec, Key, Keyring, Seal};
use mrtr_core::{CallContext, FixedClock, Principal, SeededEntropy, Server, ServerConfig};
use serde_json::{json, Value};

use super::{Exchange, Who, Wire};
use mrtr_world::world::{EPOCH_S, SHARED_SECRET};

/// One replica of the lab's server, on a virtual clock: bob is the caller, alice the other.
pub struct SimWire {
    server: Server,
    policy: CheckPolicy,
    naive_ask_again: bool,
    /// A restart gives the replica a memory that does not know when it began (as a store
    /// without an epoch would), so tickets minted before it look unspent.
    pub restart_without_epoch: bool,
    task_flaws: TaskFlaws,
    /// The simulated clock, in milliseconds since the wire's epoch.
    now_ms: u64,
    rng: SeededEntropy,
    /// Every exchange, in order.
    pub log: Vec<(Value, Value)>,
}

impl SimWire {
    /// A wire to a fresh replica of the lab's tools (key `k1`, signed tickets) that runs the
    /// checks `policy` leaves on, re-mints on the ask-again path when `naive_ask_again` (the
    /// naive server), and draws ticket ids from a generator seeded with `seed`.
    pub fn new(policy: CheckPolicy, naive_ask_again: bool, seed: u64) -> SimWire {
        SimWire {
            server: replica(policy, naive_ask_again),
            policy,
            naive_ask_again,
            restart_without_epoch: false,
            task_flaws: TaskFlaws::default(),
            now_ms: 0,
            rng: SeededEntropy::new(seed),
            log: Vec::new(),
        }
    }

    /// The same replica with holes in its task methods (see [`TaskFlaws`]): a server built to
    /// fail the task rows.
    pub fn with_task_flaws(mut self, flaws: TaskFlaws) -> SimWire {
        self.task_flaws = flaws;
        self.server.config.task_flaws = flaws;
        self
    }

    /// The server's ticket lifetime, in seconds.
    pub fn ttl_s(&self) -> u64 {
        self.server.config.ttl_s
    }
}

/// The audited replica: key `k1`, signed tickets, the lab's tools and the tasks extension's
/// fixtures (one of which asks at once).
fn replica(policy: CheckPolicy, naive_ask_again: bool) -> Server {
    let key = Key::new("k1", SHARED_SECRET).unwrap_or_else(|_| unreachable!("a 32-byte key"));
    Server::new(
        ServerConfig {
            name: "audited".into(),
            policy,
            naive_ask_again,
            ..ServerConfig::default()
        },
        Codec::new(Keyring::new(key), Seal::Signed),
        mrtr_core::fixtures::catalog().and(mrtr_core::task_fixtures::conformance_catalog()),
    )
}

impl Wire for SimWire {
    fn send(&mut self, msg: &Value, who: Who) -> Result<Exchange, String> {
        self.now_ms += 1000;
        let principal = match who {
            Who::Caller => Principal::user("bob"),
            Who::Other => Principal::user("alice"),
            Who::Nobody => Principal::Anonymous,
        };
        let clock = FixedClock(EPOCH_S * 1000 + self.now_ms);
        let reply = self.server.handle(
            msg,
            &mut CallContext {
                principal: &principal,
                clock: &clock,
                entropy: &mut self.rng,
            },
        );
        let body = reply.response.unwrap_or(Value::Null);
        self.log.push((msg.clone(), body.clone()));
        Ok(Exchange {
            status: Some(reply.http_status),
            body,
        })
    }

    /// In turn, on one replica: what matters is the memory they share, not the timing.
    fn race(&mut self, msgs: &[Value], who: Who) -> Option<Result<Vec<Exchange>, String>> {
        Some(msgs.iter().map(|m| self.send(m, who)).collect())
    }

    fn wait_ms(&mut self, ms: u64) {
        self.now_ms += ms;
    }

    fn ms_into_second(&self) -> u64 {
        self.now_ms % 1000
    }

    fn oversize_body(&mut self, bytes: usize) -> Option<Result<Exchange, String>> {
        let text = format!("{{\"pad\":\"{}\"}}", "x".repeat(bytes));
        let clock = FixedClock(EPOCH_S * 1000 + self.now_ms);
        let reply = self.server.handle_text(
            &text,
            &mut CallContext {
                principal: &Principal::user("bob"),
                clock: &clock,
                entropy: &mut self.rng,
            },
        );
        Some(Ok(Exchange {
            status: Some(reply.http_status),
            body: reply.response.unwrap_or(json!(null)),
        }))
    }

    fn callers(&self) -> crate::Callers {
        crate::Callers::http(Some("bob-token"), Some("alice-token"))
    }

    /// A new process with the same key and a memory of its own, begun now; like the native
    /// server, it mints nothing until the next whole second.
    fn restart(&mut self) -> Option<Result<(), String>> {
        let now_s = EPOCH_S + self.now_ms / 1000;
        let memory = MemoryStore::default();
        let memory = if self.restart_without_epoch {
            memory
        } else {
            memory.beginning_at(now_s)
        };
        self.server = replica(self.policy, self.naive_ask_again).with_store(Box::new(memory));
        self.server.config.task_flaws = self.task_flaws;
        self.now_ms += 1000 - self.now_ms % 1000;
        Some(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{audit, Guard, Options, Status, ROWS};
    use super::*;
    use mrtr_core::checks::Check;

    fn run(policy: CheckPolicy, naive: bool) -> super::super::Report {
        let mut wire = SimWire::new(policy, naive, 7);
        let opts = Options {
            tool: None,
            expect_single_use: true,
            ttl_wait_s: Some(wire.ttl_s() + 1),
            ..Options::default()
        };
        audit(&mut wire, &opts, &mut |_| {}).unwrap()
    }

    fn all_on() -> CheckPolicy {
        CheckPolicy {
            single_use: true,
            ..CheckPolicy::default()
        }
    }

    #[test]
    fn the_labs_server_passes_every_row() {
        let r = run(all_on(), false);
        for row in &r.rows {
            assert_eq!(row.status, Status::Pass, "{}: {}", row.row.id, row.evidence);
        }
        assert!(r.ok());
        assert_eq!(r.tool, "deploy");
    }

    #[test]
    fn each_check_turned_off_fails_exactly_the_rows_it_guards() {
        for check in [
            Check::Signature,
            Check::Principal,
            Check::Expiry,
            Check::Request,
            Check::SingleUse,
        ] {
            let mut p = all_on();
            p.set(check, false);
            let r = run(p, false);
            for row in &r.rows {
                let guarded = row.row.fails_without(Guard::Check(check));
                let want = if guarded { Status::Fail } else { Status::Pass };
                assert_eq!(
                    row.status, want,
                    "{check:?} off, row {}: {}",
                    row.row.id, row.evidence
                );
            }
            assert!(!r.ok());
        }
    }

    /// Each hole in the task methods fails exactly its row, and nothing else.
    #[test]
    fn each_task_flaw_fails_exactly_its_row() {
        let flaws = [
            (
                TaskFlaws {
                    any_caller: true,
                    ..TaskFlaws::default()
                },
                "task-other-caller",
            ),
            (
                TaskFlaws {
                    retake_answers: true,
                    ..TaskFlaws::default()
                },
                "task-answer-replayed",
            ),
            (
                TaskFlaws {
                    reopen_finished: true,
                    ..TaskFlaws::default()
                },
                "task-finished-input",
            ),
        ];
        for (flaw, failing) in flaws {
            let mut wire = SimWire::new(all_on(), false, 7).with_task_flaws(flaw);
            let opts = Options {
                tool: None,
                expect_single_use: true,
                ttl_wait_s: Some(wire.ttl_s() + 1),
                ..Options::default()
            };
            let r = audit(&mut wire, &opts, &mut |_| {}).unwrap();
            for row in &r.rows {
                let want = if row.row.id == failing {
                    Status::Fail
                } else {
                    Status::Pass
                };
                assert_eq!(
                    row.status, want,
                    "{flaw:?}, row {}: {}",
                    row.row.id, row.evidence
                );
            }
            assert!(!r.ok());
        }
    }

    #[test]
    fn a_naive_ask_again_fails_only_the_laundering_and_renewal_rows() {
        // Asking again mints as if the call were new: a spent ticket comes back fresh, and
        // an answer of the wrong kind buys a new deadline.
        let r = run(all_on(), true);
        for row in &r.rows {
            let want = if matches!(row.row.id, "launder" | "renewal") {
                Status::Fail
            } else {
                Status::Pass
            };
            assert_eq!(row.status, want, "{}: {}", row.row.id, row.evidence);
        }
    }

    #[test]
    fn a_restart_that_forgets_when_its_memory_began_fails_only_the_memory_loss_row() {
        let mut wire = SimWire::new(all_on(), false, 7);
        wire.restart_without_epoch = true;
        let opts = Options {
            tool: None,
            expect_single_use: true,
            ttl_wait_s: Some(wire.ttl_s() + 1),
            ..Options::default()
        };
        let r = audit(&mut wire, &opts, &mut |_| {}).unwrap();
        for row in &r.rows {
            let want = if row.row.id == "memory-loss" {
                Status::Fail
            } else {
                Status::Pass
            };
            assert_eq!(row.status, want, "{}: {}", row.row.id, row.evidence);
        }
        let row = r.rows.iter().find(|r| r.row.id == "memory-loss").unwrap();
        assert_eq!(
            row.evidence,
            "sent the spent retry again (new id) after the server restarted; got a complete result (the work was done)"
        );
    }

    /// The lab's replica, but a retry declaring no capabilities completes without a question.
    struct Completes(SimWire);

    impl Wire for Completes {
        fn send(&mut self, msg: &Value, who: Who) -> Result<Exchange, String> {
            let caps = msg.pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities");
            if caps == Some(&json!({})) {
                let id = msg["id"].clone();
                return Ok(Exchange {
                    status: Some(200),
                    body: json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "content": []}}),
                });
            }
            self.0.send(msg, who)
        }
        fn race(&mut self, msgs: &[Value], who: Who) -> Option<Result<Vec<Exchange>, String>> {
            self.0.race(msgs, who)
        }
        fn wait_ms(&mut self, ms: u64) {
            self.0.wait_ms(ms)
        }
        fn ms_into_second(&self) -> u64 {
            self.0.ms_into_second()
        }
        fn oversize_body(&mut self, bytes: usize) -> Option<Result<Exchange, String>> {
            self.0.oversize_body(bytes)
        }
        fn callers(&self) -> crate::Callers {
            self.0.callers()
        }
        fn restart(&mut self) -> Option<Result<(), String>> {
            self.0.restart()
        }
    }

    #[test]
    fn capability_gating_passes_only_when_the_rule_was_exercised() {
        let mut wire = Completes(SimWire::new(all_on(), false, 7));
        let r = audit(&mut wire, &Options::default(), &mut |_| {}).unwrap();
        let row = r
            .rows
            .iter()
            .find(|r| r.row.id == "capability-gating")
            .unwrap();
        assert_eq!(row.status, Status::Skipped, "{}", row.evidence);
        assert!(
            row.evidence.ends_with("the rule was not exercised"),
            "{}",
            row.evidence
        );
        // The lab's own server says -32021: exercised, and passed.
        let r = run(all_on(), false);
        let row = r
            .rows
            .iter()
            .find(|r| r.row.id == "capability-gating")
            .unwrap();
        assert_eq!(row.status, Status::Pass, "{}", row.evidence);
        assert!(row.evidence.contains("-32021"), "{}", row.evidence);
    }

    #[test]
    fn the_report_is_the_documented_json() {
        let r = run(all_on(), false);
        let j = r.to_json("sim://replica");
        assert_eq!(j["schema"], "mrtr-audit/1");
        assert_eq!(j["rows"].as_array().unwrap().len(), ROWS.len());
        assert_eq!(j["verdict"]["ok"], true);
        let row = &j["rows"][2];
        for key in [
            "id", "group", "title", "level", "required", "guard", "why", "status", "evidence",
            "requests", "shows",
        ] {
            assert!(!row[key].is_null(), "{key}");
        }
        assert_eq!(j["requests"], r.requests);
        // Bounded by the budget the audit prints before it starts.
        assert!(r.requests <= super::super::max_requests(), "{}", r.requests);
        for row in &r.rows {
            assert!(
                row.requests <= super::super::row_budget(row.row.id),
                "{}",
                row.row.id
            );
        }
    }
}
