//! The lesson's words for the core's checks, and which of them the page shows.
//!
//! The core names its checks and keeps every outcome; how a check is asked ("Signature
//! matches"), what it stops, and how an outcome is drawn (✓ ✗ – ? ○ and the same in words)
//! belong to the lesson, so they live here.

use mrtr_core::checks::{Check, Refusal, Status};
use mrtr_core::ticket::Seal;
use mrtr_core::Verdict;

/// The checks a reader can switch off on replica B; single use has a setting of its own.
pub fn switchable() -> impl Iterator<Item = Check> {
    Check::ALL.into_iter().filter(|c| *c != Check::SingleUse)
}

/// How the lesson asks and explains a check.
pub trait CheckWords {
    /// What the check asks of a ticket protected with `seal`, in a few words: starting with
    /// its name (`short`), except that a sealed ticket's signature check is its seal opening.
    fn question(self, seal: Seal) -> &'static str;
    /// What the check asks, for a server whose tickets may be either signed or sealed (the
    /// audit's rows, which hold for both).
    fn question_any(self) -> &'static str;
    /// The misuse it stops.
    fn stops(self) -> &'static str;
    /// A heading short enough for a table cell.
    fn short(self) -> &'static str;
}

impl CheckWords for Check {
    fn question(self, seal: Seal) -> &'static str {
        match (self, seal) {
            (Check::Signature, Seal::Signed) => "Signature matches",
            (Check::Signature, Seal::Sealed) => "Seal opens",
            (other, _) => other.question_any(),
        }
    }

    fn question_any(self) -> &'static str {
        match self {
            Check::Signature => {
                "Signature matches (or, for an encrypted ticket, it decrypts with the key)"
            }
            Check::Principal => "Principal is this caller",
            Check::Expiry => "Expiry not passed",
            Check::Request => "Request is the same method and arguments",
            Check::Answer => "Answer included",
            Check::SingleUse => "Single use: not redeemed before",
        }
    }

    fn stops(self) -> &'static str {
        match self {
            Check::Signature => "edits to the ticket and forged tickets",
            Check::Principal => "a stolen ticket used by someone else",
            Check::Expiry => "a leaked ticket used long after",
            Check::Request => "a ticket spent on a different request",
            Check::Answer => "work done without the user's answer (the server asks again)",
            Check::SingleUse => "the same retry redeemed twice",
        }
    }

    fn short(self) -> &'static str {
        match self {
            Check::Signature => "Signature",
            Check::Principal => "Principal",
            Check::Expiry => "Expiry",
            Check::Request => "Request",
            Check::Answer => "Answer",
            Check::SingleUse => "Single use",
        }
    }
}

/// How the lesson says a ticket is protected: an HMAC ticket is signed (anyone can read it,
/// nobody can change it unnoticed); only an AEAD ticket is sealed (nobody can read it either).
pub trait SealWords {
    /// "signs" or "seals".
    fn verb(self) -> &'static str;
    /// "signed" or "sealed".
    fn done(self) -> &'static str;
}

impl SealWords for Seal {
    fn verb(self) -> &'static str {
        match self {
            Seal::Signed => "signs",
            Seal::Sealed => "seals",
        }
    }

    fn done(self) -> &'static str {
        match self {
            Seal::Signed => "signed",
            Seal::Sealed => "sealed",
        }
    }
}

/// Why a check failed, in the lesson's words: times on the world's clock (t, in seconds from
/// the first call), like everything else the page shows, not the absolute seconds the ticket
/// carries.
pub fn reason(r: &Refusal) -> String {
    let t = |s: u64| i128::from(s) - i128::from(crate::knobs::EPOCH_S);
    match r {
        Refusal::Expired { exp, now } => format!(
            "ticket expired at t = {} s; it is now t = {} s ({} s late)",
            t(*exp),
            t(*now),
            i128::from(*now) - i128::from(*exp)
        ),
        Refusal::IssuedInFuture { iat, now } => format!(
            "ticket claims to be issued at t = {} s, after now (t = {} s)",
            t(*iat),
            t(*now)
        ),
        other => other.to_string(),
    }
}

/// The lesson's status glyphs: the one table the page, the audit and the command lines draw
/// them from. Each is shown beside its word, never alone and never as colour alone.
pub mod glyph {
    /// Passed; allowed; answered right.
    pub const YES: &str = "✓";
    /// Failed; not allowed; answered wrong.
    pub const NO: &str = "✗";
    /// Not reached; skipped.
    pub const NOT_RUN: &str = "–";
    /// Asked again.
    pub const ASKED: &str = "?";
    /// Switched off.
    pub const OFF: &str = "○";
}

/// How the lesson draws one check's outcome: a symbol, and the same in words, so nothing
/// rests on the glyph or its colour.
pub trait StatusWords {
    /// ✓ passed, ✗ failed, ? asked again, – not reached, ○ off.
    fn symbol(&self) -> &'static str;
    /// The same in lowercase words: `passed`, `failed`, `asked again`, `not reached`, `off`.
    fn word(&self) -> &'static str;
}

impl StatusWords for Status {
    fn symbol(&self) -> &'static str {
        match self {
            Status::Passed => glyph::YES,
            Status::Failed(_) => glyph::NO,
            Status::Unanswered { .. } => glyph::ASKED,
            Status::NotReached => glyph::NOT_RUN,
            Status::Off => glyph::OFF,
        }
    }

    fn word(&self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed(_) => "failed",
            Status::Unanswered { .. } => "asked again",
            Status::NotReached => "not reached",
            Status::Off => "off",
        }
    }
}

/// A verdict's shown checks as symbols, e.g. "✓✗–––" (single use only when it ran).
pub fn symbols(v: &Verdict) -> String {
    v.outcomes
        .iter()
        .filter(|o| o.check != Check::SingleUse || o.status != Status::Off)
        .map(|o| o.status.symbol())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_told_on_the_worlds_clock() {
        let e = crate::knobs::EPOCH_S;
        assert_eq!(
            reason(&Refusal::Expired {
                exp: e + 120,
                now: e + 130
            }),
            "ticket expired at t = 120 s; it is now t = 130 s (10 s late)"
        );
        // A ticket edited to a time before the epoch still reads, never panics.
        assert!(reason(&Refusal::Expired { exp: 5, now: e }).contains("t = -1799999995 s"));
    }

    #[test]
    fn every_question_starts_with_the_checks_one_name() {
        for c in Check::ALL {
            for q in [c.question(Seal::Signed), c.question_any()] {
                assert!(q.starts_with(c.short()), "{c:?}: {q}");
            }
            if c != Check::Signature {
                assert_eq!(c.question(Seal::Sealed), c.question(Seal::Signed));
            }
        }
    }

    #[test]
    fn the_signature_check_is_asked_the_way_the_ticket_is_protected() {
        // An HMAC ticket is signed, never sealed; only an AEAD ticket's seal opens.
        let signed = Check::Signature.question(Seal::Signed);
        assert_eq!(signed, "Signature matches");
        assert!(!signed.to_lowercase().contains("seal"), "{signed}");
        assert_eq!(Check::Signature.question(Seal::Sealed), "Seal opens");
        assert!(!Check::Signature.question_any().contains("seal"));
        assert_eq!(
            (Seal::Signed.verb(), Seal::Sealed.done()),
            ("signs", "sealed")
        );
    }

    #[test]
    fn the_lesson_shows_the_checks_in_the_order_the_core_runs_them() {
        assert_eq!(switchable().count(), 5);
        assert_eq!(Check::ALL.last(), Some(&Check::SingleUse));
    }

    #[test]
    fn every_status_has_a_distinct_symbol_and_word() {
        let all = [
            Status::Passed,
            Status::Failed(mrtr_core::checks::Refusal::WrongArguments),
            Status::Unanswered { keys: vec![] },
            Status::NotReached,
            Status::Off,
        ];
        let symbols: std::collections::BTreeSet<_> = all.iter().map(|s| s.symbol()).collect();
        let words: std::collections::BTreeSet<_> = all.iter().map(|s| s.word()).collect();
        assert_eq!((symbols.len(), words.len()), (5, 5));
    }
}
