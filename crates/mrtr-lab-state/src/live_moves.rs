//! The misuse moves against a real server: each one asks the server for a fresh ticket (a
//! call of the reader's tool, answered yes), then sends what a careless client or a thief
//! would send instead of the honest retry, and reads the server's real answer. A fresh ticket
//! per move, so no move is refused only because an earlier one spent its ticket. The ticket
//! edits are the auditor's own (`mrtr_audit::variants`). Sans-IO: the view does each `fetch`.

use serde_json::{json, Value};

use mrtr_audit::variants;
use mrtr_core::answered::{classify, Answered};
use mrtr_core::client::{AgreeableHost, Client, PendingCall, Step};

use super::live::{begin_call, read, Failure, Form, Reply};

/// A move, as the attack bench names its simulated ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// One character of the ticket changed.
    OneCharacter,
    /// The readable payload edited and re-encoded, the signature kept.
    EditedPayload,
    /// The honest retry, sent with another caller's token.
    OtherCaller,
    /// The honest retry, sent with no token.
    NoToken,
    /// The ticket and answers, for other arguments.
    OtherArguments,
    /// The honest retry, then the same again.
    Twice,
}

impl Move {
    /// Every move, in the order the page lists them.
    pub const ALL: [Move; 6] = [
        Move::OneCharacter,
        Move::EditedPayload,
        Move::OtherCaller,
        Move::NoToken,
        Move::OtherArguments,
        Move::Twice,
    ];

    /// Its id in the page (`data-move`).
    pub fn id(self) -> &'static str {
        match self {
            Move::OneCharacter => "one-character",
            Move::EditedPayload => "edited-payload",
            Move::OtherCaller => "other-caller",
            Move::NoToken => "no-token",
            Move::OtherArguments => "other-arguments",
            Move::Twice => "twice",
        }
    }

    /// What the move sends, in a few words.
    pub fn title(self) -> &'static str {
        match self {
            Move::OneCharacter => "One character of the ticket changed",
            Move::EditedPayload => "The ticket's readable part edited, its signature kept",
            Move::OtherCaller => "Another caller's token on the honest retry",
            Move::NoToken => "No token on the honest retry",
            Move::OtherArguments => "The ticket and the answers, for other arguments",
            Move::Twice => "The honest retry, sent twice",
        }
    }

    /// What a server that holds does, and the check that makes it.
    pub fn should(self) -> &'static str {
        match self {
            Move::OneCharacter | Move::EditedPayload => "refuse it: the signature no longer matches",
            Move::OtherCaller | Move::NoToken => "refuse it: the ticket names another principal",
            Move::OtherArguments => "refuse it: the ticket was made for other arguments",
            Move::Twice => "refuse the second: a ticket is good for one use (only a memory shared by every replica knows it was used)",
        }
    }
}

/// What the server did with the move's last request.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// It refused with a JSON-RPC error: what a server that holds does.
    Refused {
        /// The error code.
        code: i64,
        /// The server's message.
        message: String,
    },
    /// It refused at the HTTP layer (401) before any JSON-RPC.
    RefusedHttp(u16),
    /// It asked again instead of doing the work: nothing was done with the misused ticket.
    AskedAgain,
    /// It did the work: harm.
    Accepted,
    /// The move could not be made against this server (why, in a sentence).
    NotMade(String),
    /// A request failed before the server judged the move.
    Failed(Failure),
}

impl Verdict {
    /// True when the server held: it refused, or did nothing with the misused ticket.
    pub fn held(&self) -> bool {
        matches!(
            self,
            Verdict::Refused { .. } | Verdict::RefusedHttp(_) | Verdict::AskedAgain
        )
    }

    /// The verdict's tone, as every verdict on the page is drawn: a refusal, the question
    /// asked again, or harm (the server did the work with a misused ticket). `None` for a
    /// move not made or a request that failed: no verdict.
    pub fn tone(&self) -> Option<mrtr_world::Tone> {
        use mrtr_world::Tone;
        match self {
            Verdict::Refused { .. } | Verdict::RefusedHttp(_) => Some(Tone::Refused),
            Verdict::AskedAgain => Some(Tone::Asked),
            Verdict::Accepted => Some(Tone::Harm),
            Verdict::NotMade(_) | Verdict::Failed(_) => None,
        }
    }
}

/// A request the view sends: its bytes and the token to send them with.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The JSON-RPC message, as sent.
    pub bytes: String,
    /// The bearer token for it (empty: none).
    pub token: String,
}

#[derive(Clone, Debug)]
enum Stage {
    /// The call that mints the move's ticket is out.
    Minting,
    /// The honest retry of the twice move is out (its repeat follows).
    FirstOfTwo(Value),
    /// The misused request is out.
    Judging,
    /// Finished.
    Done(Verdict),
}

/// One move against the server.
#[derive(Clone, Debug)]
pub struct MoveRun {
    /// The move.
    pub mv: Move,
    form: Form,
    other_token: String,
    client: Client,
    call: PendingCall,
    stage: Stage,
    /// What was changed, in a few words (once the ticket is in hand).
    pub changed: Option<String>,
    /// Every request sent, in order, as (bytes, token used).
    pub sent: Vec<Request>,
}

impl MoveRun {
    /// Starts `mv`: the call that asks the server for a fresh ticket.
    pub fn start(mv: Move, form: &Form, other_token: &str) -> Result<(MoveRun, Request), Failure> {
        let (_, client, call, msg) = begin_call(form)?;
        let mut run = MoveRun {
            mv,
            form: form.clone(),
            other_token: other_token.trim().to_owned(),
            client,
            call,
            stage: Stage::Minting,
            changed: None,
            sent: Vec::new(),
        };
        let first = run.send(&msg, form.token.clone());
        Ok((run, first))
    }

    fn send(&mut self, msg: &Value, token: String) -> Request {
        let r = Request {
            bytes: msg.to_string(),
            token,
        };
        self.sent.push(r.clone());
        r
    }

    fn finish(&mut self, v: Verdict) -> Option<Request> {
        self.stage = Stage::Done(v);
        None
    }

    /// The verdict, once the move is over.
    pub fn verdict(&self) -> Option<&Verdict> {
        match &self.stage {
            Stage::Done(v) => Some(v),
            _ => None,
        }
    }

    /// Takes the answer to the request now out; returns the next one, if the move goes on.
    pub fn on_reply(&mut self, reply: Reply) -> Option<Request> {
        let sent: Value = self
            .sent
            .last()
            .and_then(|r| serde_json::from_str(&r.bytes).ok())
            .unwrap_or_default();
        let judging = matches!(self.stage, Stage::Judging);
        let response = match read(&reply, &sent) {
            Ok(r) => r,
            // The move's own request refused at the HTTP layer or with an error: it held.
            Err(Failure::Rpc { code, message }) if judging => {
                return self.finish(Verdict::Refused { code, message })
            }
            Err(Failure::Unauthorized(status)) if judging => {
                return self.finish(Verdict::RefusedHttp(status))
            }
            Err(f) => return self.finish(Verdict::Failed(f)),
        };
        match std::mem::replace(&mut self.stage, Stage::Judging) {
            Stage::Minting => self.misuse(&response),
            Stage::FirstOfTwo(honest) => match classify(&response) {
                Answered::Complete(_) => {
                    // The same retry again, under a new id, as a client that retries would.
                    let mut again = honest;
                    again["id"] = json!(format!(
                        "{}-again",
                        again["id"]
                            .as_str()
                            .map_or_else(|| again["id"].to_string(), str::to_owned)
                    ));
                    self.stage = Stage::Judging;
                    let token = self.form.token.clone();
                    Some(self.send(&again, token))
                }
                _ => self.finish(Verdict::NotMade(format!(
                    "the honest retry did not complete ({}), so there was nothing to repeat",
                    one_line(&response)
                ))),
            },
            Stage::Judging => {
                let v = match classify(&response) {
                    Answered::Error(e) => Verdict::Refused {
                        code: e.code,
                        message: e.message,
                    },
                    Answered::InputRequired(_) => Verdict::AskedAgain,
                    Answered::Complete(_) => Verdict::Accepted,
                    Answered::Malformed(why) => Verdict::Failed(Failure::Protocol(why)),
                };
                self.finish(v)
            }
            Stage::Done(v) => self.finish(v),
        }
    }

    /// The server answered the minting call: build the move's request from the honest retry.
    fn misuse(&mut self, response: &Value) -> Option<Request> {
        let ticket = match handed_ticket(response) {
            Ok(t) => t,
            Err(why) => return self.finish(Verdict::NotMade(why)),
        };
        let mut host = AgreeableHost::default();
        let Step::Retry(honest) = self.client.on_response(&mut self.call, response, &mut host)
        else {
            return self.finish(Verdict::NotMade(
                "the lab's client would not retry this answer".into(),
            ));
        };
        let (msg, token, what) = match self.misused(honest, &ticket) {
            Ok(m) => m,
            Err(why) => return self.finish(Verdict::NotMade(why)),
        };
        self.changed = Some(what);
        // Sending twice sends the honest retry first, then (once answered) again.
        self.stage = match self.mv {
            Move::Twice => Stage::FirstOfTwo(msg.clone()),
            _ => Stage::Judging,
        };
        Some(self.send(&msg, token))
    }

    /// The move's request, made from the `honest` retry carrying `ticket`: the message, the
    /// token it is sent with, and what changed, in words; or why the move cannot be made.
    fn misused(&self, mut honest: Value, ticket: &str) -> Result<(Value, String, String), String> {
        let token = self.form.token.clone();
        let with_ticket = |msg: &mut Value, t: &str| msg["params"]["requestState"] = json!(t);
        Ok(match self.mv {
            Move::OneCharacter => {
                let all = variants::substitutions(ticket);
                let v = all.get(all.len() / 2).ok_or("the ticket is empty")?;
                with_ticket(&mut honest, &v.ticket);
                (honest, token, v.what.clone())
            }
            Move::EditedPayload => {
                let v = variants::field_edit(ticket).ok_or(
                    "the ticket has no readable payload to edit (sealed, or a format the lab cannot read): one character changed tests the same",
                )?;
                with_ticket(&mut honest, &v.ticket);
                (honest, token, v.what)
            }
            Move::OtherCaller if self.other_token.is_empty() => {
                return Err("give a second caller's token to make this move".into())
            }
            Move::OtherCaller => (
                honest,
                self.other_token.clone(),
                "sent with the second caller's token".into(),
            ),
            Move::NoToken if token.trim().is_empty() => {
                return Err(
                    "the call itself carried no token, so sending none changes nothing".into(),
                )
            }
            Move::NoToken => (
                honest,
                String::new(),
                "sent with no Authorization header".into(),
            ),
            Move::OtherArguments => {
                let where_ = change_arguments(&mut honest["params"]["arguments"])
                    .ok_or("the call has no arguments to change")?;
                (honest, token, format!("arguments changed ({where_})"))
            }
            Move::Twice => (
                honest,
                token,
                "the honest retry, then the same retry again under a new id".into(),
            ),
        })
    }
}

/// The ticket an answer to the minting call handed out, or why there is none to misuse.
fn handed_ticket(response: &Value) -> Result<String, String> {
    match classify(response) {
        Answered::InputRequired(r) => r
            .get("requestState")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| "the server asked without a ticket (no requestState)".into()),
        Answered::Complete(_) => {
            Err("the tool finished without asking, so it handed out no ticket to misuse".into())
        }
        Answered::Error(e) => Err(format!(
            "the call that should have handed out a ticket got error {} ({})",
            e.code, e.message
        )),
        Answered::Malformed(_) => Err(
            "the call that should have handed out a ticket got an answer that is not JSON-RPC"
                .into(),
        ),
    }
}

/// Changes the first string argument (or adds one, when there is none) and says which.
fn change_arguments(args: &mut Value) -> Option<String> {
    let m = args.as_object_mut()?;
    if let Some((k, v)) = m.iter_mut().find(|(_, v)| v.is_string()) {
        let was = v.as_str().unwrap_or_default().to_owned();
        let now = if was == "staging" {
            "prod".to_owned()
        } else {
            format!("{was}-other")
        };
        *v = json!(now);
        return Some(format!("{k}: {was:?} to {now:?}"));
    }
    m.insert("other".into(), json!(true));
    Some("an argument \"other\" added".into())
}

fn one_line(v: &Value) -> String {
    match classify(v) {
        Answered::Error(e) => format!("error {}: {}", e.code, e.message),
        Answered::InputRequired(_) => "it asked again".into(),
        Answered::Complete(_) => "it completed".into(),
        Answered::Malformed(why) => why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr_core::server::{CallContext, Server};

    /// Runs `mv` against the lab's own server (the demo, with or without single use), the
    /// real HTTP answers stood in by the server's JSON replies.
    fn against(mv: Move, single_use: bool, form: &Form, other: &str) -> MoveRun {
        use mrtr_core::entropy::{FixedClock, SeededEntropy};
        use mrtr_core::ticket::{Key, Principal};
        let mut server = Server::lab(Key::new("k1", &[7u8; 32]).unwrap());
        server.config.policy.single_use = single_use;
        let clock = FixedClock(1_800_000_000_000);
        let mut entropy = SeededEntropy::new(9);
        let (mut run, mut req) = MoveRun::start(mv, form, other).unwrap();
        for _ in 0..4 {
            let bearer = format!("Bearer {}", req.token);
            let principal =
                Principal::from_bearer((!req.token.is_empty()).then_some(bearer.as_str()));
            let mut ctx = CallContext {
                principal: &principal,
                clock: &clock,
                entropy: &mut entropy,
            };
            let reply = server.handle_text(&req.bytes, &mut ctx);
            let body = reply.response.map(|r| r.to_string()).unwrap_or_default();
            let answer = Reply::Answer {
                status: reply.http_status,
                content_type: "application/json".into(),
                replica: None,
                body,
            };
            match run.on_reply(answer) {
                Some(next) => req = next,
                None => return run,
            }
        }
        panic!("{mv:?} did not finish");
    }

    fn form() -> Form {
        Form {
            token: "bob-token".into(),
            ..Form::default()
        }
    }

    #[test]
    fn the_labs_server_refuses_every_ticket_move() {
        for mv in [
            Move::OneCharacter,
            Move::EditedPayload,
            Move::OtherCaller,
            Move::NoToken,
            Move::OtherArguments,
        ] {
            let run = against(mv, false, &form(), "alice-token");
            let v = run.verdict().unwrap();
            assert!(
                matches!(v, Verdict::Refused { code: -32602, .. }),
                "{mv:?}: {v:?}"
            );
            assert!(v.held());
            assert!(run.changed.is_some(), "{mv:?}");
            assert_eq!(run.sent.len(), 2, "{mv:?}: a fresh call, then the move");
        }
    }

    #[test]
    fn twice_is_refused_only_with_single_use() {
        let run = against(Move::Twice, true, &form(), "");
        assert!(
            matches!(run.verdict(), Some(Verdict::Refused { .. })),
            "{:?}",
            run.verdict()
        );
        assert_eq!(run.sent.len(), 3);
        let run = against(Move::Twice, false, &form(), "");
        assert_eq!(run.verdict(), Some(&Verdict::Accepted));
        assert!(!run.verdict().unwrap().held());
    }

    #[test]
    fn a_move_that_cannot_be_made_says_why() {
        let run = against(Move::OtherCaller, false, &form(), "");
        assert!(
            matches!(run.verdict(), Some(Verdict::NotMade(w)) if w.contains("second caller's token"))
        );
        let no_token = Form {
            token: String::new(),
            ..Form::default()
        };
        let run = against(Move::NoToken, false, &no_token, "");
        assert!(matches!(run.verdict(), Some(Verdict::NotMade(_))));
    }

    #[test]
    fn other_arguments_change_the_first_string() {
        let mut a = json!({"env": "staging", "n": 1});
        assert_eq!(
            change_arguments(&mut a).as_deref(),
            Some("env: \"staging\" to \"prod\"")
        );
        assert_eq!(a["env"], "prod");
        let mut b = json!({"n": 1});
        assert!(change_arguments(&mut b).is_some());
        assert_eq!(b["other"], true);
    }
}
