//! The quiz: questions as data (one list), answers checked and progress kept as plain values.

use std::collections::BTreeMap;

use serde_json::{json, Value};

pub struct Question {
    pub id: &'static str,
    pub prompt: &'static str,
    /// Options and whether each is correct.
    pub options: &'static [(&'static str, bool)],
    /// Several options may be right; the reader picks all that apply.
    pub multi: bool,
    pub explanation: &'static str,
    /// The fragment of the widget state that shows it.
    pub link: &'static str,
}

pub const QUESTIONS: &[Question] = &[
    Question {
        id: "integrity",
        prompt: "Why does a server have to protect the integrity of requestState?",
        options: &[
            ("Because tickets take a lot of bytes", false),
            ("Because the client hands it back, so whoever holds it can change it", true),
            ("Because every string in MCP has to carry a signature", false),
        ],
        multi: false,
        explanation: "The server resumes from what the ticket says. Left unprotected, one edit (staging to prod) and the server carries out the edited work.",
        link: "w=roundtrip&end=tampered&step=5",
    },
    Question {
        id: "methods",
        prompt: "Which request can never be answered with input_required?",
        options: &[("tools/call", false), ("resources/read", false), ("tools/list", true)],
        multi: false,
        explanation: "input_required belongs to three methods only: tools/call, prompts/get and resources/read. A listing always answers at once.",
        link: "w=rules&method=tools/list",
    },
    Question {
        id: "stolen",
        prompt: "alice gets hold of bob's ticket, still fresh and correctly signed, and sends it. What refuses her?",
        options: &[
            ("Nothing, since the signature checks out", false),
            ("The ticket names its principal, and alice's token says alice", true),
            ("The server keeps a record that this ticket is bob's", false),
        ],
        multi: false,
        explanation: "No server remembers anything. The binding to bob travels inside the signed ticket; the caller's identity comes from alice's own token, so the principal check fails.",
        link: "w=misuse&move=alice",
    },
    Question {
        id: "twice",
        prompt: "Within the ticket's lifetime, bob fires the same good retry two times at a server that checks signature, principal, expiry and request. Result?",
        options: &[
            ("The second is refused at the signature", false),
            ("Both are accepted: refusing a repeat takes a server-side memory", true),
            ("The second is refused as expired", false),
        ],
        multi: false,
        explanation: "Using a ticket leaves no mark on it. To refuse a repeat, the server has to note each redeemed ticket until it expires.",
        link: "w=misuse&move=twice",
    },
    Question {
        id: "client",
        prompt: "Which use of requestState is allowed to a client?",
        options: &[
            ("Peek inside to tell the user what the server is waiting for", false),
            ("Return it untouched with the retry, and nothing more", true),
            ("Combine it with the ticket from an earlier round", false),
        ],
        multi: false,
        explanation: "The client returns it byte for byte and never looks inside: it belongs to the server, readable or not.",
        link: "w=roundtrip&step=3",
    },
    Question {
        id: "replica",
        prompt: "Replica B has never seen bob's deploy. What does it need to check the ticket replica A minted?",
        options: &[
            ("A copy of A's memory", false),
            ("The key A signed it with", true),
            ("bob's session id", false),
        ],
        multi: false,
        explanation: "Everything else is in the ticket. A replica with another key refuses even an honest ticket, at the signature.",
        link: "w=ticket&bkey=other",
    },
    Question {
        id: "noanswer",
        prompt: "A retry carries a valid ticket but not the answer. What does the server do?",
        options: &[
            ("Refuses it with -32602", false),
            ("Asks the question again with input_required", true),
            ("Completes with a default answer", false),
        ],
        multi: false,
        explanation: "A missing answer is not an attack: the server asks again. The ticket is not used up, but a single-use server first looks it up, so a spent one is refused rather than traded for a fresh question.",
        link: "w=misuse&move=noanswer",
    },
    Question {
        id: "signature",
        prompt: "Which of these does the signature check stop? Pick all that apply.",
        options: &[
            ("A ticket edited from staging to prod", true),
            ("A ticket forged with a key the attacker made up", true),
            ("bob's untouched ticket, stolen by alice", false),
            ("bob's untouched ticket, sent five minutes late", false),
        ],
        multi: true,
        explanation: "A signature only proves the ticket is unchanged and was made with the servers' key. Theft and lateness need the principal and expiry checks.",
        link: "w=misuse&move=forge",
    },
    Question {
        id: "aead",
        prompt: "When do you need authenticated encryption (AEAD) rather than a signature (HMAC)?",
        options: &[
            ("Whenever the ticket influences business logic", false),
            ("When its contents must stay hidden from the client too", true),
            ("When tickets cross replicas", false),
        ],
        multi: false,
        explanation: "Signed is not secret: base64 is not encryption. Both stop edits; only sealing stops reading.",
        link: "w=ticket&seal=aead",
    },
    Question {
        id: "retry",
        prompt: "Which are true of the retry? Pick all that apply.",
        options: &[
            ("It uses a new JSON-RPC id", true),
            ("It carries the ticket byte for byte", true),
            ("It carries the answers under the same keys as the questions", true),
            ("It can drop _meta, since the server remembers the first request", false),
        ],
        multi: true,
        explanation: "The retry is a new, self-contained request: same method and arguments, full envelope again, a new id, the answers and the ticket.",
        link: "w=roundtrip&step=3",
    },
    Question {
        id: "legacy",
        prompt: "A 2025-11-25 client calls deploy over stateless HTTP. What happens?",
        options: &[
            ("The shim asks through a server-to-client elicitation/create", false),
            ("It ends with a clear failure: nothing can carry the question", true),
            ("The server deploys without asking", false),
        ],
        multi: false,
        explanation: "The shim needs a transport that carries server-to-client requests (stdio or sessionful HTTP). Without one, it says so instead of guessing.",
        link: "w=raw&lane=stateless",
    },
    Question {
        id: "memory",
        prompt: "Single use is on, but each replica remembers only its own redemptions. bob's repeat lands on the other replica. What happens?",
        options: &[
            ("It is refused: the ticket is single use", false),
            ("It is accepted: that replica never saw the first redemption", true),
        ],
        multi: false,
        explanation: "Single use is only as good as the memory behind it: replicas must share it.",
        link: "w=timeline&single=1&store=replica",
    },
];

/// Set equality between the selection and the correct options.
pub fn is_correct(q: &Question, selected: &[usize]) -> bool {
    let mut s: Vec<usize> = selected.to_vec();
    s.sort_unstable();
    s.dedup();
    let right: Vec<usize> = q
        .options
        .iter()
        .enumerate()
        .filter(|(_, o)| o.1)
        .map(|(i, _)| i)
        .collect();
    s == right
}

/// What the reader has answered, by question id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    pub answers: BTreeMap<String, Vec<usize>>,
}

pub const STORAGE_KEY: &str = "mrtr-lab.quiz.v1";

impl Progress {
    pub fn to_json(&self) -> String {
        json!({"answers": self.answers}).to_string()
    }

    /// Reads stored progress. Whatever is not a known question with valid options is dropped.
    pub fn from_json(text: &str) -> Progress {
        let mut p = Progress::default();
        let Ok(v) = serde_json::from_str::<Value>(text) else {
            return p;
        };
        let Some(answers) = v.get("answers").and_then(Value::as_object) else {
            return p;
        };
        for q in QUESTIONS {
            if let Some(list) = answers.get(q.id).and_then(Value::as_array) {
                let picks: Vec<usize> = list
                    .iter()
                    .filter_map(Value::as_u64)
                    .map(|i| i as usize)
                    .filter(|i| *i < q.options.len())
                    .collect();
                if !picks.is_empty() && (q.multi || picks.len() == 1) {
                    p.answers.insert(q.id.to_owned(), picks);
                }
            }
        }
        p
    }

    /// (answered correctly, answered, total)
    pub fn score(&self) -> (usize, usize, usize) {
        let answered = QUESTIONS
            .iter()
            .filter(|q| self.answers.contains_key(q.id))
            .count();
        let right = QUESTIONS
            .iter()
            .filter(|q| self.answers.get(q.id).is_some_and(|a| is_correct(q, a)))
            .count();
        (right, answered, QUESTIONS.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::link::Link;

    #[test]
    fn the_quiz_is_well_formed() {
        assert!(QUESTIONS.len() >= 10);
        let mut ids: Vec<&str> = QUESTIONS.iter().map(|q| q.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), QUESTIONS.len(), "ids are unique");
        for q in QUESTIONS {
            let right = q.options.iter().filter(|o| o.1).count();
            if q.multi {
                assert!(right >= 1, "{}", q.id);
            } else {
                assert_eq!(right, 1, "{}: one correct option", q.id);
            }
            let (_, notes) = Link::parse(q.link);
            assert!(notes.is_empty(), "{}: {notes:?}", q.id);
            assert!(!q.explanation.is_empty());
        }
        assert!(QUESTIONS.iter().any(|q| q.multi));
    }

    #[test]
    fn answers_are_checked_as_sets() {
        let q = QUESTIONS.iter().find(|q| q.id == "signature").unwrap();
        assert!(is_correct(q, &[1, 0]));
        assert!(!is_correct(q, &[0]));
        assert!(!is_correct(q, &[0, 1, 2]));
    }

    #[test]
    fn progress_round_trips_and_distrusts_storage() {
        let mut p = Progress::default();
        p.answers.insert("integrity".into(), vec![1]);
        p.answers.insert("methods".into(), vec![0]);
        assert_eq!(Progress::from_json(&p.to_json()), p);
        assert_eq!(p.score(), (1, 2, QUESTIONS.len()));
        for junk in [
            "",
            "null",
            "{\"answers\":[]}",
            "{\"answers\":{\"integrity\":[99],\"nope\":[1],\"methods\":[0,1]}}",
            "{{{",
        ] {
            assert_eq!(Progress::from_json(junk).answers.len(), 0, "{junk}");
        }
    }
}
