//! The attack bench: bob holds a ticket for a staging deploy; the reader plays the client or a
//! thief and picks a move, each sent at a time on one clock. Every move is a real run on a
//! world of its own (two replicas, one key, one memory), so moves never change one another.

use mrtr_core::checks::Check;
use mrtr_core::ticket::{Claims, Codec, Key, Keyring};
use mrtr_core::{Principal, SeededEntropy, Verdict};
use serde_json::Value;

use crate::actor::Replica;
use crate::knobs::Knobs;
use crate::scenario::tamper;
use crate::setup::{
    alice, bob, deployed_text, judge, mint, with_env, with_id, with_ticket, without_answer, Flow,
    Harm, RequestOutcome,
};

/// What the reader can do with bob's ticket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Send the honest retry: the answer and the ticket unchanged.
    Honest,
    /// Edit the ticket's payload from staging to prod, keeping its signature.
    EditToProd,
    /// alice sends bob's retry with her own token.
    AliceReplays,
    /// Send the honest retry after the ticket has expired.
    WaitFiveMinutes,
    /// Attach the staging ticket to a deploy to prod.
    AttachToProd,
    /// Send the honest retry, then the same again (to the other replica).
    SendTwice,
    /// Retry with the ticket but without the answer.
    WithoutAnswer,
    /// Change one character of the ticket.
    ChangeOneChar,
    /// Send a ticket for prod signed with a key the thief made up.
    Forge,
    /// Deploy, then send the spent ticket again without its answer, to be asked again and
    /// handed a fresh ticket.
    Launder,
    /// Answer with a sampling result where the confirmation belongs, then use the ticket
    /// that comes back, late.
    Renew,
    /// Send the honest retry; the machine the shared memory answers from dies at once; send
    /// the same retry again (to the other replica).
    MemoryDies,
}

impl Move {
    /// Every move, in the order the bench lists them.
    pub const ALL: [Move; 12] = [
        Move::Honest,
        Move::EditToProd,
        Move::AliceReplays,
        Move::WaitFiveMinutes,
        Move::AttachToProd,
        Move::SendTwice,
        Move::WithoutAnswer,
        Move::ChangeOneChar,
        Move::Forge,
        Move::Launder,
        Move::Renew,
        Move::MemoryDies,
    ];

    /// A stable name for links (`move=` in the fragment).
    pub fn id(self) -> &'static str {
        match self {
            Move::Honest => "honest",
            Move::EditToProd => "edit",
            Move::AliceReplays => "alice",
            Move::WaitFiveMinutes => "wait",
            Move::AttachToProd => "prod",
            Move::SendTwice => "twice",
            Move::WithoutAnswer => "noanswer",
            Move::ChangeOneChar => "onechar",
            Move::Forge => "forge",
            Move::Launder => "launder",
            Move::Renew => "renew",
            Move::MemoryDies => "memdies",
        }
    }

    /// The move [`Move::id`] names `s`; `None` for any other text.
    pub fn from_id(s: &str) -> Option<Move> {
        Move::ALL.into_iter().find(|m| m.id() == s)
    }

    /// When the move's own request is sent, in seconds after the mint, by default. The first
    /// six are the lesson's table; the repeat of a move that sends twice goes at this time,
    /// its first, honest send at 8 s (or at this time, if earlier).
    pub fn default_at(self) -> u64 {
        match self {
            Move::Honest => 8,
            Move::EditToProd => 12,
            Move::AliceReplays => 20,
            Move::WaitFiveMinutes => 300,
            Move::AttachToProd => 30,
            Move::SendTwice => 40,
            Move::WithoutAnswer => 14,
            Move::ChangeOneChar => 16,
            Move::Forge => 18,
            Move::Launder => 10,
            // Late in the ticket's life, so that a renewed ticket would outlive it.
            Move::Renew => 100,
            Move::MemoryDies => 40,
        }
    }

    /// The move as the bench offers it, in a short imperative sentence.
    pub fn label(self) -> &'static str {
        match self {
            Move::Honest => "Send the honest retry",
            Move::EditToProd => "Edit the ticket: staging → prod",
            Move::AliceReplays => "alice replays bob's ticket",
            Move::WaitFiveMinutes => "Send the honest retry late",
            Move::AttachToProd => "Attach the ticket to a deploy to prod",
            Move::SendTwice => "Send the honest retry twice",
            Move::WithoutAnswer => "Retry without the answer",
            Move::ChangeOneChar => "Change one character of the ticket",
            Move::Forge => "Forge a ticket with a key you made up",
            Move::Launder => {
                "Deploy, then strip the answer off the spent ticket and redeem the fresh one"
            }
            Move::Renew => {
                "Answer with the wrong kind of result, then use the ticket that comes back, late"
            }
            Move::MemoryDies => {
                "Send the honest retry; the memory's machine dies; send the same retry again"
            }
        }
    }

    /// What the lesson says the move comes to against the default replicas (every check
    /// on, no single use). A claim, not a shortcut: the tests hold every run to it, and the
    /// page shows what the run did.
    pub fn expected(self) -> Upshot {
        match self {
            Move::Honest | Move::SendTwice | Move::Launder | Move::MemoryDies => Upshot::Deployed,
            Move::EditToProd | Move::ChangeOneChar | Move::Forge => {
                Upshot::Refused(Check::Signature)
            }
            Move::AliceReplays => Upshot::Refused(Check::Principal),
            Move::WaitFiveMinutes | Move::Renew => Upshot::Refused(Check::Expiry),
            Move::AttachToProd => Upshot::Refused(Check::Request),
            Move::WithoutAnswer => Upshot::AskedAgain,
        }
    }

    /// Who plays the move.
    pub fn role(self) -> &'static str {
        match self {
            Move::AliceReplays => "thief",
            Move::Forge | Move::EditToProd | Move::ChangeOneChar => "tampering client",
            _ => "client",
        }
    }
}

/// Every move's default time, in [`Move::ALL`]'s order.
pub fn default_times() -> [u64; Move::ALL.len()] {
    Move::ALL.map(Move::default_at)
}

/// One request of a move and what came of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    /// What was sent, in words.
    pub what: String,
    /// The replica the balancer sent it to.
    pub replica: Replica,
    /// The bearer token it carried (`bob-token`, `alice-token`): who sent it.
    pub bearer: String,
    /// When it was sent, seconds after the mint.
    pub at_s: u64,
    /// The request sent.
    pub request: Value,
    /// The replica's response (`null` if none).
    pub response: Value,
    /// The replica's checks on the ticket.
    pub verdict: Verdict,
    /// What it came to.
    pub outcome: RequestOutcome,
    /// What went wrong, when the attempt did work bob never confirmed.
    pub harm: Option<Harm>,
    /// The outcome in plain words.
    pub answer: String,
    /// The reason in the server's log; never on the wire.
    pub detail: Option<String>,
    /// The result's text when the attempt deployed something.
    pub deployed: Option<String>,
}

/// A move played out: the ticket it started from and every request it made.
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    /// The ticket A minted for bob, that the move started from.
    pub ticket: String,
    /// Every request the move sent, in order.
    pub attempts: Vec<Attempt>,
}

/// How a move ended, as the reader predicts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upshot {
    /// Some attempt deployed and none was refused.
    Deployed,
    /// Nothing deployed and nothing was refused: the server asked its question again.
    AskedAgain,
    /// An attempt was refused at this check.
    Refused(Check),
}

impl Upshot {
    /// What a reader may predict, in the order the page offers it.
    pub const CHOICES: [Upshot; 7] = [
        Upshot::Deployed,
        Upshot::Refused(Check::Signature),
        Upshot::Refused(Check::Principal),
        Upshot::Refused(Check::Expiry),
        Upshot::Refused(Check::Request),
        Upshot::AskedAgain,
        Upshot::Refused(Check::SingleUse),
    ];

    /// The prediction as the bench offers it.
    pub fn label(self) -> &'static str {
        match self {
            Upshot::Deployed => "It deploys",
            Upshot::AskedAgain => "Asked again (no answer)",
            Upshot::Refused(Check::Signature) => "Stopped by the signature",
            Upshot::Refused(Check::Principal) => "Stopped by the principal",
            Upshot::Refused(Check::Expiry) => "Stopped by the expiry",
            Upshot::Refused(Check::Request) => "Stopped by the request digest",
            Upshot::Refused(Check::Answer) => "Stopped by the answer check",
            Upshot::Refused(Check::SingleUse) => "Stopped by single use",
        }
    }

    /// A stable name: "deploys", "answer" (asked again) or the check's id.
    pub fn id(self) -> &'static str {
        match self {
            Upshot::Deployed => "deploys",
            Upshot::AskedAgain => "answer",
            Upshot::Refused(c) => c.id(),
        }
    }
}

impl Played {
    /// How the move ended: a refusal anywhere decides it, then any deploy, then a repeated
    /// question.
    pub fn upshot(&self) -> Upshot {
        match (self.first_failure(), self.deploys()) {
            (Some(c), _) => Upshot::Refused(c),
            (None, 0) => Upshot::AskedAgain,
            (None, _) => Upshot::Deployed,
        }
    }

    /// The first failing check of the first refused attempt.
    pub fn first_failure(&self) -> Option<Check> {
        self.attempts
            .iter()
            .find_map(|a| a.verdict.first_failure().map(|(c, _)| c))
    }

    /// For the renewal move: the expiry of the ticket bob started from and of the one the
    /// server handed back for the wrong-kind answer, both read from the tickets themselves.
    pub fn renewal(&self) -> Option<Renewal> {
        let first = mrtr_core::ticket::read_unverified(&self.ticket).ok()?;
        let again = self
            .attempts
            .first()?
            .response
            .pointer("/result/requestState")
            .and_then(Value::as_str)?;
        let renewed = mrtr_core::ticket::read_unverified(again).ok()?;
        Some(Renewal {
            first_exp_s: first.exp.saturating_sub(first.iat),
            renewed_exp_s: renewed.exp.saturating_sub(first.iat),
            same_id: renewed.tid == first.tid,
        })
    }

    /// What the renewal attempt got, in a few sentences, from the two tickets' deadlines and
    /// the verdicts of the same run (so it can never disagree with the verdicts beside it).
    pub fn renewal_note(&self) -> Option<String> {
        let r = self.renewal()?;
        if !r.held() {
            return Some(format!(
                "This naive server mints a brand-new ticket when it asks again: a new id and a new deadline, t = {} s instead of t = {} s. The ticket that came back outlives the first one, so a client can renew a captured ticket for ever by answering wrongly.",
                r.renewed_exp_s, r.first_exp_s
            ));
        }
        let why = match self.attempts.first()?.verdict.status(Check::Answer) {
            Some(mrtr_core::Status::Off) => "B's answer check is off, but the handler finds no confirmation in it either, so B asks again",
            _ => "the answer check counts the confirmation as missing, so B asks again",
        };
        let mut note = format!(
            "An answer of another kind than the question is no answer: {why}, on a ticket with the same id and the same deadline (t = {} s) as the first.",
            r.first_exp_s
        );
        if let Some(late) = self.attempts.get(1) {
            note.push_str(&match (late.verdict.first_failure(), &late.harm) {
                (Some((Check::Expiry, _)), _) => " Sent back after that deadline, it is refused at the expiry check: asking again never extends a ticket's life.".to_owned(),
                (Some((c, _)), _) => format!(" Sent back after that deadline, it is refused at the {} check.", c.id()),
                (None, Some(h)) => format!(" Sent back after that deadline, it still deploys. {}.", h.what_went_wrong),
                (None, None) => " Sent back after that deadline, it is not refused.".to_owned(),
            });
        }
        Some(note)
    }

    /// What the laundering move tests under these settings, from the same run: when its
    /// stripped retry is refused by a check before the memory is asked (sent after the
    /// expiry, say), the note says so instead of describing the memory.
    pub fn launder_note(&self, k: Knobs) -> String {
        let stripped = self.attempts.get(1).and_then(|a| a.verdict.first_failure());
        match (k.single_use, k.naive_ask_again, stripped) {
            (_, _, Some((c, _))) if c != Check::SingleUse => format!(
                "The stripped retry is refused at the {} check before any memory is asked, so nothing is laundered here. Move it back inside the ticket's life to see what the memory does.",
                c.id()
            ),
            (false, _, _) => "Single use is off, so the server remembers nothing it redeemed: the same retry deploys as often as it is sent, and there is nothing to launder. Turn single use on above.".into(),
            (true, false, _) => "With single use on, the retry without its answer is looked up in the memory of redeemed tickets before the question is asked again: a spent ticket is refused there. Tickets re-issued while asking again keep the first ticket's id and deadline, so one flow can be redeemed only once.".into(),
            (true, true, _) => "This naive server asks again without looking in its memory and mints a brand-new ticket, new id and new deadline. The fresh ticket was never redeemed, so it deploys a second time.".into(),
        }
    }

    /// The attempt that decides how the move ended: the first refused, else the last that
    /// did harm, else the last.
    pub fn decisive(&self) -> Option<(usize, &Attempt)> {
        let a = &self.attempts;
        a.iter()
            .enumerate()
            .find(|(_, a)| a.verdict.first_failure().is_some())
            .or_else(|| a.iter().enumerate().rev().find(|(_, a)| a.harm.is_some()))
            .or_else(|| a.iter().enumerate().next_back())
    }

    /// Why the move came to its upshot: the deciding request's answer, from the same run.
    pub fn why(&self) -> String {
        match self.decisive() {
            Some((n, a)) if self.attempts.len() > 1 => {
                format!("Request {} ({}): {}", n + 1, a.what, a.answer)
            }
            Some((_, a)) => a.answer.clone(),
            None => "Nothing was sent.".into(),
        }
    }

    /// The move's tone, as the clock and its row draw it: refused (an attempt was refused),
    /// harm (work bob never confirmed was done), done (deployed, no harm) or asked (nothing
    /// done, the question asked again).
    pub fn tone(&self) -> crate::Tone {
        use crate::Tone;
        let harm = self.attempts.iter().any(|a| a.harm.is_some());
        match (self.first_failure(), harm, self.deploys()) {
            (Some(_), _, _) => Tone::Refused,
            (None, true, _) => Tone::Harm,
            (None, false, 0) => Tone::Asked,
            (None, false, _) => Tone::Done,
        }
    }

    /// How many attempts deployed.
    pub fn deploys(&self) -> usize {
        self.attempts
            .iter()
            .filter(|a| a.deployed.is_some())
            .count()
    }
}

/// What a renewal attempt got: the deadlines (seconds after the first ticket was minted) of
/// the ticket it started from and of the one the server handed back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Renewal {
    /// The first ticket's deadline.
    pub first_exp_s: u64,
    /// The deadline of the ticket handed back.
    pub renewed_exp_s: u64,
    /// The ticket handed back has the first one's id (single use covers both).
    pub same_id: bool,
}

impl Renewal {
    /// True when the ticket handed back lives no longer than the first: asking again did not
    /// renew it.
    pub fn held(&self) -> bool {
        self.renewed_exp_s <= self.first_exp_s
    }
}

/// The answer of a sampling request, sent where a form's answer belongs.
fn sampling_shaped(retry: &Value) -> Value {
    let mut r = retry.clone();
    if let Some(answers) = r["params"]["inputResponses"].as_object_mut() {
        for v in answers.values_mut() {
            *v = serde_json::json!({"role": "assistant", "content": {"type": "text", "text": "yes"}, "model": "any"});
        }
    }
    r
}

/// A ticket for prod, minted with a key nobody else holds; `None` if it cannot be minted
/// (never, for the claims of a ticket the server minted).
fn forged(real: &Claims) -> Option<String> {
    let key = Key::new("k1", b"a key I made up, 32 bytes long!!")
        .unwrap_or_else(|_| unreachable!("32-byte key"));
    let mut claims = real.clone();
    claims.state = serde_json::json!({"env": "prod"});
    Codec::new(Keyring::new(key), mrtr_core::ticket::Seal::Signed)
        .mint(&claims, &mut SeededEntropy::new(1))
        .ok()
}

/// Changes one character in the middle of the signature (or the sealed body).
pub fn one_char(ticket: &str) -> String {
    let at = ticket
        .rfind('.')
        .map(|d| (d + ticket.len()) / 2)
        .unwrap_or(ticket.len() / 2);
    ticket
        .char_indices()
        .map(|(i, c)| {
            if i == at {
                if c == 'Q' {
                    'R'
                } else {
                    'Q'
                }
            } else {
                c
            }
        })
        .collect()
}

/// The repeat's words once the memory's machine died, from what the world says it lost.
fn after_death(loss: Option<crate::memory::Loss>) -> String {
    use crate::memory::Loss;
    match loss {
        Some(Loss::CopyTookOver { lost: 0 }) => {
            "the same retry again, after the memory's machine died and its standby copy, which had every redemption, took over".into()
        }
        Some(Loss::CopyTookOver { lost }) => format!(
            "the same retry again, after the memory's machine died and its standby copy took over without the {} it had not yet copied",
            if lost == 1 { "redemption".to_owned() } else { format!("{lost} redemptions") }
        ),
        Some(Loss::MemberDied { left }) => format!(
            "the same retry again, after one of the memory's {} machines died ({left} left, still a majority, each holding every redemption)",
            crate::memory::MEMBERS
        ),
        None => "the same retry again, after replica B, which kept its redemptions in its own process, died".into(),
    }
}

/// Sends one request of a move to a replica and records what came of it.
fn attempt(
    w: &mut crate::world::World,
    flow: &mut Flow,
    replica: Replica,
    (who, at_s, msg, what): (Principal, u64, Value, String),
) -> Attempt {
    let j = judge(w, flow, replica, &who, at_s, &msg);
    let deployed = deployed_text(&j.response).map(str::to_owned);
    Attempt {
        what,
        replica,
        bearer: format!("{who}-token"),
        at_s,
        request: msg,
        response: j.response,
        verdict: j.verdict,
        outcome: j.outcome,
        harm: j.harm,
        answer: j.answer,
        detail: j.detail,
        deployed,
    }
}

/// Plays a move at its default time.
pub fn play(knobs: Knobs, mv: Move) -> Option<Played> {
    play_at(knobs, mv, mv.default_at())
}

/// Plays a move whose own request is sent `at_s` seconds after the mint.
pub fn play_at(knobs: Knobs, mv: Move, at_s: u64) -> Option<Played> {
    let m = mint(knobs)?;
    let plan = plan(mv, &m, at_s)?;
    // Every attempt of a move is sent on bob's one confirmation.
    let mut flow = Flow::of(&m.claims);
    let mut w = m.world;
    // The repeat of a move that sends twice lands on the other replica: that is where a
    // memory each replica keeps for itself fails.
    let replica = |n: usize| match (mv, n) {
        (Move::SendTwice | Move::MemoryDies, 1) => Replica::A,
        _ => Replica::B,
    };
    let mut attempts = Vec::new();
    for (n, mut step) in plan.into_iter().enumerate() {
        if (mv, n) == (Move::MemoryDies, 1) {
            // Right after the first redemption, before the clock moves on.
            step.3 = after_death(w.memory_machine_dies());
        }
        attempts.push(attempt(&mut w, &mut flow, replica(n), step));
    }
    // What the server handed back on the move's last request, if a ticket.
    let back = attempts
        .last()
        .and_then(|a| a.response.pointer("/result/requestState"))
        .and_then(Value::as_str);
    if let Some(step) = back.and_then(|t| follow_up(mv, &m.retry, &m.claims, at_s, t)) {
        attempts.push(attempt(&mut w, &mut flow, Replica::B, step));
    }
    Some(Played {
        ticket: m.ticket,
        attempts,
    })
}

/// One request of a move: who sends it, when (seconds after the mint), the message, and
/// what it is, in words.
type Planned = (Principal, u64, Value, String);

/// The requests a move sends, in order; a move that sends twice sends the honest retry
/// first. Nothing when the move cannot be made (a forgery of a ticket that does not open).
fn plan(mv: Move, m: &crate::setup::Minted, at_s: u64) -> Option<Vec<Planned>> {
    let honest = |id: i64| with_id(&m.retry, id);
    let by_bob = |msg: Value, what: &str| vec![(bob(), at_s, msg, what.to_owned())];
    let after_honest = |msg: Value, what: &str| {
        vec![
            (bob(), at_s.min(8), honest(3), "the honest retry".into()),
            (bob(), at_s, msg, what.to_owned()),
        ]
    };
    Some(match mv {
        Move::Honest => by_bob(honest(3), "the retry with the answer and the ticket"),
        Move::EditToProd => {
            let (t, what) = tamper(&m.ticket);
            let what = format!("the retry, ticket edited: {what}");
            by_bob(with_ticket(&honest(4), &t), &what)
        }
        Move::AliceReplays => vec![(
            alice(),
            at_s,
            honest(5),
            "bob's retry, sent with alice's token".into(),
        )],
        Move::WaitFiveMinutes => by_bob(honest(6), "the honest retry, unchanged, sent late"),
        Move::AttachToProd => by_bob(
            with_env(&honest(7), "prod"),
            "a deploy to prod carrying the staging ticket",
        ),
        Move::SendTwice => after_honest(honest(8), "the same retry again"),
        // The second request's words are written once the machine has died (play_at).
        Move::MemoryDies => after_honest(honest(8), ""),
        Move::WithoutAnswer => by_bob(
            without_answer(&honest(3)),
            "the retry with the ticket but no answer",
        ),
        Move::ChangeOneChar => by_bob(
            with_ticket(&honest(3), &one_char(&m.ticket)),
            "the retry, one character of the ticket changed",
        ),
        Move::Forge => by_bob(
            with_ticket(&honest(3), &forged(&m.claims)?),
            "a ticket for prod signed with a made-up key",
        ),
        Move::Launder => after_honest(
            with_id(&without_answer(&m.retry), 7),
            "the same ticket again, the answer stripped off",
        ),
        Move::Renew => by_bob(
            with_id(&sampling_shaped(&m.retry), 6),
            "the retry with a sampling result where the confirmation belongs",
        ),
    })
}

/// The request a move sends after the server handed back a ticket `back`, if it sends one.
fn follow_up(mv: Move, retry: &Value, claims: &Claims, at_s: u64, back: &str) -> Option<Planned> {
    let msg = with_id(&with_ticket(retry, back), 8);
    match mv {
        // Only a server that answered the stripped retry with a fresh ticket can be asked to
        // redeem it.
        Move::Launder => Some((
            bob(),
            at_s + 2,
            msg,
            "the retry again, carrying the fresh ticket".into(),
        )),
        // Whatever came back is tried with the honest answer once the first ticket expired.
        Move::Renew => {
            let late = claims.exp.saturating_sub(claims.iat).max(at_s) + 10;
            let what = "the honest retry carrying the ticket handed back".into();
            Some((bob(), late, msg, what))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr_core::ticket::Seal;

    #[test]
    fn every_move_comes_to_what_the_lesson_says() {
        for m in Move::ALL {
            let played = play(Knobs::default(), m).unwrap();
            assert_eq!(played.upshot(), m.expected(), "{m:?}");
            assert!(Upshot::CHOICES.contains(&m.expected()), "{m:?}");
        }
    }

    #[test]
    fn each_move_meets_the_expected_check() {
        let k = Knobs::default();
        let first = |mv| play(k, mv).unwrap().first_failure();
        assert_eq!(first(Move::Honest), None);
        assert_eq!(first(Move::EditToProd), Some(Check::Signature));
        assert_eq!(first(Move::AliceReplays), Some(Check::Principal));
        assert_eq!(first(Move::WaitFiveMinutes), Some(Check::Expiry));
        assert_eq!(first(Move::AttachToProd), Some(Check::Request));
        assert_eq!(first(Move::SendTwice), None);
        // Not a refusal: the question comes again.
        assert_eq!(first(Move::WithoutAnswer), None);
        assert_eq!(
            play(k, Move::WithoutAnswer).unwrap().upshot(),
            Upshot::AskedAgain
        );
        assert_eq!(play(k, Move::Honest).unwrap().upshot(), Upshot::Deployed);
        assert_eq!(
            play(k, Move::Forge).unwrap().upshot(),
            Upshot::Refused(Check::Signature)
        );
        assert_eq!(first(Move::ChangeOneChar), Some(Check::Signature));
        assert_eq!(first(Move::Forge), Some(Check::Signature));
        // Without single use there is nothing to launder: it deploys twice, like sending twice.
        assert_eq!(first(Move::Launder), None);
    }

    #[test]
    fn laundering_is_refused_by_ours_and_deploys_twice_on_a_naive_server() {
        let ours = Knobs {
            single_use: true,
            ..Knobs::default()
        };
        let o = play(ours, Move::Launder).unwrap();
        assert_eq!(o.attempts.len(), 2, "no fresh ticket to redeem");
        assert_eq!(o.deploys(), 1);
        assert_eq!(o.first_failure(), Some(Check::SingleUse));
        assert_eq!(
            o.attempts[1].response["error"]["message"],
            "Invalid or expired requestState"
        );
        let naive = Knobs {
            naive_ask_again: true,
            ..ours
        };
        let o = play(naive, Move::Launder).unwrap();
        assert_eq!(o.attempts.len(), 3);
        assert_eq!(
            o.attempts[1].response["result"]["resultType"],
            "input_required"
        );
        assert!(o.attempts[1].answer.starts_with("Asked again"));
        assert_eq!(o.deploys(), 2, "the naive server deploys twice");
        assert_eq!(o.first_failure(), None);
    }

    #[test]
    fn a_renewal_attempt_is_asked_again_on_the_first_deadline_and_refused_after_it() {
        let o = play(Knobs::default(), Move::Renew).unwrap();
        assert_eq!(o.attempts.len(), 2);
        assert!(
            o.attempts[0].answer.starts_with("Asked again"),
            "{}",
            o.attempts[0].answer
        );
        assert_eq!(
            o.attempts[0].verdict.status(Check::Answer),
            Some(&mrtr_core::Status::Unanswered {
                keys: vec!["confirm".into()]
            })
        );
        let r = o.renewal().unwrap();
        assert!(r.held() && r.same_id, "{r:?}");
        assert_eq!(r.renewed_exp_s, r.first_exp_s);
        assert_eq!(o.attempts[1].at_s, r.first_exp_s + 10);
        assert_eq!(o.first_failure(), Some(Check::Expiry));
        assert_eq!(o.deploys(), 0);
        // The naive server re-mints as if the call were new: the renewed ticket deploys late.
        let naive = play(
            Knobs {
                naive_ask_again: true,
                ..Knobs::default()
            },
            Move::Renew,
        )
        .unwrap();
        let r = naive.renewal().unwrap();
        assert!(!r.held() && !r.same_id, "{r:?}");
        assert_eq!(naive.deploys(), 1);
        assert_eq!(naive.upshot(), Upshot::Deployed);
        assert!(naive.renewal_note().unwrap().contains("brand-new ticket"));
    }

    #[test]
    fn the_renewal_note_says_what_the_late_retry_got_in_this_run() {
        let ours = play(Knobs::default(), Move::Renew).unwrap();
        let note = ours.renewal_note().unwrap();
        assert!(note.contains("same deadline (t = 120 s)"), "{note}");
        assert!(note.contains("refused at the expiry check"), "{note}");
        // The expiry check off: the same deadline, but nothing holds the ticket to it.
        let mut k = Knobs::default();
        k.policy_b.expiry = false;
        let o = play(k, Move::Renew).unwrap();
        let note = o.renewal_note().unwrap();
        assert!(!note.contains("refused"), "{note}");
        assert!(note.contains("it still deploys"), "{note}");
        assert!(note.contains("expiry check is off"), "{note}");
    }

    #[test]
    fn the_world_calls_every_deploy_bob_never_confirmed_harm() {
        use crate::setup::HarmKind;
        let harms = |k: Knobs, mv: Move| -> Vec<Option<HarmKind>> {
            play(k, mv)
                .unwrap()
                .attempts
                .iter()
                .map(|a| a.harm.as_ref().map(|h| h.kind))
                .collect()
        };
        // The honest deploy is no harm; the same retry sent again is.
        assert_eq!(harms(Knobs::default(), Move::Honest), [None]);
        assert_eq!(
            harms(Knobs::default(), Move::SendTwice),
            [None, Some(HarmKind::Again)]
        );
        // Laundering without single use, and on a naive server with it: a second deploy.
        assert_eq!(
            harms(Knobs::default(), Move::Launder),
            [None, None, Some(HarmKind::Again)]
        );
        let naive = Knobs {
            single_use: true,
            naive_ask_again: true,
            ..Knobs::default()
        };
        let o = play(naive, Move::Launder).unwrap();
        let h = o.attempts[2].harm.as_ref().unwrap();
        assert_eq!(h.kind, HarmKind::Again);
        assert!(
            h.what_went_wrong
                .contains("minted when the server asked again"),
            "{}",
            h.what_went_wrong
        );
        // A naive renewal deploys after the ticket bob confirmed on expired.
        let renewed = Knobs {
            naive_ask_again: true,
            ..Knobs::default()
        };
        assert_eq!(harms(renewed, Move::Renew), [None, Some(HarmKind::Late)]);
        // Each check off lets its attack through, and the world says so.
        let off = |c: Check| {
            let mut k = Knobs::default();
            k.policy_b.set(c, false);
            k
        };
        assert_eq!(
            harms(off(Check::Signature), Move::EditToProd),
            [Some(HarmKind::Unconfirmed)]
        );
        assert_eq!(
            harms(off(Check::Signature), Move::Forge),
            [Some(HarmKind::Unconfirmed)]
        );
        assert_eq!(
            harms(off(Check::Principal), Move::AliceReplays),
            [Some(HarmKind::OtherCaller)]
        );
        assert_eq!(
            harms(off(Check::Expiry), Move::WaitFiveMinutes),
            [Some(HarmKind::Late)]
        );
        // A harmful attempt's words never read as a success.
        for a in play(Knobs::default(), Move::SendTwice).unwrap().attempts {
            assert_eq!(
                a.harm.is_some(),
                a.answer.starts_with("Harm done"),
                "{}",
                a.answer
            );
            assert!(a.harm.is_none() || !a.answer.contains("Accepted"));
        }
        // With every check on and single use, no move does harm, but for the death of the
        // one machine a shared memory lives on; on three machines, none at all.
        let safe = Knobs {
            single_use: true,
            ..Knobs::default()
        };
        for mv in Move::ALL {
            let harmless = harms(safe, mv).iter().all(Option::is_none);
            assert_eq!(harmless, mv != Move::MemoryDies, "{mv:?}");
            let quorum = Knobs {
                store: crate::knobs::StoreMode::Quorum,
                ..safe
            };
            assert!(harms(quorum, mv).iter().all(Option::is_none), "{mv:?}");
        }
    }

    #[test]
    fn exactly_one_move_deploys_cleanly() {
        let clean: Vec<Move> = Move::ALL
            .into_iter()
            .filter(|&mv| {
                let o = play(Knobs::default(), mv).unwrap();
                o.attempts.len() == 1 && o.deploys() == 1
            })
            .collect();
        assert_eq!(clean, [Move::Honest]);
    }

    #[test]
    fn twice_deploys_twice_unless_single_use() {
        assert_eq!(
            play(Knobs::default(), Move::SendTwice).unwrap().deploys(),
            2
        );
        let o = play(
            Knobs {
                single_use: true,
                ..Knobs::default()
            },
            Move::SendTwice,
        )
        .unwrap();
        assert_eq!(o.deploys(), 1);
        assert_eq!(o.first_failure(), Some(Check::SingleUse));
    }

    #[test]
    fn without_the_answer_the_question_comes_again() {
        let o = play(Knobs::default(), Move::WithoutAnswer).unwrap();
        assert_eq!(
            o.attempts[0].response["result"]["resultType"],
            "input_required"
        );
        assert!(o.attempts[0].answer.starts_with("Asked again"));
    }

    #[test]
    fn refusals_are_uniform_on_the_wire_and_detailed_in_the_log() {
        for mv in [
            Move::EditToProd,
            Move::AliceReplays,
            Move::WaitFiveMinutes,
            Move::AttachToProd,
            Move::Forge,
        ] {
            let a = &play(Knobs::default(), mv).unwrap().attempts[0];
            assert_eq!(
                a.response["error"]["message"], "Invalid or expired requestState",
                "{mv:?}"
            );
            assert!(a.detail.is_some(), "{mv:?}");
        }
        for mv in Move::ALL {
            let sealed = play(
                Knobs {
                    seal: Seal::Sealed,
                    ..Knobs::default()
                },
                mv,
            )
            .unwrap();
            assert_eq!(
                sealed.first_failure(),
                play(Knobs::default(), mv).unwrap().first_failure(),
                "{mv:?}"
            );
        }
    }

    fn symbols_at(knobs: Knobs, times: &[(Move, u64)]) -> Vec<String> {
        times
            .iter()
            .map(|&(mv, at)| {
                let p = play_at(knobs, mv, at).unwrap();
                crate::checks::symbols(&p.attempts.last().unwrap().verdict)
            })
            .collect()
    }

    fn lesson(knobs: Knobs) -> Vec<String> {
        let six = Move::ALL[..6].iter().map(|&m| (m, m.default_at()));
        symbols_at(knobs, &six.collect::<Vec<_>>())
    }

    #[test]
    fn the_first_six_moves_are_the_lessons_table() {
        assert_eq!(
            lesson(Knobs::default()),
            ["✓✓✓✓✓", "✗––––", "✓✗–––", "✓✓✗––", "✓✓✓✗–", "✓✓✓✓✓"]
        );
        let p = play(Knobs::default(), Move::Honest).unwrap();
        assert_eq!(
            p.attempts[0].answer,
            "Accepted: deployed to staging, release 2026.11.30-2."
        );
        assert_eq!(p.tone(), crate::Tone::Done);
        let edited = play(Knobs::default(), Move::EditToProd).unwrap();
        assert!(edited.attempts[0]
            .detail
            .as_deref()
            .unwrap()
            .starts_with("signature"));
        assert!(play(Knobs::default(), Move::WaitFiveMinutes)
            .unwrap()
            .attempts[0]
            .answer
            .contains("Expiry not passed"));
    }

    #[test]
    fn moving_a_move_on_the_clock_or_the_ttl_recomputes() {
        assert_eq!(
            symbols_at(Knobs::default(), &[(Move::Honest, 121)]),
            ["✓✓✗––"]
        );
        let short = Knobs {
            ttl_s: 10,
            ..Knobs::default()
        };
        let s = lesson(short);
        assert_eq!(s[0], "✓✓✓✓✓");
        assert_eq!(s[4], "✓✓✗––"); // at 30 s a 10 s ticket has expired before the request is compared
        assert_eq!(s[5], "✓✓✗––");
        // A move sent before 8 s sends its first, honest request at the same time.
        let early = play_at(Knobs::default(), Move::SendTwice, 2).unwrap();
        assert_eq!(
            early.attempts.iter().map(|a| a.at_s).collect::<Vec<_>>(),
            [2, 2]
        );
    }

    #[test]
    fn single_use_refuses_the_repeat_only_with_a_shared_memory() {
        let shared = Knobs {
            single_use: true,
            ..Knobs::default()
        };
        let s = lesson(shared);
        assert_eq!(s[0], "✓✓✓✓✓✓");
        assert_eq!(s[5], "✓✓✓✓✓✗");
        let per_replica = Knobs {
            single_use: true,
            store: crate::knobs::StoreMode::PerReplica,
            ..Knobs::default()
        };
        let p = play(per_replica, Move::SendTwice).unwrap();
        assert_eq!(
            p.attempts.iter().map(|a| a.replica).collect::<Vec<_>>(),
            [Replica::B, Replica::A]
        );
        assert_eq!(
            crate::checks::symbols(&p.attempts[1].verdict),
            "✓✓✓✓✓✓",
            "replica A never saw B's redemption"
        );
        assert_eq!(p.tone(), crate::Tone::Harm);
        let h = p.attempts[1].harm.as_ref().unwrap();
        assert!(
            h.what_went_wrong.contains("never saw the first redemption"),
            "{}",
            h.what_went_wrong
        );
    }

    #[test]
    fn the_memorys_machine_dying_deploys_twice_on_one_machine_and_once_on_three() {
        use crate::knobs::StoreMode;
        let on = |store| Knobs {
            single_use: true,
            store,
            ..Knobs::default()
        };
        // One machine, its copy behind: the repeat finds nothing and deploys again.
        let one = play(on(StoreMode::Shared), Move::MemoryDies).unwrap();
        assert_eq!(one.deploys(), 2);
        assert_eq!(one.tone(), crate::Tone::Harm);
        assert!(
            one.attempts[1]
                .what
                .contains("without the redemption it had not yet copied"),
            "{}",
            one.attempts[1].what
        );
        // Three machines: the two left hold it, and the repeat is refused.
        let three = play(on(StoreMode::Quorum), Move::MemoryDies).unwrap();
        assert_eq!(three.deploys(), 1);
        assert_eq!(three.upshot(), Upshot::Refused(Check::SingleUse));
        assert!(three.attempts[1].what.contains("2 left, still a majority"));
        // Each replica's own memory: the other replica never saw it.
        let own = play(on(StoreMode::PerReplica), Move::MemoryDies).unwrap();
        assert_eq!(own.deploys(), 2);
        assert!(own.attempts[1].what.contains("replica B"));
        assert_eq!(own.attempts[1].replica, Replica::A);
        // Without the death, the one machine refuses the repeat: the death is what differs.
        assert_eq!(
            play(on(StoreMode::Shared), Move::SendTwice)
                .unwrap()
                .deploys(),
            1
        );
        assert_eq!(
            play(on(StoreMode::Quorum), Move::SendTwice)
                .unwrap()
                .deploys(),
            1
        );
    }

    #[test]
    fn the_why_is_the_deciding_requests_answer() {
        let k = Knobs::default();
        let twice = play(k, Move::SendTwice).unwrap();
        assert_eq!(twice.decisive().unwrap().0, 1);
        assert!(
            twice
                .why()
                .starts_with("Request 2 (the same retry again): Harm done"),
            "{}",
            twice.why()
        );
        let alice = play(k, Move::AliceReplays).unwrap();
        assert_eq!(alice.why(), alice.attempts[0].answer);
        assert!(alice.why().starts_with("Refused"), "{}", alice.why());
        let once = play(
            Knobs {
                single_use: true,
                ..k
            },
            Move::SendTwice,
        )
        .unwrap();
        assert_eq!(once.decisive().unwrap().0, 1);
        assert_eq!(once.tone(), crate::Tone::Refused);
        assert_eq!(
            play(k, Move::WithoutAnswer).unwrap().tone(),
            crate::Tone::Asked
        );
        // Every move's tone agrees with its upshot.
        for mv in Move::ALL {
            let p = play(k, mv).unwrap();
            let tone = p.tone();
            match p.upshot() {
                Upshot::Refused(_) => assert_eq!(tone, crate::Tone::Refused, "{mv:?}"),
                Upshot::AskedAgain => assert_eq!(tone, crate::Tone::Asked, "{mv:?}"),
                Upshot::Deployed => assert!(
                    matches!(tone, crate::Tone::Done | crate::Tone::Harm),
                    "{mv:?}"
                ),
            }
        }
    }

    #[test]
    fn the_raw_lab_server_accepts_what_it_should_not() {
        // Signs the caller and an expiry into the ticket, but checks neither.
        let mut knobs = Knobs::default();
        knobs.policy_b.expiry = false;
        knobs.policy_b.principal = false;
        let alice = play(knobs, Move::AliceReplays).unwrap();
        assert_eq!(
            alice.attempts[0].answer,
            "Harm done: deployed to staging, release 2026.11.30-2. The ticket was bob's, and alice, who confirmed nothing, got the deploy: B let it through because its principal check is off."
        );
        assert_eq!(alice.tone(), crate::Tone::Harm);
        let late = play(knobs, Move::WaitFiveMinutes).unwrap();
        assert_eq!(
            late.attempts[0].harm.as_ref().unwrap().kind,
            crate::setup::HarmKind::Late
        );
        assert_eq!(symbols_at(knobs, &[(Move::EditToProd, 12)]), ["✗○○––"]);
    }

    #[test]
    fn the_laundering_note_never_describes_a_memory_the_run_did_not_reach() {
        let ours = Knobs {
            single_use: true,
            ..Knobs::default()
        };
        let on_time = play(ours, Move::Launder).unwrap();
        assert_eq!(on_time.first_failure(), Some(Check::SingleUse));
        assert!(on_time
            .launder_note(ours)
            .contains("a spent ticket is refused there"));
        // Sent after the expiry, the stripped retry never reaches the memory.
        let late = play_at(ours, Move::Launder, 200).unwrap();
        assert_eq!(late.first_failure(), Some(Check::Expiry));
        let note = late.launder_note(ours);
        assert!(note.contains("refused at the expiry check"), "{note}");
        assert!(!note.contains("refused there"), "{note}");
        assert!(play(Knobs::default(), Move::Launder)
            .unwrap()
            .launder_note(Knobs::default())
            .starts_with("Single use is off"));
    }

    #[test]
    fn ids_round_trip() {
        for mv in Move::ALL {
            assert_eq!(Move::from_id(mv.id()), Some(mv));
        }
    }
}
