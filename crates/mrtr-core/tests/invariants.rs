//! The single-use and lifetime guarantees, proved over generated histories rather than the
//! cases someone thought of: arbitrary sequences of first calls, honest retries and free
//! retries (any ticket seen so far or an edit of it, any answers, any of three tokens or
//! none, any arguments) against two replicas sharing one memory, with the clock moving
//! forward by arbitrary steps, the memory of redemptions lost and begun again, copies of one
//! retry racing, single use on and off; flows that run as tasks, polled, answered and
//! cancelled by their owner or by others. Every handler counts its completed work, as a side
//! effect would be counted. The invariants are in `history/`,
//! shared with the fuzz target `fuzz/fuzz_targets/histories.rs`.
//!
//! Failing cases proptest finds are kept in `tests/invariants.proptest-regressions` and
//! replayed first on every run.

mod history;

use history::{History, Op};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(replica, request, token)| Op::Call { replica, request, token }),
        6 => (any::<u8>(), any::<u16>(), any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>()).prop_map(
            |(replica, ticket, edit, answers, token, args)| Op::Retry { replica, ticket, edit, answers, token, args }
        ),
        4 => (any::<u8>(), any::<u16>()).prop_map(|(replica, ticket)| Op::Honest { replica, ticket }),
        3 => (0u16..45).prop_map(|seconds| Op::Advance { seconds }),
        1 => Just(Op::ForgetMemory),
        2 => (any::<u8>(), any::<u16>()).prop_map(|(replica, ticket)| Op::Race { replica, ticket }),
        4 => (any::<u8>(), any::<u16>(), any::<u8>()).prop_map(|(replica, task, who)| Op::Poll { replica, task, who }),
        3 => (any::<u8>(), any::<u16>(), any::<u8>()).prop_map(|(replica, task, choice)| Op::Answer { replica, task, choice }),
        1 => (any::<u8>(), any::<u16>(), any::<u8>()).prop_map(|(replica, task, who)| Op::Cancel { replica, task, who }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 384,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/invariants.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_history_keeps_the_guarantees(
        single_use in any::<bool>(),
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..40),
    ) {
        let mut h = History::new(single_use, seed);
        if let Err(e) = h.run(&ops) {
            return Err(TestCaseError::fail(e));
        }
    }
}

/// The attacks of issue #23, as fixed histories: each must hold on every build.
#[test]
fn a_wrong_kind_answer_neither_renews_nor_spends() {
    for single_use in [false, true] {
        let mut h = History::new(single_use, 7);
        let ops = [
            Op::Call {
                replica: 0,
                request: 0,
                token: 0,
            },
            Op::Advance { seconds: 12 },
            // bob's ticket back with a sampling-shaped answer: asked again, on the same deadline.
            Op::Retry {
                replica: 0,
                ticket: 0,
                edit: 0,
                answers: 2,
                token: 0,
                args: 0,
            },
            Op::Advance { seconds: 10 },
            // Still inside the first ticket's life: every ticket of the flow completes honestly.
            Op::Honest {
                replica: 1,
                ticket: 1,
            },
            Op::Advance { seconds: 10 },
            // Past the first ticket's expiry: the re-asked ticket must not deploy.
            Op::Honest {
                replica: 0,
                ticket: 1,
            },
            Op::Honest {
                replica: 1,
                ticket: 0,
            },
        ];
        h.run(&ops)
            .unwrap_or_else(|e| panic!("single use {single_use}: {e}"));
    }
}

/// Issue #40, item 2, as a fixed history: a copy of the retry arrives at the other replica
/// while the first copy's handler runs. Each step checks that no handler's work went
/// unanswered; with single use the flow completes once, so the deploy ran once.
#[test]
fn a_racing_copy_of_a_retry_does_the_work_once() {
    for single_use in [false, true] {
        let mut h = History::new(single_use, 11);
        let ops = [
            Op::Call {
                replica: 0,
                request: 0,
                token: 0,
            },
            Op::Advance { seconds: 3 },
            Op::Race {
                replica: 0,
                ticket: 0,
            },
            Op::Race {
                replica: 1,
                ticket: 0,
            },
        ];
        h.run(&ops)
            .unwrap_or_else(|e| panic!("single use {single_use}: {e}"));
        let raced: Vec<&String> = h.log.iter().filter(|l| l.starts_with("race")).collect();
        if single_use {
            assert!(
                raced[0].contains("-> complete; meanwhile on B -> error -32602"),
                "{raced:?}"
            );
            assert!(raced[1].contains("not sent"), "{raced:?}");
        } else {
            assert!(
                raced[0].ends_with("complete; meanwhile on B -> complete"),
                "{raced:?}"
            );
        }
    }
}

/// Issue #38 as a fixed history: bob's task is polled, answered by a thief, answered by bob,
/// answered again, cancelled by the thief and by bob, on both replicas; and a flow whose
/// MRTR round ends in a task, raced, starts one task with single use.
#[test]
fn a_task_is_answered_by_its_owner_once_and_by_nobody_else() {
    for single_use in [false, true] {
        let mut h = History::new(single_use, 5);
        let ops = [
            // bob calls confirm_delete (request 8): a task waiting for his go-ahead.
            Op::Call {
                replica: 0,
                request: 8,
                token: 0,
            },
            Op::Poll {
                replica: 1,
                task: 0,
                who: 0,
            },
            Op::Answer {
                replica: 1,
                task: 0,
                choice: 3,
            },
            Op::Answer {
                replica: 0,
                task: 0,
                choice: 0,
            },
            Op::Answer {
                replica: 1,
                task: 0,
                choice: 1,
            },
            Op::Cancel {
                replica: 0,
                task: 0,
                who: 1,
            },
            Op::Poll {
                replica: 0,
                task: 0,
                who: 0,
            },
            // test_tool_with_task (request 11): an MRTR round, then copies of the retry race.
            Op::Call {
                replica: 0,
                request: 11,
                token: 0,
            },
            Op::Race {
                replica: 1,
                ticket: 0,
            },
            Op::Advance { seconds: 2 },
            Op::Poll {
                replica: 0,
                task: 1,
                who: 0,
            },
        ];
        h.run(&ops)
            .unwrap_or_else(|e| panic!("single use {single_use}: {e}"));
        let log = h.log.join("\n");
        assert!(
            log.contains("poll task #0 as Some(\"bob\") on A -> completed"),
            "{log}"
        );
        assert!(log.contains("answer task #0 with a thief's answers as Some(\"alice\") on B -> error -32602 Task not found"), "{log}");
        let race = h.log.iter().find(|l| l.starts_with("race")).unwrap();
        if single_use {
            assert!(
                race.contains("-> task; meanwhile on A -> error -32602"),
                "{race}"
            );
        } else {
            assert!(race.contains("-> task; meanwhile on A -> task"), "{race}");
        }
    }
}
