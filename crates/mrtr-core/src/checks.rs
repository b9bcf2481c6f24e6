//! The checks a server runs on a returned ticket, in the lesson's order, stopping at the
//! first failure: signature → principal → expiry → request → answer → single use.
//!
//! A retry that lacks an answer (or answers a key with another kind of result than the one
//! asked) is not refused: the answer check records it as unanswered, single use looks the
//! ticket up without spending it (a spent ticket is refused), and the server asks again.
//! Spending happens only once the work is done, in the server.
//!
//! Every outcome is kept (passed / failed with the reason / not reached / turned off) so a
//! reader can show each one and the server can log the detail; the wire only ever sees the
//! uniform -32602.

use serde_json::Value;

use crate::canonical::arguments_digest;
use crate::redemption::{Lookup, RedemptionStore};
use crate::ticket::{read_unverified, Claims, Codec, OpenError, Principal, Seal};

/// How far into the future an issued-at may lie (clock skew between replicas).
pub const MAX_CLOCK_SKEW_S: u64 = 60;

/// One of the checks on a returned ticket, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    /// The ticket opens under a key of the ring: this server minted it, unaltered.
    Signature,
    /// It is bound to the principal now calling.
    Principal,
    /// It has not expired, and was not issued in the future (beyond [`MAX_CLOCK_SKEW_S`]).
    Expiry,
    /// It belongs to this request: same method, target and arguments.
    Request,
    /// The retry answers every key the ticket waits for, each with the kind asked.
    Answer,
    /// It has not been redeemed before.
    SingleUse,
}

impl Check {
    /// Every check, in the order they run.
    pub const ALL: [Check; 6] = [
        Check::Signature,
        Check::Principal,
        Check::Expiry,
        Check::Request,
        Check::Answer,
        Check::SingleUse,
    ];

    /// A stable name for URLs, logs and tests.
    pub fn id(self) -> &'static str {
        match self {
            Check::Signature => "signature",
            Check::Principal => "principal",
            Check::Expiry => "expiry",
            Check::Request => "request",
            Check::Answer => "answer",
            Check::SingleUse => "single-use",
        }
    }

    /// The check whose [`Check::id`] is `s`; `None` for any other text.
    pub fn from_id(s: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|c| c.id() == s)
    }
}

/// Why a check failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The signature check: the ticket could not be opened, for this reason.
    Unopened(OpenError),
    /// The principal check: bound to someone other than the caller.
    WrongPrincipal {
        /// Who the ticket is bound to.
        bound: Principal,
        /// Who sent it.
        caller: Principal,
    },
    /// The expiry check: now is at or past `exp`.
    Expired {
        /// The ticket's expiry, seconds.
        exp: u64,
        /// The server's time, seconds.
        now: u64,
    },
    /// The expiry check: `iat` is more than [`MAX_CLOCK_SKEW_S`] after now.
    IssuedInFuture {
        /// The ticket's issued-at, seconds.
        iat: u64,
        /// The server's time, seconds.
        now: u64,
    },
    /// The request check: minted for another method.
    WrongMethod {
        /// The method in the ticket.
        bound: String,
        /// The retry's method.
        got: String,
    },
    /// The request check: minted for another tool, prompt or resource.
    WrongTarget {
        /// The target in the ticket.
        bound: String,
        /// The retry's target.
        got: String,
    },
    /// The request check: the retry's arguments digest differently.
    WrongArguments,
    /// The single-use check: the ticket was redeemed before.
    AlreadyRedeemed,
    /// The single-use check: the ticket was minted before the memory of redemptions began
    /// (it was lost: a restart, a store that forgot), which cannot tell whether it was spent.
    BeforeMemory,
    /// The redemption store is full of unexpired ids and will not forget one (fail closed).
    StoreFull,
    /// The redemption store did not answer, or there is none (fail closed).
    StoreUnavailable,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Unopened(e) => write!(f, "{e}"),
            Refusal::WrongPrincipal { bound, caller } => {
                write!(f, "ticket is bound to {bound}, but the caller is {caller}")
            }
            Refusal::Expired { exp, now } => {
                write!(
                    f,
                    "ticket expired at {exp} s; it is now {now} s ({} s late)",
                    now.saturating_sub(*exp)
                )
            }
            Refusal::IssuedInFuture { iat, now } => {
                write!(
                    f,
                    "ticket claims to be issued at {iat} s, after now ({now} s)"
                )
            }
            Refusal::WrongMethod { bound, got } => {
                write!(f, "ticket belongs to {bound}, not {got}")
            }
            Refusal::WrongTarget { bound, got } => {
                write!(f, "ticket belongs to {bound:?}, not {got:?}")
            }
            Refusal::WrongArguments => write!(f, "ticket belongs to different arguments"),
            Refusal::AlreadyRedeemed => write!(f, "ticket was already redeemed"),
            Refusal::BeforeMemory => write!(
                f,
                "ticket was minted before the memory of redemptions began, so it cannot tell whether it was spent"
            ),
            Refusal::StoreFull => write!(f, "redemption store is full; refusing to forget"),
            Refusal::StoreUnavailable => {
                write!(
                    f,
                    "redemption store did not answer; refusing rather than guessing"
                )
            }
        }
    }
}

/// One check's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// The check ran and the ticket passed it.
    Passed,
    /// The check ran and refused the ticket, for this reason; the later checks do not run.
    Failed(Refusal),
    /// The retry did not answer these keys: not a refusal, the server asks again.
    Unanswered {
        /// The keys still waiting for an answer of their kind.
        keys: Vec<String>,
    },
    /// An earlier check failed, so this one never ran.
    NotReached,
    /// The server has this check turned off.
    Off,
}

/// A check and how it went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckOutcome {
    /// Which check.
    pub check: Check,
    /// How it went.
    pub status: Status,
}

/// Which checks a server runs. The page turns them off to show what each one is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CheckPolicy {
    /// Run [`Check::Signature`]; off, a signed ticket's payload is read unverified (a sealed
    /// one is still opened with the key).
    pub signature: bool,
    /// Run [`Check::Principal`].
    pub principal: bool,
    /// Run [`Check::Expiry`].
    pub expiry: bool,
    /// Run [`Check::Request`].
    pub request: bool,
    /// Run [`Check::Answer`].
    pub answer: bool,
    /// Run [`Check::SingleUse`] and spend each ticket once its work is done.
    pub single_use: bool,
}

impl Default for CheckPolicy {
    /// Everything the spec asks for on every ticket; single use is the server's choice.
    fn default() -> Self {
        CheckPolicy {
            signature: true,
            principal: true,
            expiry: true,
            request: true,
            answer: true,
            single_use: false,
        }
    }
}

impl CheckPolicy {
    /// Whether this policy runs `check`.
    pub fn runs(&self, check: Check) -> bool {
        match check {
            Check::Signature => self.signature,
            Check::Principal => self.principal,
            Check::Expiry => self.expiry,
            Check::Request => self.request,
            Check::Answer => self.answer,
            Check::SingleUse => self.single_use,
        }
    }

    /// Turns `check` on or off.
    pub fn set(&mut self, check: Check, on: bool) {
        match check {
            Check::Signature => self.signature = on,
            Check::Principal => self.principal = on,
            Check::Expiry => self.expiry = on,
            Check::Request => self.request = on,
            Check::Answer => self.answer = on,
            Check::SingleUse => self.single_use = on,
        }
    }
}

/// The request a ticket came back on.
#[derive(Clone, Debug)]
pub struct Presented<'a> {
    /// The `requestState` as sent.
    pub ticket: &'a str,
    /// Who sent the retry.
    pub principal: &'a Principal,
    /// The retry's method.
    pub method: &'a str,
    /// The retry's tool or prompt name, or resource uri.
    pub target: &'a str,
    /// The retry's arguments.
    pub arguments: &'a Value,
    /// Keys of the valid `inputResponses` entries, each with the method it answers.
    pub answered: &'a [(String, &'static str)],
    /// The server's time, seconds.
    pub now_s: u64,
}

/// Every check's outcome, and the claims when the ticket could be opened.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// One outcome per check, in [`Check::ALL`]'s order.
    pub outcomes: Vec<CheckOutcome>,
    /// The claims, if the ticket opened (or was read, with the signature check off).
    pub claims: Option<Claims>,
}

impl Verdict {
    /// True when no check failed and nothing is left unanswered: the handler finishes the
    /// work the ticket carries.
    pub fn accepted(&self) -> bool {
        self.first_failure().is_none() && self.unanswered().is_none()
    }

    /// The keys a retry left unanswered, when that is all that stands in the way: the
    /// server asks again (this is not a refusal).
    pub fn unanswered(&self) -> Option<&[String]> {
        if self.first_failure().is_some() {
            return None;
        }
        self.outcomes.iter().find_map(|o| match &o.status {
            Status::Unanswered { keys } => Some(keys.as_slice()),
            _ => None,
        })
    }

    /// The check that refused the ticket, with why; `None` if none did.
    pub fn first_failure(&self) -> Option<(Check, &Refusal)> {
        self.outcomes.iter().find_map(|o| match &o.status {
            Status::Failed(r) => Some((o.check, r)),
            _ => None,
        })
    }

    /// The outcome of `check`; `None` only if the verdict has no outcome for it.
    pub fn status(&self, check: Check) -> Option<&Status> {
        self.outcomes
            .iter()
            .find(|o| o.check == check)
            .map(|o| &o.status)
    }
}

/// Runs the checks in order, recording nothing: single use only looks the flow up.
pub fn verify(
    codec: &Codec,
    presented: &Presented<'_>,
    policy: &CheckPolicy,
    store: Option<&dyn RedemptionStore>,
) -> Verdict {
    let mut v = Outcomes::default();
    let (signature, claims) = open_ticket(codec, presented, policy);
    v.record(Check::Signature, signature);
    let c = claims.as_ref();
    v.record(
        Check::Principal,
        gate(policy.principal, c.map(|c| principal_check(c, presented))),
    );
    v.record(
        Check::Expiry,
        gate(policy.expiry, c.map(|c| expiry_check(c, presented))),
    );
    v.record(
        Check::Request,
        gate(policy.request, c.map(|c| request_check(c, presented))),
    );
    // A missing answer is not a failure: it is recorded as unanswered and the later checks
    // still run, so a spent ticket cannot come back as a fresh question.
    let answer = answer_status(c, presented, policy.answer, v.failed);
    v.push(Check::Answer, answer);
    // Single use last, so that a refused retry never burns the ticket. The checks only look
    // the flow up: a spent flow is refused here, before any handler runs. Spending is the
    // server's, once the handler has finished the work (see `Server::call`): a retry that is
    // asked again, for whatever reason, spends nothing.
    let single = match (c, v.failed || !policy.single_use) {
        (Some(c), false) => Some(single_use_check(c, presented, store)),
        // Off, or not reached: `record` says which.
        _ => None,
    };
    v.record(Check::SingleUse, gate(policy.single_use, single));
    Verdict {
        outcomes: v.list,
        claims,
    }
}

/// The outcomes of one verification, in the order the checks ran: a check after a failure is
/// not reached.
#[derive(Default)]
struct Outcomes {
    list: Vec<CheckOutcome>,
    failed: bool,
}

impl Outcomes {
    /// Records a check's result (`None`: the check is off).
    fn record(&mut self, check: Check, result: Option<Result<(), Refusal>>) {
        let status = status_of(result, &mut self.failed);
        self.push(check, status);
    }

    fn push(&mut self, check: Check, status: Status) {
        self.list.push(CheckOutcome { check, status });
    }
}

/// The signature check, and the claims when the ticket opened. A sealed ticket cannot be read
/// without its key, so switching the check off changes nothing for it.
fn open_ticket(
    codec: &Codec,
    presented: &Presented<'_>,
    policy: &CheckPolicy,
) -> (Option<Result<(), Refusal>>, Option<Claims>) {
    let sealed = presented.ticket.starts_with("v1e.");
    let opened = if policy.signature || codec.seal == Seal::Sealed || sealed {
        codec.open(presented.ticket)
    } else {
        read_unverified(presented.ticket)
    };
    match opened {
        Ok(c) => ((policy.signature || sealed).then_some(Ok(())), Some(c)),
        Err(e) => (Some(Err(Refusal::Unopened(e))), None),
    }
}

fn principal_check(c: &Claims, presented: &Presented<'_>) -> Result<(), Refusal> {
    let bound = c.principal();
    if &bound == presented.principal {
        Ok(())
    } else {
        Err(Refusal::WrongPrincipal {
            bound,
            caller: presented.principal.clone(),
        })
    }
}

fn expiry_check(c: &Claims, presented: &Presented<'_>) -> Result<(), Refusal> {
    let now = presented.now_s;
    if now >= c.exp {
        Err(Refusal::Expired { exp: c.exp, now })
    } else if c.iat > now + MAX_CLOCK_SKEW_S {
        Err(Refusal::IssuedInFuture { iat: c.iat, now })
    } else {
        Ok(())
    }
}

fn request_check(c: &Claims, presented: &Presented<'_>) -> Result<(), Refusal> {
    if c.method != presented.method {
        Err(Refusal::WrongMethod {
            bound: c.method.clone(),
            got: presented.method.to_owned(),
        })
    } else if c.target != presented.target {
        Err(Refusal::WrongTarget {
            bound: c.target.clone(),
            got: presented.target.to_owned(),
        })
    } else if c.args != arguments_digest(presented.arguments) {
        Err(Refusal::WrongArguments)
    } else {
        Ok(())
    }
}

/// The answer check: off, passed (every key the ticket awaits answered, by an entry of the
/// kind asked there), or unanswered with the keys still open. It runs even after an earlier
/// failure only to say not reached; it never fails.
fn answer_status(c: Option<&Claims>, presented: &Presented<'_>, on: bool, failed: bool) -> Status {
    match (c, on, failed) {
        (_, false, _) => Status::Off,
        (_, true, true) => Status::NotReached,
        (None, true, false) => Status::Passed,
        (Some(c), true, false) => {
            // A sampling-shaped or roots-shaped entry under a form's key is no answer at all.
            let keys: Vec<String> = c
                .awaits
                .iter()
                .filter(|(k, m)| {
                    !presented
                        .answered
                        .iter()
                        .any(|(ak, am)| ak == *k && am == m)
                })
                .map(|(k, _)| k.clone())
                .collect();
            if keys.is_empty() {
                Status::Passed
            } else {
                Status::Unanswered { keys }
            }
        }
    }
}

/// Whether the flow was spent already, by the memory of redemptions (none: unavailable).
fn single_use_check(
    c: &Claims,
    presented: &Presented<'_>,
    store: Option<&dyn RedemptionStore>,
) -> Result<(), Refusal> {
    match store.map(|s| s.lookup(&c.tid, presented.now_s)) {
        Some(Lookup::NotRedeemed) => Ok(()),
        Some(Lookup::Redeemed) => Err(Refusal::AlreadyRedeemed),
        Some(Lookup::Unavailable) | None => Err(Refusal::StoreUnavailable),
    }
}

/// A check's status from its result: off, not reached after a failure, passed or failed.
fn status_of(result: Option<Result<(), Refusal>>, failed: &mut bool) -> Status {
    match result {
        // A check that is off shows as off, whether or not an earlier one failed.
        None => Status::Off,
        Some(_) if *failed => Status::NotReached,
        Some(Ok(())) => Status::Passed,
        Some(Err(r)) => {
            *failed = true;
            Status::Failed(r)
        }
    }
}

/// `None` (off) when the policy skips the check; otherwise the result, with "could not
/// open the ticket" already recorded as the signature failure.
fn gate(on: bool, r: Option<Result<(), Refusal>>) -> Option<Result<(), Refusal>> {
    if !on {
        return None;
    }
    Some(r.unwrap_or(Ok(())))
}
