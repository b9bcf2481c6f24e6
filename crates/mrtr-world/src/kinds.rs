//! The words shown for each kind of input request. The core names the kinds
//! ([`InputKind`]) and what each requires of a client; how they read to a person (the rules
//! explorer, the audit's report) is decided here, beside what shows them.

use mrtr_core::wire::InputKind;

/// A kind of input request's name as the page and the audit report print it.
pub trait KindLabel {
    /// Lower-case words for the kind, e.g. `elicitation (form)`: the elicitation mode in
    /// brackets, sampling with tools spelled out.
    fn label(self) -> &'static str;
}

impl KindLabel for InputKind {
    fn label(self) -> &'static str {
        match self {
            InputKind::ElicitForm => "elicitation (form)",
            InputKind::ElicitUrl => "elicitation (url)",
            InputKind::Sampling => "sampling",
            InputKind::SamplingWithTools => "sampling with tools",
            InputKind::Roots => "roots",
        }
    }
}
