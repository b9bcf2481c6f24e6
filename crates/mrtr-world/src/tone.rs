//! How the page draws what a request came to: one [`Tone`] per outcome, each with its glyph,
//! its word and its style, read by every view that draws a verdict (the check lists, the
//! inspector, the attack bench and its clock, the live moves, the deploy as a task). Harm is
//! never drawn as a refusal nor as a success: work the user never confirmed is its own tone,
//! a warning in amber.

use mrtr_core::Verdict;

/// What a request (or a move, or a task's step) came to, as the page draws it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tone {
    /// A check, the server or the store refused it: nothing was done.
    Refused,
    /// Nothing was done, and nothing was refused: the server asked (again).
    Asked,
    /// The work was done, as the user asked.
    Done,
    /// Work was done that the user never confirmed: an attack that worked.
    Harm,
    /// Neither a verdict nor a question yet: the work goes on (a task that is working).
    Working,
}

impl Tone {
    /// Every tone, in the order a legend lists them.
    pub const ALL: [Tone; 5] = [
        Tone::Done,
        Tone::Harm,
        Tone::Refused,
        Tone::Asked,
        Tone::Working,
    ];

    /// The glyph drawn beside its word (never alone: the word says it too).
    pub fn glyph(self) -> &'static str {
        match self {
            Tone::Refused => crate::checks::glyph::NO,
            Tone::Asked => crate::checks::glyph::ASKED,
            Tone::Done => crate::checks::glyph::YES,
            Tone::Harm => "⚠",
            Tone::Working => "…",
        }
    }

    /// Its word, as a headline starts.
    pub fn word(self) -> &'static str {
        match self {
            Tone::Refused => "Refused",
            Tone::Asked => "Asked again",
            Tone::Done => "Accepted",
            Tone::Harm => "Harm done",
            Tone::Working => "Working",
        }
    }

    /// Its style: the class the page's stylesheet colours (`ok` green, `harm` amber, `refused`
    /// red, `asked` grey, `working` grey).
    pub fn class(self) -> &'static str {
        match self {
            Tone::Refused => "refused",
            Tone::Asked => "asked",
            Tone::Done => "ok",
            Tone::Harm => "harm",
            Tone::Working => "working",
        }
    }

    /// A verdict's tone: refused at a check, asked again (no answer of the kind asked), or
    /// done; done is harm when the world judged the work harm.
    pub fn of_verdict(verdict: &Verdict, harm: Option<&Harm>) -> Tone {
        match (verdict.first_failure(), verdict.unanswered(), harm) {
            (Some(_), _, _) => Tone::Refused,
            (None, Some(_), _) => Tone::Asked,
            (None, None, Some(_)) => Tone::Harm,
            (None, None, None) => Tone::Done,
        }
    }
}

/// The kinds of attack that work when a check is missing: what a completed request did that
/// the user never asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HarmKind {
    /// A deploy for a caller the ticket was not minted for.
    OtherCaller,
    /// A deploy to an environment the user never confirmed.
    Unconfirmed,
    /// A deploy after the ticket the user confirmed on had expired.
    Late,
    /// Another deploy on a confirmation that already deployed.
    Again,
}

impl HarmKind {
    /// A stable name for markup and tests.
    pub fn id(self) -> &'static str {
        match self {
            HarmKind::OtherCaller => "other-caller",
            HarmKind::Unconfirmed => "unconfirmed",
            HarmKind::Late => "late",
            HarmKind::Again => "again",
        }
    }
}

/// An attack that worked, as the world judged it from the run: the kind, and what went
/// wrong in a sentence (the fact, then why B let it through, read off its verdict).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Harm {
    /// Which attack.
    pub kind: HarmKind,
    /// The fact, then why B let it through, in a sentence.
    pub what_went_wrong: String,
}

impl Harm {
    /// The sentence a harmful answer starts with: "Harm done: " and what was done.
    pub fn headline(done: &str) -> String {
        format!("{}: {done}", Tone::Harm.word())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one place a tone is written: no other file of the world or of the page types the
    /// harm glyph, the harm headline, or a tone's class as a verdict's style.
    #[test]
    fn no_other_file_types_a_tone() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let mut files = Vec::new();
        for dir in ["crates/mrtr-world/src", "crates/mrtr-lab-state/src", "src"] {
            let mut todo = vec![std::path::PathBuf::from(root).join(dir)];
            while let Some(d) = todo.pop() {
                for e in std::fs::read_dir(&d).unwrap().flatten() {
                    let p = e.path();
                    if p.is_dir() {
                        todo.push(p);
                    } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("tone.rs") {
                        files.push(p);
                    }
                }
            }
        }
        assert!(files.len() > 40, "{}", files.len());
        let typed = [
            "⚠",
            "\"Harm done",
            "verdict-bar ok",
            "verdict-bar harm",
            "verdict-bar refused",
        ];
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            // Tests may name what they expect to see.
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for t in typed {
                assert!(!code.contains(t), "{} types {t:?}: use Tone", f.display());
            }
        }
    }

    #[test]
    fn each_tone_has_its_own_glyph_word_and_class() {
        for (i, a) in Tone::ALL.iter().enumerate() {
            for b in &Tone::ALL[..i] {
                assert_ne!(a.glyph(), b.glyph());
                assert_ne!(a.word(), b.word());
                assert_ne!(a.class(), b.class());
            }
        }
        // Harm is neither a refusal's glyph nor a success's.
        assert_ne!(Tone::Harm.glyph(), Tone::Refused.glyph());
        assert_ne!(Tone::Harm.class(), Tone::Done.class());
    }
}
