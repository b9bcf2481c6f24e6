//! The languages of "Read the code", and where the rmcp peer's source is: what both the code
//! widget and the SDK table name.

use mrtr_core::ticket::Seal;

use super::highlight::Syntax;

/// A language of "Read the code": which implementation of the deploy handler is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    /// The TypeScript SDK's example (and its hardened copy).
    #[default]
    TypeScript,
    /// The Python SDK's example.
    Python,
    /// The Rust SDK, rmcp: the lab's peer written the way rmcp's example and docs write one.
    Rmcp,
    /// The lab's own Rust core.
    Rust,
}

impl Lang {
    /// Every language, in the tabs' order.
    pub const ALL: [Lang; 4] = [Lang::TypeScript, Lang::Python, Lang::Rmcp, Lang::Rust];

    /// The language's name in a link (`lang=`).
    pub fn id(self) -> &'static str {
        match self {
            Lang::TypeScript => "ts",
            Lang::Python => "py",
            Lang::Rmcp => "rmcp",
            Lang::Rust => "rust",
        }
    }

    /// A language by its name in a link.
    pub fn from_id(s: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.id() == s)
    }

    /// The language's tab label, with the SDK's version.
    pub fn label(self) -> &'static str {
        match self {
            Lang::TypeScript => "TypeScript SDK 2.4.0",
            Lang::Python => "Python SDK 2.3.0",
            Lang::Rmcp => "Rust SDK (rmcp) 3.11.0",
            Lang::Rust => "The lab's Rust",
        }
    }

    /// The tab's name.
    pub fn short(self) -> &'static str {
        match self {
            Lang::TypeScript => "TypeScript SDK",
            Lang::Python => "Python SDK",
            Lang::Rmcp => "Rust SDK",
            Lang::Rust => "Lab's Rust",
        }
    }

    /// How this server's tickets are protected: the TypeScript SDK signs them (HMAC), the
    /// Python SDK seals them (AES-GCM), rmcp's codec signs them (its tickets stay readable:
    /// the audit edits the JSON in them, whatever its `seal_json` is called), and the lab's
    /// core does what the page's knob says.
    pub fn ticket_seal(self, lab: Seal) -> Seal {
        match self {
            Lang::TypeScript | Lang::Rmcp => Seal::Signed,
            Lang::Python => Seal::Sealed,
            Lang::Rust => lab,
        }
    }

    /// How the highlighter reads the language's listings.
    pub fn syntax(self) -> Syntax {
        match self {
            Lang::TypeScript => Syntax::JavaScript,
            Lang::Python => Syntax::Python,
            Lang::Rmcp | Lang::Rust => Syntax::Rust,
        }
    }
}

/// The rmcp peer `make interop` builds and audits, whose items the Rust SDK's tab shows.
pub const RMCP_SERVER: &str = "interop/rmcp/src/bin/rmcp-deploy-server.rs";
