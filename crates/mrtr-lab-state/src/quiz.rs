//! The quiz: questions as data (one list), answers checked and progress kept as plain values.

use std::collections::BTreeMap;

use serde_json::{json, Value};

/// One option: its text, whether it is right, and why (said when the reader picks a wrong
/// one, or misses a right one).
pub type Choice = (&'static str, bool, &'static str);

/// One question of the quiz.
pub struct Question {
    /// The question's id, under which its answer is kept.
    pub id: &'static str,
    /// The question, as asked.
    pub prompt: &'static str,
    /// Lines of code the question asks the reader to read, shown under the prompt.
    pub code: Option<&'static str>,
    /// Options in the order written; the page shows them in [`shown_order`].
    pub options: &'static [Choice],
    /// Several options may be right; the reader picks all that apply.
    pub multi: bool,
    /// The explanation the feedback gives, right or wrong, before its link to the lab.
    pub explanation: &'static str,
    /// The fragment of the widget state that shows it.
    pub link: &'static str,
}

/// Every question, in the quiz's order.
pub const QUESTIONS: &[Question] = &[
    Question {
        id: "integrity",
        prompt: "Why does a server have to protect the integrity of requestState?",
        code: None,
        options: &[
            ("Because the client hands it back, so whoever holds it can change it", true, ""),
            ("Because tickets are long, and long strings get corrupted on their way between client and server", false, "Transports already protect bytes in transit; the danger is a deliberate edit by whoever holds the ticket."),
            ("Because the spec wants every field of an MCP message signed", false, "Only requestState needs protecting: it is the one field the server trusts to resume its own work."),
        ],
        multi: false,
        explanation: "The server resumes from what the ticket says. Left unprotected, one edit (staging to prod) and the server carries out the edited work.",
        link: "w=roundtrip&end=tampered&step=5",
    },
    Question {
        id: "methods",
        prompt: "Which request can never be answered with input_required?",
        code: None,
        options: &[
            ("tools/call", false, "A tool call is the classic case: deploy asks for a confirmation."),
            ("resources/read", false, "Reading a resource may need input too; it is one of the three methods that can ask."),
            ("tools/list", true, ""),
        ],
        multi: false,
        explanation: "input_required belongs to three methods only: tools/call, prompts/get and resources/read. A listing always answers at once.",
        link: "w=rules&method=tools/list",
    },
    Question {
        id: "stolen",
        prompt: "alice gets hold of bob's ticket, still fresh and correctly signed, and sends it. What refuses her?",
        code: None,
        options: &[
            ("Nothing, since the signature checks out", false, "The signature only says the ticket is unchanged. Who may use it is a separate check."),
            ("The ticket names its principal, and alice's token says alice", true, ""),
            ("The server keeps a record that this ticket is bob's", false, "No replica keeps anything between the calls; that is the point of the ticket."),
        ],
        multi: false,
        explanation: "No server remembers anything. The binding to bob travels inside the signed ticket; the caller's identity comes from alice's own token, so the principal check fails.",
        link: "w=bench&move=alice&predict=0",
    },
    Question {
        id: "twice",
        prompt: "Within the ticket's lifetime, bob sends the same good retry two times to a server that checks signature, principal, expiry and request. Result?",
        code: None,
        options: &[
            ("The second is refused at the signature", false, "The ticket is byte for byte the one the server signed: its signature is as good the second time."),
            ("The second is refused as expired", false, "Both arrive within the lifetime, so the expiry check passes both."),
            ("The second is refused because the ticket is used up after the first deploy", false, "Nothing marks a ticket as used: the second time it is the same bytes, as good as the first. Only a server that remembers what it redeemed refuses a repeat, and these checks remember nothing."),
            ("Both deploy: only a memory of redeemed tickets refuses a repeat", true, ""),
        ],
        multi: false,
        explanation: "Using a ticket leaves no mark on it. To refuse a repeat, the server has to note each redeemed ticket until it expires.",
        link: "w=bench&move=twice&predict=0",
    },
    Question {
        id: "client",
        prompt: "Which use of requestState is allowed to a client?",
        code: None,
        options: &[
            ("Peek inside to tell the user what the server is waiting for", false, "What the server waits for is in inputRequests. The ticket is the server's; its contents may change or be sealed at any time."),
            ("Return it untouched with the retry, and nothing more", true, ""),
            ("Combine it with the ticket from an earlier round", false, "Each round's ticket replaces the last; the client sends back only the newest, unchanged."),
        ],
        multi: false,
        explanation: "The client returns it byte for byte and never looks inside: it belongs to the server, readable or not.",
        link: "w=roundtrip&step=3",
    },
    Question {
        id: "replica",
        prompt: "Replica B has never seen bob's deploy. What does it need to check the ticket replica A minted?",
        code: None,
        options: &[
            ("A copy of A's memory", false, "A kept nothing: it forgot the deploy the moment it answered."),
            ("bob's session id, to look up where his deploy stands", false, "There is no session: each call stands on its own, the deploy's progress is in the ticket, and bob's token comes with the retry."),
            ("The key A signed it with", true, ""),
        ],
        multi: false,
        explanation: "Everything else is in the ticket. A replica with another key refuses even an honest ticket, at the signature.",
        link: "w=ticket&bkey=other",
    },
    Question {
        id: "noanswer",
        prompt: "A retry carries a valid ticket but not the answer. What does the server do?",
        code: None,
        options: &[
            ("Refuses it with -32602: a retry without its answer is malformed", false, "Nothing is wrong with the ticket or the request; a missing answer is not an attack, just a question not yet answered."),
            ("Asks the question again with input_required", true, ""),
            ("Completes with a default answer", false, "The server needs bob's yes before deploying; it never assumes one."),
        ],
        multi: false,
        explanation: "A missing answer is not an attack: the server asks again. The ticket is not used up, but a single-use server first looks it up, so a spent one is refused rather than traded for a fresh question.",
        link: "w=bench&move=noanswer&predict=0",
    },
    Question {
        id: "signature",
        prompt: "Which of these does the signature check stop? Pick all that apply.",
        code: None,
        options: &[
            ("A ticket edited from staging to prod", true, "An edit changes the bytes the signature covers."),
            ("bob's untouched ticket, stolen by alice", false, "Stolen is not changed: the signature still matches. The principal check stops her."),
            ("A ticket forged with a key the attacker made up", true, "The server checks with its own key, which the forger does not have."),
            ("bob's untouched ticket, sent five minutes late", false, "Late is not changed: the signature still matches. The expiry check stops it."),
        ],
        multi: true,
        explanation: "A signature only proves the ticket is unchanged and was made with the servers' key. Theft and lateness need the principal and expiry checks.",
        link: "w=bench&move=forge&predict=0",
    },
    Question {
        id: "request",
        prompt: "bob's ticket was minted for deploy to staging. His client retries with the ticket but the arguments say prod. What refuses it?",
        code: None,
        options: &[
            ("The signature check, since the request no longer matches what was signed", false, "The signature covers the ticket, not the request around it. The ticket is unchanged, so its signature matches; only the arguments beside it changed."),
            ("The request check: the ticket holds a digest of its arguments", true, ""),
            ("Nothing: the server deploys to whatever the ticket says", false, "The lab's server refuses before the handler runs. A server without the request check would indeed carry on, which is why the check exists."),
        ],
        multi: false,
        explanation: "The ticket holds a digest of the arguments it was minted for. The server computes it again from the retry's arguments and compares: a ticket minted for one request cannot finish another.",
        link: "w=bench&move=prod&predict=0",
    },
    Question {
        id: "expiry",
        prompt: "What is a ticket's expiry for?",
        code: None,
        options: &[
            ("To free the memory the server keeps for each pending request", false, "The server holds nothing for a pending request: its work is in the ticket, so there is no memory to free."),
            ("To bound how long a leaked or forgotten ticket is worth anything", true, ""),
            ("To make the user answer quickly", false, "A person may take their time; a ticket that runs out just means starting over."),
        ],
        multi: false,
        explanation: "A ticket may end up in logs or the wrong hands. With an expiry, it is worthless after a short while, and a single-use memory only has to remember it that long.",
        link: "w=bench&move=wait&predict=0",
    },
    Question {
        id: "capability",
        prompt: "A client's request declares no capabilities. The deploy tool wants a confirmation. What may the server do?",
        code: None,
        options: &[
            ("Ask anyway: a client that cannot show a form will just ignore the question", false, "It may only ask for kinds of input the request declares; asking anyway is against the rules, and a client that cannot answer leaves the call unfinished."),
            ("Answer with an error (-32021) saying what it would need", true, ""),
            ("Remember the call until a capable client turns up", false, "There is no memory between calls, and no way to hand a call to another client."),
        ],
        multi: false,
        explanation: "Capabilities travel in every request's envelope. A server must not ask for a kind of input the request did not declare; the lab's server refuses with -32021 and names what it needs.",
        link: "w=rules&method=tools/call&caps=",
    },
    Question {
        id: "rawline",
        prompt: "In Run it raw you read: <-- {\"id\":2,\"result\":{\"resultType\":\"input_required\",…}}. What is it?",
        code: None,
        options: &[
            ("The server's answer to request 2: it needs input before it can finish", true, ""),
            ("A request from the server to the client", false, "<-- means server to client, but it carries a result, so it answers the client's request 2; a request would carry a method."),
            ("An error: the call failed", false, "An error would carry \"error\". Asking for input is a result."),
        ],
        multi: false,
        explanation: "--> lines go from client to server, <-- lines back. A line with \"result\" answers the request with the same id; resultType says whether the work is done.",
        link: "w=raw",
    },
    Question {
        id: "aead",
        prompt: "When do you need authenticated encryption (AEAD) rather than a signature (HMAC)?",
        code: None,
        options: &[
            ("Whenever the ticket carries anything the server acts on, like where to deploy", false, "A signature already stops edits: the server acts only on what it signed. What it acts on needs integrity, not secrecy."),
            ("When tickets cross replicas", false, "Signed tickets cross replicas fine: each replica holds the key."),
            ("When its contents must stay hidden from the client too", true, ""),
        ],
        multi: false,
        explanation: "Signed is not secret: base64 is not encryption. Both stop edits; only sealing stops reading.",
        link: "w=ticket&seal=aead",
    },
    Question {
        id: "retry",
        prompt: "Which are true of the retry? Pick all that apply.",
        code: None,
        options: &[
            ("It carries the ticket byte for byte", true, "Any change, even a re-encoding, and the server refuses it."),
            ("It can drop _meta, since the server remembers the first request", false, "The server remembers nothing: the retry carries its full envelope again."),
            ("It uses a new JSON-RPC id", true, "It is a new request, so it gets an id of its own."),
            ("It carries the answers under the same keys as the questions", true, "That is how the server matches each answer to its question."),
        ],
        multi: true,
        explanation: "The retry is a new, self-contained request: same method and arguments, full envelope again, a new id, the answers and the ticket.",
        link: "w=roundtrip&step=3",
    },
    Question {
        id: "legacy",
        prompt: "A 2025-11-25 client calls deploy over stateless HTTP. What happens?",
        code: None,
        options: &[
            ("The shim asks through a server-to-client elicitation/create request", false, "That needs a channel from server to client, which stateless HTTP does not have."),
            ("The server deploys without asking", false, "The server never deploys without bob's yes."),
            ("It ends with a clear failure: nothing can carry the question", true, ""),
        ],
        multi: false,
        explanation: "The shim needs a transport that carries server-to-client requests (stdio or sessionful HTTP). Without one, it says so instead of guessing.",
        link: "w=raw&lane=stateless",
    },
    Question {
        id: "memory",
        prompt: "Single use is on, but each replica remembers only its own redemptions. bob's repeat lands on the other replica. What happens?",
        code: None,
        options: &[
            ("It deploys a second time: that replica never saw the first redemption", true, ""),
            ("It is refused: single use marks the ticket as spent, wherever it goes next", false, "Single use is a memory, not a mark on the ticket, and this replica's memory is empty."),
        ],
        multi: false,
        explanation: "Single use is only as good as the memory behind it: replicas must share it.",
        link: "w=bench&move=twice&single=1&store=replica&predict=0",
    },
    Question {
        id: "task",
        prompt: "bob's deploy runs as a task, and the task asks him to confirm the roll-out. How does his client send his yes?",
        code: None,
        options: &[
            ("It calls tools/call again, with the answer in inputResponses and the ticket in requestState", false, "That is how MRTR answers before a task exists. Once the call has become a task, there is no ticket to send back: the task's state stays with the servers."),
            ("It sends tasks/update with the task id and the answer in inputResponses, under the question's key", true, ""),
            ("It sends tasks/get with the answer", false, "tasks/get only reads the task; it never changes it."),
        ],
        multi: false,
        explanation: "A task's questions are read with tasks/get and answered with tasks/update, in the same inputResponses shape as MRTR but with no requestState. An answer under a key that is not open (one sent again, one sent before the question) is ignored.",
        link: "w=task&tsteps=w20.p.y",
    },
    Question {
        id: "renewal",
        prompt: "This is the deploy handler of the TypeScript SDK's example server (interop/ts_server.mjs). state is the payload of the ticket the retry carried, verified by the SDK; ok is bob's answer, when it is a form answer with confirm in it. A retry carries a valid ticket, but its answer is a sampling result instead of a form. What does it get back?",
        code: Some(RENEWAL_CODE),
        options: &[
            ("The deploy: the ticket is valid, and that is all the SDK checks", false, "The handler wants ok?.confirm === true as well. A sampling result is no form answer, so ok is undefined and the handler asks again."),
            ("An error: the SDK refuses an answer of the wrong kind before the handler runs", false, "The SDK hands the retry to the handler. acceptedContent just finds no form answer under confirm, so the handler takes the branch that asks."),
            ("The question again, carrying back the ticket it came with, its deadline unchanged", false, "The handler returns whatever codec.mint makes, and mint makes a new ticket each time it is called, with a new expiry."),
            ("The question again, and a new ticket that expires ttlSeconds from now", true, ""),
        ],
        multi: false,
        explanation: "Each time the handler asks, codec.mint stamps a fresh expiry. A client holding a ticket near its end can answer with the wrong kind of result and get one that lives a whole lifetime more, again and again: mrtr-audit's renewal row, which this example fails. The lab's server keeps the first ticket's id and deadline when it asks again.",
        link: "w=bench&move=renew&naive=1&predict=0",
    },
];

/// The lines of interop/ts_server.mjs the renewal question shows, as written there, but
/// for the question itself, shortened to a comment (a test holds the rest to the file).
pub const RENEWAL_CODE: &str = "if (!state || ok?.confirm !== true) {
  return inputRequired({
    inputRequests: { confirm: /* the question */ },
    requestState: await codec.mint({ env }),
  });
}";

/// The order the page shows a question's options in: shuffled, the same way on every visit
/// (seeded by the question's id), so no position gives the answer away and a link or a test
/// always meets the same page.
pub fn shown_order(q: &Question) -> Vec<usize> {
    // FNV-1a of the id, then a xorshift for the Fisher-Yates swaps.
    let mut x = q.id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    }) | 1;
    let mut order: Vec<usize> = (0..q.options.len()).collect();
    for i in (1..order.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    order
}

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

/// What to tell the reader about an answer: how many right options they found, and why each
/// wrong pick is wrong (and, on a pick-all question, why each missed one is right).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Feedback {
    /// True when the picks are exactly the right options.
    pub correct: bool,
    /// Right options picked, of all right options.
    pub found: (usize, usize),
    /// The option's text and why it is wrong.
    pub wrong: Vec<(&'static str, &'static str)>,
    /// Right options not picked, and why they are right (pick-all questions).
    pub missed: Vec<(&'static str, &'static str)>,
}

/// What to tell the reader about picking `selected` (option numbers in the order written).
pub fn feedback(q: &Question, selected: &[usize]) -> Feedback {
    let picked = |i: usize| selected.contains(&i);
    let right = q.options.iter().filter(|o| o.1).count();
    let found = q
        .options
        .iter()
        .enumerate()
        .filter(|(i, o)| o.1 && picked(*i))
        .count();
    Feedback {
        correct: is_correct(q, selected),
        found: (found, right),
        wrong: q
            .options
            .iter()
            .enumerate()
            .filter(|(i, o)| !o.1 && picked(*i))
            .map(|(_, o)| (o.0, o.2))
            .collect(),
        missed: if q.multi {
            q.options
                .iter()
                .enumerate()
                .filter(|(i, o)| o.1 && !picked(*i))
                .map(|(_, o)| (o.0, o.2))
                .collect()
        } else {
            Vec::new()
        },
    }
}

/// The options ticked in one question but not yet checked. A draft belongs to the saved
/// answer it was ticked against and to the quiz's round (a reset starts a new round), so a
/// reset — here or in another tab — or a check shows the saved answer again without an
/// effect clearing anything: a draft that no longer matches is simply not shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Draft {
    round: u32,
    against: Option<Vec<usize>>,
    picked: Vec<usize>,
}

impl Draft {
    /// The options to show ticked: the draft while it still belongs to `saved` in `round`,
    /// else the saved answer (nothing when there is none).
    pub fn shown(&self, round: u32, saved: Option<&Vec<usize>>) -> Vec<usize> {
        if self.round == round && self.against.as_ref() == saved {
            self.picked.clone()
        } else {
            saved.cloned().unwrap_or_default()
        }
    }

    /// The draft after option `i` is ticked (`on`) or unticked, starting from what is shown;
    /// a single-choice question keeps one option.
    pub fn tick(
        &self,
        round: u32,
        saved: Option<&Vec<usize>>,
        multi: bool,
        i: usize,
        on: bool,
    ) -> Draft {
        let mut picked = self.shown(round, saved);
        if !multi {
            picked.clear();
        }
        picked.retain(|x| *x != i);
        if on {
            picked.push(i);
        }
        Draft {
            round,
            against: saved.cloned(),
            picked,
        }
    }
}

/// What the reader has answered, by question id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Each answered question's picked options (their numbers in the order written), by id.
    pub answers: BTreeMap<String, Vec<usize>>,
}

/// v3: the options changed (answers are kept as option numbers), so answers kept under an
/// older key are not read as answers to these.
pub const STORAGE_KEY: &str = "mrtr-lab.quiz.v3";

/// How progress is kept in the browser's storage: [`Progress::to_json`]; whatever cannot be
/// read back is dropped ([`Progress::from_json`]), so a stale or edited entry never fails.
pub struct ProgressCodec;

impl codee::Encoder<Progress> for ProgressCodec {
    type Error = ();
    type Encoded = String;
    fn encode(p: &Progress) -> Result<String, ()> {
        Ok(p.to_json())
    }
}

impl codee::Decoder<Progress> for ProgressCodec {
    type Error = ();
    type Encoded = str;
    fn decode(s: &str) -> Result<Progress, ()> {
        Ok(Progress::from_json(s))
    }
}

impl Progress {
    /// The progress as the JSON kept in the browser's storage.
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
    #[test]
    fn a_draft_shows_until_a_check_or_a_reset_leaves_it_behind() {
        let d = Draft::default()
            .tick(0, None, true, 2, true)
            .tick(0, None, true, 0, true);
        assert_eq!(d.shown(0, None), vec![2, 0]);
        // Checked: the saved answer is shown (the draft was ticked against "nothing saved").
        let saved = vec![2, 0];
        assert_eq!(d.shown(0, Some(&saved)), saved);
        // Reset in this tab (a new round) or in another (the saved answer gone): nothing ticked.
        assert_eq!(d.shown(1, None), Vec::<usize>::new());
        let after_check = d.tick(0, Some(&saved), true, 1, true);
        assert_eq!(after_check.shown(0, Some(&saved)), vec![2, 0, 1]);
        assert_eq!(after_check.shown(0, None), Vec::<usize>::new());
    }

    #[test]
    fn a_single_choice_draft_keeps_one_option() {
        let d = Draft::default()
            .tick(0, None, false, 1, true)
            .tick(0, None, false, 3, true);
        assert_eq!(d.shown(0, None), vec![3]);
        assert_eq!(
            d.tick(0, None, false, 3, false).shown(0, None),
            Vec::<usize>::new()
        );
    }

    use super::*;
    use crate::link::Link;

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
            // Every wrong option says why it is wrong; on pick-all questions every right
            // one says why it is right.
            for (text, right, why) in q.options {
                if !right || q.multi {
                    assert!(!why.is_empty(), "{}: {text}", q.id);
                }
            }
            let mut order = shown_order(q);
            order.sort_unstable();
            assert_eq!(order, (0..q.options.len()).collect::<Vec<_>>(), "{}", q.id);
        }
        assert!(QUESTIONS.iter().any(|q| q.multi));
    }

    fn longest_by_chars(q: &Question) -> (usize, usize) {
        let len = |pick: bool| {
            q.options
                .iter()
                .filter(|o| o.1 == pick)
                .map(|o| o.0.chars().count())
                .max()
                .unwrap_or(0)
        };
        (len(true), len(false))
    }

    #[test]
    fn the_longest_option_does_not_give_the_answer_away() {
        let single: Vec<&Question> = QUESTIONS.iter().filter(|q| !q.multi).collect();
        let strictly = single
            .iter()
            .filter(|q| {
                let (right, wrong) = longest_by_chars(q);
                right > wrong
            })
            .count();
        let at_least_tied = single
            .iter()
            .filter(|q| {
                let (right, wrong) = longest_by_chars(q);
                right >= wrong
            })
            .count();
        assert!(
            strictly * 2 <= single.len(),
            "the right option is the longest in {strictly} of {} questions",
            single.len()
        );
        assert!(
            at_least_tied * 2 <= single.len(),
            "the right option is the longest or tied in {at_least_tied} of {} questions",
            single.len()
        );
    }

    #[test]
    fn the_distractors_include_the_misconceptions_they_target() {
        let q = QUESTIONS.iter().find(|q| q.id == "twice").unwrap();
        let used_up = q
            .options
            .iter()
            .find(|o| o.0.contains("refused because the ticket is used up"))
            .expect("the used-up misconception");
        assert!(!used_up.1 && used_up.2.contains("Nothing marks a ticket as used"));
        let m = QUESTIONS.iter().find(|q| q.id == "memory").unwrap();
        assert!(m
            .options
            .iter()
            .any(|o| !o.1 && o.0.contains("marks the ticket")));
    }

    #[test]
    fn the_code_question_quotes_the_sdk_example_as_it_is() {
        let q = QUESTIONS.iter().find(|q| q.id == "renewal").unwrap();
        let code = q.code.unwrap();
        let lines = code.lines().count();
        assert!((4..=6).contains(&lines), "{lines} lines");
        let file = crate::code::TS_SERVER;
        for line in code.lines().filter(|l| !l.contains("/*")) {
            assert!(file.contains(line.trim()), "not in ts_server.mjs: {line}");
        }
        assert!(file.contains("inputRequests: { confirm: inputRequired.elicit("));
        // The right answer is the renewal the audit finds in this example.
        let expected: Value =
            serde_json::from_str(include_str!("../../../interop/audit-expected.json")).unwrap();
        assert_eq!(expected["ts-sdk-example"]["renewal"], "fail");
        let right = q.options.iter().find(|o| o.1).unwrap();
        assert!(right.0.contains("new ticket"));
        assert!(QUESTIONS.iter().filter(|q| q.code.is_some()).count() >= 1);
    }

    #[test]
    fn no_position_gives_the_answer_away() {
        // Where the right option sits, as shown, over the single-choice questions.
        let mut at = [0usize; 4];
        let single: Vec<&Question> = QUESTIONS.iter().filter(|q| !q.multi).collect();
        for q in &single {
            let order = shown_order(q);
            let pos = order.iter().position(|&i| q.options[i].1).unwrap();
            at[pos] += 1;
        }
        assert!(
            at.iter().all(|n| *n * 2 <= single.len()),
            "right answers by position: {at:?}"
        );
        assert_eq!(shown_order(&QUESTIONS[0]), shown_order(&QUESTIONS[0]));
    }

    #[test]
    fn feedback_explains_wrong_picks_and_counts_the_right_ones() {
        let q = QUESTIONS.iter().find(|q| q.id == "signature").unwrap();
        // One right (edit), one wrong (stolen), one right missed (forged).
        let f = feedback(q, &[0, 1]);
        assert!(!f.correct);
        assert_eq!(f.found, (1, 2));
        assert_eq!(f.wrong.len(), 1);
        assert!(f.wrong[0].1.contains("principal"));
        assert_eq!(f.missed.len(), 1);
        assert!(f.missed[0].0.contains("forged"));
        let f = feedback(q, &[0, 2]);
        assert!(f.correct && f.wrong.is_empty() && f.missed.is_empty());
        let s = QUESTIONS.iter().find(|q| q.id == "stolen").unwrap();
        let f = feedback(s, &[0]);
        assert_eq!(f.found, (0, 1));
        assert!(f.wrong[0].1.contains("separate check"));
        assert!(
            f.missed.is_empty(),
            "single choice: the explanation says the rest"
        );
    }

    #[test]
    fn answers_are_checked_as_sets() {
        let q = QUESTIONS.iter().find(|q| q.id == "signature").unwrap();
        assert!(is_correct(q, &[2, 0]));
        assert!(!is_correct(q, &[0]));
        assert!(!is_correct(q, &[0, 1, 2]));
    }

    #[test]
    fn progress_round_trips_and_distrusts_storage() {
        let mut p = Progress::default();
        p.answers.insert("integrity".into(), vec![0]);
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
