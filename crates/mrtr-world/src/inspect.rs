//! The ticket inspector: a ticket taken apart (prefix, payload, signature), its payload
//! decoded field by field with the characters that encode each field, and a live verdict
//! from replica B for the honest retry carrying it. Nothing is ever re-signed.

use std::ops::Range;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use mrtr_core::checks::{Check, CheckPolicy, Status};
use mrtr_core::ticket::{anatomy, payload_text, rewrite_payload, OpenError, Seal};
use mrtr_core::Verdict;
use serde_json::Value;

use crate::actor::Replica;
use crate::knobs::Knobs;
use crate::setup::{bob, judge, mint, with_ticket, Flow, Harm, RequestOutcome};
use crate::world::{replica_codec, EPOCH_S};

/// A part of a ticket, as the inspector colours it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// `v1.` or `v1e.`.
    Prefix,
    /// A signed ticket's base64url JSON payload.
    Payload,
    /// A signed ticket's MAC.
    Signature,
    /// A sealed ticket's body: nonce, ciphertext and tag.
    Sealed,
}

impl Part {
    /// What the part is, in words, for the inspector's legend.
    pub fn label(self) -> &'static str {
        match self {
            Part::Prefix => "version",
            Part::Payload => "payload (base64url of JSON: readable by anyone)",
            Part::Signature => "signature (HMAC-SHA256 of version and payload)",
            Part::Sealed => "sealed payload (ChaCha20-Poly1305: unreadable without the key)",
        }
    }
}

/// One claim of the payload.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The claim's name (`tid`, `exp`, …).
    pub key: String,
    /// The value as JSON text.
    pub value: String,
    /// What the field is for, and what replica B does with it under this run's checks.
    pub explanation: String,
    /// Extra reading of the value (times as dates, relative to the retry).
    pub reading: Option<String>,
    /// The characters of the ticket that encode this field.
    pub chars: Range<usize>,
}

/// A ticket taken apart, with what replica B makes of the honest retry carrying it.
#[derive(Clone, Debug, PartialEq)]
pub struct Inspection {
    /// The ticket inspected.
    pub ticket: String,
    /// Its parts, each with the characters it spans.
    pub parts: Vec<(Part, Range<usize>)>,
    /// The decoded payload, as far as it decodes.
    pub payload: Option<String>,
    /// The payload's top-level claims, in order, as far as they can be read (none for a
    /// sealed ticket).
    pub fields: Vec<Field>,
    /// Where the ticket stops making sense, if it does.
    pub problem: Option<String>,
    /// B's checks on the ticket.
    pub verdict: Verdict,
    /// B's response to the retry.
    pub response: Value,
    /// What the retry came to.
    pub outcome: RequestOutcome,
    /// What went wrong, when B did work bob never confirmed.
    pub harm: Option<Harm>,
    /// The outcome in plain words.
    pub answer: String,
    /// The first failed check and its reason, as B's log has it.
    pub detail: Option<String>,
    /// When the retry is sent: t on the world's clock, in seconds (A minted at t = 0).
    pub at_s: u64,
    /// A signed ticket's signature, beside the one replica B computes for its payload.
    pub signature: Option<SignatureCheck>,
    /// The characters that differ from bob's own ticket (one run, between the longest common
    /// start and end); `None` when it is bob's ticket.
    pub changed: Option<Range<usize>>,
}

/// The signature a ticket carries, and the one replica B computes for the payload it
/// carries: the signature check passes only when they are equal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureCheck {
    /// The signature the ticket carries, as its text.
    pub carried: String,
    /// `Err` says why B cannot compute one (an unknown key id, a payload that does not decode).
    pub computed: Result<String, String>,
}

impl SignatureCheck {
    /// True when B's computed signature equals the carried one.
    pub fn matches(&self) -> bool {
        self.computed.as_deref() == Ok(self.carried.as_str())
    }

    /// What the comparison means for this retry, read off the verdict B gave it: whether B
    /// refused the ticket for it, or, its signature check off, let it through.
    pub fn meaning(&self, verdict: &Verdict) -> &'static str {
        let status = verdict.status(Check::Signature);
        match (self.matches(), status) {
            (true, _) => "They match: nobody changed the payload since a replica signed it.",
            (false, Some(Status::Failed(_))) => "They differ: the payload is not the one a key holder signed, so B refuses the ticket.",
            (false, Some(Status::Off)) => "They differ: the payload is not the one a key holder signed. But B's signature check is off, so B does not compare them and does not refuse the ticket for it.",
            (false, _) => "They differ: the payload is not the one a key holder signed.",
        }
    }
}

/// The run of `new`'s characters that differ from `old`: what lies between their longest
/// common start and longest common end.
pub fn changed_run(old: &str, new: &str) -> Option<Range<usize>> {
    if old == new {
        return None;
    }
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let max_end = a.len().min(b.len()) - start;
    let end = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_end)
        .take_while(|(x, y)| x == y)
        .count();
    Some(start..b.len() - end)
}

/// A decoded field of a signed ticket set to `value` (`pointer` as in JSON Pointer, e.g.
/// `/state/env`), the payload re-encoded and the old signature kept: the edit a client can
/// make. `None` if the ticket is sealed or its payload is not JSON.
pub fn edit_claim(ticket: &str, pointer: &str, value: Value) -> Option<String> {
    let text = payload_text(ticket).ok()?;
    let mut v: Value = serde_json::from_str(&text).ok()?;
    *v.pointer_mut(pointer)? = value;
    let edited = serde_json::to_string(&v).ok()?;
    rewrite_payload(ticket, |_| edited).ok()
}

/// A claim the inspector lets the reader change by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Editable {
    /// Where the handler's work deploys (`state.env`).
    Env,
    /// The principal (`sub`).
    Sub,
    /// The expiry (`exp`), edited as `t`, seconds on the world's clock.
    Exp,
}

impl Editable {
    /// Every editable claim, in the order the inspector lists them.
    pub const ALL: [Editable; 3] = [Editable::Env, Editable::Sub, Editable::Exp];

    /// Its name in markup (`data-claim`).
    pub fn id(self) -> &'static str {
        match self {
            Editable::Env => "env",
            Editable::Sub => "sub",
            Editable::Exp => "exp",
        }
    }

    /// Its label beside the box.
    pub fn label(self) -> &'static str {
        match self {
            Editable::Env => "state.env ",
            Editable::Sub => "sub (the principal) ",
            Editable::Exp => "exp, as t in seconds ",
        }
    }

    /// True when its box takes a number.
    pub fn numeric(self) -> bool {
        self == Editable::Exp
    }

    fn pointer(self) -> &'static str {
        match self {
            Editable::Env => "/state/env",
            Editable::Sub => "/sub",
            Editable::Exp => "/exp",
        }
    }

    /// What its box shows for a payload: the text, or `None` for an `exp` past what the
    /// inspector shows (up to `u64::MAX`: marked out of range, never a wrapped number). A
    /// missing or unreadable text reads empty; a missing or unreadable `exp`, as t = 0.
    fn shown(self, claims: &Value) -> Option<String> {
        let v = claims.pointer(self.pointer());
        match self {
            Editable::Exp => v
                .and_then(Value::as_u64)
                .map_or(Some(0), lab_t)
                .map(|t| t.to_string()),
            _ => Some(v.and_then(Value::as_str).unwrap_or("").to_owned()),
        }
    }

    /// The claim's new JSON value for what the reader typed: text as it is, `exp` from `t`
    /// (clamped at 0 s since 1970); `None` when the box holds no whole number.
    fn value(self, typed: &str) -> Option<Value> {
        match self {
            Editable::Exp => {
                let t = typed.trim().parse::<i64>().ok()?;
                Some(Value::from((EPOCH_S as i64).saturating_add(t).max(0)))
            }
            _ => Some(Value::from(typed)),
        }
    }
}

/// One editable claim and what its box shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditableClaim {
    /// Which claim.
    pub claim: Editable,
    /// What its box shows; `None` for an `exp` past what the inspector shows (marked out of
    /// range).
    pub shown: Option<String>,
}

impl Inspection {
    /// The claims the reader may edit, as their boxes show them; none when the payload is
    /// not readable JSON (a sealed ticket, a broken one).
    pub fn editable(&self) -> Vec<EditableClaim> {
        let Some(claims) = self
            .payload
            .as_deref()
            .and_then(|p| serde_json::from_str::<Value>(p).ok())
        else {
            return Vec::new();
        };
        Editable::ALL
            .into_iter()
            .map(|claim| EditableClaim {
                claim,
                shown: claim.shown(&claims),
            })
            .collect()
    }
}

/// `ticket` with `claim` set to what the reader typed in its box, the signature kept (edits
/// are verified, never re-signed); `None` when the text does not fit the claim or the ticket
/// has no readable payload.
pub fn edit(ticket: &str, claim: Editable, typed: &str) -> Option<String> {
    edit_claim(ticket, claim.pointer(), claim.value(typed)?)
}

/// What a claim is for, and what a replica running `policy` does with it: a claim whose check
/// is off says so, never that the replica refuses what it lets through.
pub fn explain_claim(key: &str, policy: &CheckPolicy) -> String {
    let on = |c: Check| policy.runs(c);
    let text = match key {
        "v" => "Claims format version.",
        "kid" => "Which key signed it. Servers keep old keys to verify while rotating; the newest signs.",
        "tid" if policy.single_use => "Ticket id: what the single-use memory records, so that the ticket is redeemed once.",
        "tid" => "Ticket id: what a single-use memory would record. Single use is off, so B remembers nothing.",
        "iat" => "Issued at, in Unix seconds.",
        "exp" if on(Check::Expiry) => "Expires at, in Unix seconds: refused from this second on.",
        "exp" => "Expires at, in Unix seconds. B's expiry check is off, so B accepts the ticket after this second too.",
        "sub" if on(Check::Principal) => "The principal the ticket is bound to. A retry carrying anyone else's token is refused.",
        "sub" => "The principal the ticket is bound to. B's principal check is off, so B accepts this ticket with anyone's token.",
        "method" => "The method of the request it belongs to.",
        "target" => "The tool (or prompt, or resource) it belongs to.",
        "args" if on(Check::Request) => "A digest of the arguments: SHA-256 of their canonical JSON, first 16 bytes. Any change of value changes it, and a retry with other arguments is refused.",
        "args" => "A digest of the arguments: SHA-256 of their canonical JSON, first 16 bytes. Any change of value changes it, but B's request check is off, so B does not compare it with the retry's.",
        "awaits" if on(Check::Answer) => "The questions it waits for: the retry must answer each one, or the server asks again.",
        "awaits" => "The questions it waits for. B's answer check is off, so B does not hold the retry to answering them.",
        "state" => "The handler's own half-done work: where to deploy, and the release it looked up on the first call, which the retry does not send again.",
        _ => "Not a field this server writes.",
    };
    text.to_owned()
}

/// Top-level `"key": value` spans of a JSON object's text, as byte ranges. Works on damaged
/// text too, as far as it goes.
pub fn top_level_spans(json: &str) -> Vec<(String, Range<usize>)> {
    let b = json.as_bytes();
    let (mut spans, mut depth, mut in_str, mut esc) = (Vec::new(), 0usize, false, false);
    let (mut expecting_key, mut reading_key) = (false, false);
    let (mut start, mut key): (Option<usize>, Option<String>) = (None, None);
    for (i, &c) in b.iter().enumerate() {
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
                if reading_key {
                    reading_key = false;
                    key = start.map(|s| String::from_utf8_lossy(&b[s + 1..i]).into_owned());
                }
            }
            continue;
        }
        match c {
            b'"' => {
                in_str = true;
                if depth == 1 && expecting_key {
                    reading_key = true;
                    expecting_key = false;
                    start = Some(i);
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth == 1 {
                    expecting_key = true;
                }
            }
            b'}' | b']' => {
                if depth == 1 {
                    if let (Some(s), Some(k)) = (start.take(), key.take()) {
                        spans.push((k, s..i));
                    }
                }
                depth = depth.saturating_sub(1);
            }
            b',' if depth == 1 => {
                if let (Some(s), Some(k)) = (start.take(), key.take()) {
                    spans.push((k, s..i));
                }
                expecting_key = true;
            }
            _ => {}
        }
    }
    if let (Some(s), Some(k)) = (start, key) {
        spans.push((k, s..b.len()));
    }
    spans
}

/// The base64 characters (relative to the encoded text) that carry bytes `r` of the decoded
/// data: 3 bytes travel in 4 characters.
pub fn base64_chars(r: &Range<usize>, encoded_len: usize) -> Range<usize> {
    let start = r.start / 3 * 4;
    let end = (r.end.div_ceil(3) * 4).min(encoded_len);
    start..end.max(start)
}

/// The latest time shown as a date: the last second of the year 9999. A ticket may claim any
/// number (up to `u64::MAX`, past what an `i64` holds); later ones read as out of range.
pub const LATEST_SHOWN_S: u64 = 253_402_300_799;

/// What an `iat` or `exp` the inspector cannot show as a time reads.
pub const OUT_OF_RANGE: &str =
    "out of range: not a time this inspector shows (whole seconds up to 9999-12-31)";

/// A Unix time as `YYYY-MM-DD HH:MM:SS UTC` (days-from-civil, no calendar crate needed), or
/// "out of range" after [`LATEST_SHOWN_S`].
pub fn utc(secs: u64) -> String {
    if secs > LATEST_SHOWN_S {
        return "out of range (after 9999-12-31)".to_owned();
    }
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A claimed Unix time on the world's clock (`t`, seconds from the first call), or `None`
/// when it is past [`LATEST_SHOWN_S`]: what the inspector's `exp` box shows.
pub fn lab_t(secs: u64) -> Option<i64> {
    (secs <= LATEST_SHOWN_S).then(|| secs as i64 - EPOCH_S as i64)
}

/// How the inspector reads an `iat` or `exp` claim (its JSON text) for a retry at `at_s`:
/// its date, its `t`, and how far it is from the retry. A number that is not a time it can
/// show (negative, fractional, past the year 9999, past `u64`) reads [`OUT_OF_RANGE`];
/// anything else (a string, broken JSON) has no reading.
pub fn time_reading(value: &str, at_s: u64) -> Option<String> {
    let n: serde_json::Number = serde_json::from_str(value).ok()?;
    let Some(t) = n.as_u64().filter(|t| *t <= LATEST_SHOWN_S) else {
        return Some(OUT_OF_RANGE.to_owned());
    };
    let rel = i128::from(t) - i128::from(EPOCH_S) - i128::from(at_s);
    let when = if rel >= 0 {
        format!("in {rel} s")
    } else {
        format!("{} s ago", -rel)
    };
    Some(format!(
        "{} (t = {} s; {when} at the retry)",
        utc(t),
        i128::from(t) - i128::from(EPOCH_S)
    ))
}

fn describe_problem(e: &OpenError, ticket: &str) -> String {
    match e {
        OpenError::BadCharacter { at } => {
            let c = ticket[*at..].chars().next().unwrap_or('?');
            format!(
                "character {} ({c:?}) is not allowed: tickets use only base64url letters and dots",
                at + 1
            )
        }
        other => other.to_string(),
    }
}

/// Takes `ticket` apart and has replica B judge the honest retry carrying it at `at_s`.
pub fn inspect(knobs: Knobs, ticket: &str, at_s: u64) -> Option<Inspection> {
    let m = mint(knobs)?;
    let mut w = m.world;
    let mut flow = Flow::of(&m.claims);
    let judgement = judge(
        &mut w,
        &mut flow,
        Replica::B,
        &bob(),
        at_s,
        &with_ticket(&m.retry, ticket),
    );

    let TakenApart {
        parts,
        payload,
        fields,
        problem,
    } = take_apart(ticket, at_s, &knobs.policy(Replica::B));
    let signature = anatomy(ticket).ok().and_then(|a| {
        let mac = a.mac?;
        Some(SignatureCheck {
            carried: ticket[mac].to_owned(),
            computed: replica_codec(&knobs, Replica::B)
                .expected_signature(ticket)
                .map_err(|e| e.to_string()),
        })
    });
    let changed = changed_run(&m.ticket, ticket);
    Some(Inspection {
        signature,
        changed,
        ticket: ticket.to_owned(),
        parts,
        payload,
        fields,
        problem,
        outcome: judgement.outcome,
        harm: judgement.harm,
        answer: judgement.answer,
        detail: judgement.detail,
        verdict: judgement.verdict,
        response: judgement.response,
        at_s,
    })
}

/// A ticket in its parts, its payload read as far as it reads, and what stopped the reading.
struct TakenApart {
    parts: Vec<(Part, std::ops::Range<usize>)>,
    payload: Option<String>,
    fields: Vec<Field>,
    problem: Option<String>,
}

/// Takes `ticket` apart: its prefix, its sealed body or its payload and signature, and (for a
/// payload) its claims, each explained under B's `policy` with times read at `at_s`.
fn take_apart(ticket: &str, at_s: u64, policy: &CheckPolicy) -> TakenApart {
    let mut t = TakenApart {
        parts: Vec::new(),
        payload: None,
        fields: Vec::new(),
        problem: None,
    };
    let a = match anatomy(ticket) {
        Err(e) => {
            t.problem = Some(describe_problem(&e, ticket));
            return t;
        }
        Ok(a) => a,
    };
    t.parts.push((Part::Prefix, a.prefix.clone()));
    if a.seal == Some(Seal::Sealed) {
        t.parts.push((Part::Sealed, a.body.clone()));
        return t;
    }
    t.parts.push((Part::Payload, a.body.clone()));
    if let Some(mac) = &a.mac {
        t.parts.push((Part::Signature, mac.clone()));
    }
    let body = &ticket[a.body.clone()];
    // Decode as much as decodes: whole 4-character groups, then the rest.
    let whole = body.len() / 4 * 4;
    let mut bytes = URL_SAFE_NO_PAD.decode(&body[..whole]).unwrap_or_default();
    match URL_SAFE_NO_PAD.decode(body) {
        Ok(all) => bytes = all,
        Err(_) => {
            t.problem = Some(format!(
                "the payload is not canonical base64url after character {}",
                a.body.start + bytes.len() / 3 * 4
            ))
        }
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if t.problem.is_none() {
        if let Err(e) = serde_json::from_str::<Value>(&text) {
            t.problem = Some(format!(
                "the payload decodes, but its JSON breaks at column {}: {e}",
                e.column()
            ));
        }
    }
    for (key, span) in top_level_spans(&text) {
        let value = text[span.clone()]
            .split_once(':')
            .map(|(_, v)| v.trim().to_owned())
            .unwrap_or_default();
        let reading = match key.as_str() {
            "iat" | "exp" => time_reading(&value, at_s),
            _ => None,
        };
        let c = base64_chars(&span, body.len());
        t.fields.push(Field {
            explanation: explain_claim(&key, policy),
            key,
            value,
            reading,
            chars: a.body.start + c.start..a.body.start + c.end,
        });
    }
    t.payload = Some(text);
    t
}

/// The ticket bob holds under these knobs.
pub fn minted_ticket(knobs: Knobs) -> Option<String> {
    mint(knobs).map(|m| m.ticket)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::symbols;

    #[test]
    fn the_editable_claims_are_read_and_written_here() {
        let k = Knobs::default();
        let bobs = minted_ticket(k).unwrap();
        let i = inspect(k, &bobs, 8).unwrap();
        let shown: Vec<(&str, Option<String>)> = i
            .editable()
            .into_iter()
            .map(|c| (c.claim.id(), c.shown))
            .collect();
        let ttl = k.ttl_s.to_string();
        assert_eq!(
            shown,
            [
                ("env", Some("staging".to_owned())),
                ("sub", Some("bob".to_owned())),
                ("exp", Some(ttl))
            ]
        );
        // exp is typed as t and written as Unix seconds, never below 0.
        let later = edit(&bobs, Editable::Exp, " 9999 ").unwrap();
        let j = inspect(k, &later, 8).unwrap();
        assert!(j
            .fields
            .iter()
            .any(|f| f.key == "exp" && f.value == (EPOCH_S + 9999).to_string()));
        assert_eq!(j.editable()[2].shown.as_deref(), Some("9999"));
        let before = edit(&bobs, Editable::Exp, &(-(EPOCH_S as i64) - 5).to_string()).unwrap();
        assert_eq!(
            inspect(k, &before, 8).unwrap().editable()[2]
                .shown
                .as_deref(),
            Some(&*(-(EPOCH_S as i64)).to_string())
        );
        assert_eq!(edit(&bobs, Editable::Exp, "soon"), None);
        // An exp past the year 9999 is out of range, not a wrapped number.
        let far = edit_claim(&bobs, "/exp", Value::from(u64::MAX)).unwrap();
        assert_eq!(inspect(k, &far, 8).unwrap().editable()[2].shown, None);
        // Text claims take the text as it is.
        let prod = edit(&bobs, Editable::Env, "prod").unwrap();
        assert_eq!(
            inspect(k, &prod, 8).unwrap().editable()[0].shown.as_deref(),
            Some("prod")
        );
        // A sealed ticket has nothing to edit.
        let mut sealed = k;
        sealed.seal = Seal::Sealed;
        let t = minted_ticket(sealed).unwrap();
        assert!(inspect(sealed, &t, 8).unwrap().editable().is_empty());
        assert_eq!(edit(&t, Editable::Env, "prod"), None);
    }

    /// B with its signature check off, and bob's ticket edited to prod.
    fn unsigned_b_edited_to_prod() -> Inspection {
        let mut k = Knobs::default();
        k.policy_b.signature = false;
        let edited = edit_claim(
            &minted_ticket(k).unwrap(),
            "/state/env",
            Value::from("prod"),
        );
        inspect(k, &edited.unwrap(), 8).unwrap()
    }

    #[test]
    fn with_the_signature_check_off_nothing_says_b_refuses_the_edit() {
        let i = unsigned_b_edited_to_prod();
        assert!(i.outcome.completed(), "{:?}", i.outcome);
        let sig = i.signature.as_ref().unwrap();
        assert!(!sig.matches());
        let said = sig.meaning(&i.verdict);
        assert!(!said.contains("refuses"), "{said}");
        assert!(said.contains("signature check is off"), "{said}");
        // With the check on, the same edit is refused, and the words say so.
        let k = Knobs::default();
        let edited = edit_claim(
            &minted_ticket(k).unwrap(),
            "/state/env",
            Value::from("prod"),
        );
        let i = inspect(k, &edited.unwrap(), 8).unwrap();
        assert!(!i.outcome.completed());
        assert!(i
            .signature
            .unwrap()
            .meaning(&i.verdict)
            .contains("so B refuses the ticket"));
    }

    #[test]
    fn a_claim_says_what_this_runs_replica_does_with_it() {
        let explained = |k: Knobs, key: &str| {
            let i = inspect(k, &minted_ticket(k).unwrap(), 8).unwrap();
            i.fields
                .into_iter()
                .find(|f| f.key == key)
                .unwrap()
                .explanation
        };
        let all_on = Knobs::default();
        assert!(explained(all_on, "sub").contains("anyone else's token is refused"));
        assert!(explained(all_on, "exp").contains("refused from this second on"));
        // The naive server's preset: the principal and the expiry are signed, not checked.
        let mut naive = Knobs::default();
        naive.policy_b.principal = false;
        naive.policy_b.expiry = false;
        naive.policy_b.request = false;
        naive.policy_b.answer = false;
        for key in ["sub", "exp", "args", "awaits"] {
            let e = explained(naive, key);
            assert!(!e.contains("refused"), "{key}: {e}");
            assert!(e.contains("check is off"), "{key}: {e}");
        }
        let single = Knobs {
            single_use: true,
            ..Knobs::default()
        };
        assert!(explained(single, "tid").contains("redeemed once"));
        assert!(explained(all_on, "tid").contains("Single use is off"));
    }

    #[test]
    fn editing_a_decoded_field_re_encodes_the_payload_and_keeps_the_signature() {
        let k = Knobs::default();
        let bobs = minted_ticket(k).unwrap();
        let honest = inspect(k, &bobs, 8).unwrap();
        assert!(honest.signature.as_ref().unwrap().matches());
        assert_eq!(honest.changed, None);

        let edited = edit_claim(&bobs, "/state/env", Value::from("prod")).unwrap();
        let i = inspect(k, &edited, 8).unwrap();
        let sig = i.signature.unwrap();
        assert_eq!(
            sig.carried,
            honest.signature.unwrap().carried,
            "the old signature"
        );
        assert!(!sig.matches(), "B computes another for the edited payload");
        assert_eq!(
            i.verdict.first_failure().map(|(c, _)| c),
            Some(Check::Signature)
        );
        // Only payload characters changed, and the readable payload says prod.
        let run = i.changed.unwrap();
        let payload = &i.parts.iter().find(|(p, _)| *p == Part::Payload).unwrap().1;
        assert!(
            run.start >= payload.start && run.end <= payload.end,
            "{run:?} in {payload:?}"
        );
        assert!(i.payload.unwrap().contains(r#""env":"prod""#));

        // Setting a field to its own value changes nothing; a sealed ticket cannot be edited.
        assert_eq!(edit_claim(&bobs, "/sub", Value::from("bob")).unwrap(), bobs);
        assert_eq!(edit_claim(&bobs, "/nope/deeper", Value::from(1)), None);
        let sealed = Knobs {
            seal: Seal::Sealed,
            ..Knobs::default()
        };
        assert_eq!(
            edit_claim(&minted_ticket(sealed).unwrap(), "/sub", Value::from("x")),
            None
        );
        // B with another key cannot compute bob's signature: it says why.
        let other = Knobs {
            b_key_differs: true,
            ..Knobs::default()
        };
        let i = inspect(other, &minted_ticket(other).unwrap(), 8).unwrap();
        assert!(i.signature.unwrap().computed.is_err());
    }

    #[test]
    fn changed_runs_are_the_middle_that_differs() {
        assert_eq!(changed_run("abcdef", "abcdef"), None);
        assert_eq!(changed_run("abcdef", "abXYef"), Some(2..4));
        assert_eq!(changed_run("abc", "abXc"), Some(2..3));
        assert_eq!(changed_run("abXc", "abc"), Some(2..2));
        assert_eq!(changed_run("", "x"), Some(0..1));
    }

    #[test]
    fn spans_cover_each_top_level_field() {
        let j = r#"{"a":1,"b":{"c":[1,2],"d":"x,}"},"e":"q\"}"}"#;
        let s = top_level_spans(j);
        let keys: Vec<&str> = s.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "b", "e"]);
        assert_eq!(&j[s[0].1.clone()], r#""a":1"#);
        assert_eq!(&j[s[1].1.clone()], r#""b":{"c":[1,2],"d":"x,}"}"#);
        assert_eq!(&j[s[2].1.clone()], r#""e":"q\"}""#);
        assert_eq!(top_level_spans(r#"{"a":1,"b":"#).len(), 2);
        assert!(top_level_spans("").is_empty());
    }

    #[test]
    fn base64_groups() {
        assert_eq!(base64_chars(&(0..3), 100), 0..4);
        assert_eq!(base64_chars(&(4..5), 100), 4..8);
        assert_eq!(base64_chars(&(5..10), 11), 4..11);
    }

    #[test]
    fn times_past_the_year_9999_read_out_of_range_and_never_panic() {
        assert_eq!(utc(LATEST_SHOWN_S), "9999-12-31 23:59:59 UTC");
        for t in [LATEST_SHOWN_S + 1, 1 << 63, u64::MAX] {
            assert!(utc(t).starts_with("out of range"), "{t}");
            assert_eq!(lab_t(t), None, "{t}");
        }
        assert_eq!(lab_t(EPOCH_S + 120), Some(120));
        assert_eq!(lab_t(0), Some(-(EPOCH_S as i64)));
        for v in [
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "1e30",
            "-1",
            "1.5",
            "253402300800",
        ] {
            assert_eq!(time_reading(v, 8).as_deref(), Some(OUT_OF_RANGE), "{v}");
        }
        assert_eq!(time_reading("\"soon\"", 8), None);
        assert!(time_reading("0", u64::MAX).unwrap().contains("s ago"));
        // A ticket claiming such times is taken apart and judged, its times out of range.
        let k = Knobs::default();
        let bobs = minted_ticket(k).unwrap();
        for (claim, value) in [("/exp", u64::MAX), ("/exp", 1 << 63), ("/iat", 1 << 63)] {
            let edited = edit_claim(&bobs, claim, Value::from(value)).unwrap();
            let i = inspect(k, &edited, 8).unwrap();
            let f = i.fields.iter().find(|f| f.key == claim[1..]).unwrap();
            assert_eq!(f.value, value.to_string());
            assert_eq!(f.reading.as_deref(), Some(OUT_OF_RANGE), "{claim}");
            assert!(
                !i.verdict.accepted(),
                "{claim}: the signature no longer matches"
            );
        }
    }

    #[test]
    fn dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(1_800_000_000), "2027-01-15 08:00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00:00 UTC");
    }

    #[test]
    fn the_honest_ticket_reads_and_is_accepted() {
        let t = minted_ticket(Knobs::default()).unwrap();
        let i = inspect(Knobs::default(), &t, 8).unwrap();
        assert!(i.verdict.accepted() && i.problem.is_none());
        let keys: Vec<&str> = i.fields.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "v", "kid", "tid", "iat", "exp", "sub", "method", "target", "args", "awaits",
                "state"
            ]
        );
        let sub = i.fields.iter().find(|f| f.key == "sub").unwrap();
        assert_eq!(sub.value, "\"bob\"");
        // The characters said to carry "sub" decode to text containing it.
        let chunk = &t[sub.chars.clone()];
        let decoded = String::from_utf8_lossy(&URL_SAFE_NO_PAD.decode(chunk).unwrap()).into_owned();
        assert!(decoded.contains("bob"), "{decoded}");
        let exp = i.fields.iter().find(|f| f.key == "exp").unwrap();
        assert!(
            exp.reading
                .as_deref()
                .unwrap()
                .contains("t = 120 s; in 112 s"),
            "{:?}",
            exp.reading
        );
        assert_eq!(
            i.parts.iter().map(|p| p.0).collect::<Vec<_>>(),
            [Part::Prefix, Part::Payload, Part::Signature]
        );
    }

    #[test]
    fn edits_are_refused_and_located() {
        let t = minted_ticket(Knobs::default()).unwrap();
        let mut chars: Vec<char> = t.chars().collect();
        chars[20] = if chars[20] == 'A' { 'B' } else { 'A' };
        let edited: String = chars.into_iter().collect();
        let i = inspect(Knobs::default(), &edited, 8).unwrap();
        assert_eq!(i.verdict.first_failure().unwrap().0, Check::Signature);
        assert_eq!(i.response["error"]["code"], -32602);
        let i = inspect(Knobs::default(), &format!("{}!{}", &t[..10], &t[10..]), 8).unwrap();
        assert!(i.problem.unwrap().contains("character 11"));
        let i = inspect(Knobs::default(), "v1.eyJ2IjoxLCJraWQi.abc", 8).unwrap();
        assert!(i.problem.is_some());
        assert_eq!(i.fields.first().map(|f| f.key.as_str()), Some("v"));
        for junk in ["", "v1.", "v1e.", "....", "v1.%%%.x", "v1.\u{e9}.x"] {
            let i = inspect(Knobs::default(), junk, 8).unwrap();
            assert!(!i.verdict.accepted(), "{junk:?}");
        }
    }

    #[test]
    fn sealed_tickets_hide_the_payload_but_pass_the_same_checks() {
        let k = Knobs {
            seal: Seal::Sealed,
            ..Knobs::default()
        };
        let t = minted_ticket(k).unwrap();
        let i = inspect(k, &t, 8).unwrap();
        assert!(i.payload.is_none() && i.fields.is_empty());
        assert_eq!(
            i.parts.iter().map(|p| p.0).collect::<Vec<_>>(),
            [Part::Prefix, Part::Sealed]
        );
        assert_eq!(symbols(&i.verdict), "✓✓✓✓✓");
    }
}
