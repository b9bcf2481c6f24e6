//! The `requestState` ticket: the server's half-done work, sealed so that any replica holding
//! the shared key can finish it and nobody else can change it.
//!
//! Two seals, same claims:
//! - signed (default): `v1.<base64url payload>.<base64url HMAC-SHA256>`, the MAC over the exact
//!   ASCII bytes `v1.<payload>`. The payload is readable by anyone: signed is not secret.
//! - sealed: `v1e.<base64url nonce‖ciphertext‖tag>`, ChaCha20-Poly1305 with the prefix as
//!   associated data. Nobody without the key can read it.
//!
//! Decoding is strict: a size limit before any work, canonical unpadded base64url only, a
//! constant-time MAC comparison, JSON with no unknown fields, and `Result` everywhere.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::ChaCha20Poly1305;
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::entropy::Entropy;

/// Longest ticket accepted, checked before any decoding.
pub const MAX_TICKET_LEN: usize = 4096;
/// Shortest secret a key may be made from.
pub const MIN_KEY_LEN: usize = 32;

/// How a signed ticket begins; part of the bytes its MAC covers.
pub const SIGNED_PREFIX: &str = "v1.";
/// How a sealed ticket begins; the AEAD's associated data.
pub const SEALED_PREFIX: &str = "v1e.";
const NONCE_LEN: usize = 12;
const MAC_LEN: usize = 32;

type HmacSha256 = Hmac<Sha256>;

/// How tickets are protected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Seal {
    /// HMAC-SHA256: tamper-evident, readable.
    #[default]
    Signed,
    /// ChaCha20-Poly1305: tamper-evident and unreadable.
    Sealed,
}

impl Seal {
    /// The seal's name in settings and on the command line (`--seal`): `hmac` or `aead`.
    pub fn as_str(self) -> &'static str {
        match self {
            Seal::Signed => "hmac",
            Seal::Sealed => "aead",
        }
    }

    /// The seal named `s`: `hmac` or `signed`, `aead` or `sealed`; `None` for anything else.
    pub fn parse(s: &str) -> Option<Seal> {
        match s {
            "hmac" | "signed" => Some(Seal::Signed),
            "aead" | "sealed" => Some(Seal::Sealed),
            _ => None,
        }
    }
}

/// Why a key could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyError {
    /// The secret has this many bytes, fewer than [`MIN_KEY_LEN`].
    TooShort(usize),
    /// The key id is empty (tickets name their key by it).
    EmptyId,
    /// A keyring needs at least one key.
    NoKeys,
    /// Two keys of one keyring share an id.
    DuplicateId(String),
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyError::TooShort(n) => {
                write!(
                    f,
                    "a ticket key needs at least {MIN_KEY_LEN} bytes, got {n}"
                )
            }
            KeyError::EmptyId => write!(f, "a ticket key needs a non-empty id"),
            KeyError::NoKeys => write!(f, "a keyring needs at least one key"),
            KeyError::DuplicateId(id) => write!(f, "two keys share the id {id:?}"),
        }
    }
}

impl std::error::Error for KeyError {}

/// One server secret, with separate subkeys for signing and sealing (HKDF-SHA256), so the
/// same secret never feeds two algorithms. The subkeys are wiped from memory when the key is
/// dropped.
#[derive(Clone)]
pub struct Key {
    id: String,
    mac_key: Zeroizing<[u8; 32]>,
    aead_key: Zeroizing<[u8; 32]>,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Key {
    /// A key named `id` whose subkeys are derived from `secret` (at least [`MIN_KEY_LEN`]
    /// bytes). Replicas given the same id and secret accept each other's tickets.
    pub fn new(id: impl Into<String>, secret: &[u8]) -> Result<Key, KeyError> {
        let id = id.into();
        if id.is_empty() {
            return Err(KeyError::EmptyId);
        }
        if secret.len() < MIN_KEY_LEN {
            return Err(KeyError::TooShort(secret.len()));
        }
        let hk = Hkdf::<Sha256>::new(Some(b"mrtr-lab ticket key"), secret);
        let mut mac_key = Zeroizing::new([0u8; 32]);
        let mut aead_key = Zeroizing::new([0u8; 32]);
        // 32 bytes is far below HKDF-SHA256's output limit, so expand cannot fail.
        let _ = hk.expand(b"mrtr/ticket/v1/hmac-sha256", mac_key.as_mut());
        let _ = hk.expand(b"mrtr/ticket/v1/chacha20poly1305", aead_key.as_mut());
        Ok(Key {
            id,
            mac_key,
            aead_key,
        })
    }

    /// The key's id, written into each ticket it signs (`kid`).
    pub fn id(&self) -> &str {
        &self.id
    }

    fn mac(&self, data: &[u8]) -> HmacSha256 {
        // HMAC accepts keys of any length.
        let mut mac = <HmacSha256 as Mac>::new_from_slice(self.mac_key.as_ref())
            .unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
        mac.update(data);
        mac
    }

    fn cipher(&self) -> ChaCha20Poly1305 {
        ChaCha20Poly1305::new(self.aead_key.as_ref().into())
    }
}

/// The keys a server holds: the first signs, every one verifies (rotation).
#[derive(Clone, Debug)]
pub struct Keyring {
    keys: Vec<Key>,
}

impl Keyring {
    /// A ring of one key, which signs and verifies.
    pub fn new(key: Key) -> Keyring {
        Keyring { keys: vec![key] }
    }

    /// A keyring of several keys: the first signs, every one verifies (a fleet rolls a key
    /// by adding it everywhere, then signing with it, then retiring the old one).
    pub fn of(keys: Vec<Key>) -> Result<Keyring, KeyError> {
        if keys.is_empty() {
            return Err(KeyError::NoKeys);
        }
        for (i, k) in keys.iter().enumerate() {
            if keys[..i].iter().any(|o| o.id == k.id) {
                return Err(KeyError::DuplicateId(k.id.clone()));
            }
        }
        Ok(Keyring { keys })
    }

    /// The ids of the keys, the signing key first.
    pub fn ids(&self) -> Vec<&str> {
        self.keys.iter().map(|k| k.id.as_str()).collect()
    }

    fn get(&self, id: &str) -> Option<&Key> {
        self.keys.iter().find(|k| k.id == id)
    }

    /// Makes `key` the signing key; older keys keep verifying.
    pub fn rotate(&mut self, key: Key) {
        self.keys.retain(|k| k.id != key.id);
        self.keys.insert(0, key);
    }

    /// Stops accepting tickets signed with the key `id` (never the signing key).
    pub fn retire(&mut self, id: &str) {
        if self.keys.len() > 1 {
            let signing = self.keys[0].id.clone();
            self.keys.retain(|k| k.id != id || k.id == signing);
        }
    }

    /// The key new tickets are minted with: the first.
    pub fn signing_key(&self) -> &Key {
        &self.keys[0]
    }
}

/// Who the server authenticated for a request. Anonymous is a principal of its own: a
/// ticket minted for nobody is not valid for somebody, nor the other way round.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Principal {
    /// No credentials.
    Anonymous,
    /// An authenticated user, by name.
    User(String),
}

impl Principal {
    /// The user named `name`.
    pub fn user(name: impl Into<String>) -> Principal {
        Principal::User(name.into())
    }

    /// The demo convention of the lesson: `Bearer bob-token` is bob (a name of up to 32
    /// letters, digits, `_` or `-`). Not an auth system. Any other token is a secret that must
    /// not land in a readable ticket or a log line, so its principal is named by a digest of
    /// it: `sha256:` and the first 8 bytes of its SHA-256, in hex (one token, one principal).
    #[cfg(feature = "demo")]
    pub fn from_bearer(header: Option<&str>) -> Principal {
        use sha2::{Digest, Sha256};
        let Some(h) = header else {
            return Principal::Anonymous;
        };
        let token = h.strip_prefix("Bearer ").unwrap_or(h).trim();
        let is_name = |n: &str| {
            (1..=32).contains(&n.len())
                && n.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        };
        match token.strip_suffix("-token") {
            Some(name) if is_name(name) => Principal::User(name.to_owned()),
            _ if token.is_empty() => Principal::Anonymous,
            _ => {
                let digest = Sha256::digest(token.as_bytes());
                let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
                Principal::User(format!("sha256:{hex}"))
            }
        }
    }

    /// The principal as a ticket's `sub` claim: the user's name, `None` for anonymous.
    pub fn as_claim(&self) -> Option<String> {
        match self {
            Principal::Anonymous => None,
            Principal::User(u) => Some(u.clone()),
        }
    }

    /// The principal a `sub` claim names (the inverse of [`Principal::as_claim`]).
    pub fn from_claim(c: Option<&str>) -> Principal {
        match c {
            None => Principal::Anonymous,
            Some(u) => Principal::User(u.to_owned()),
        }
    }
}

impl std::fmt::Display for Principal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Principal::Anonymous => write!(f, "anonymous"),
            Principal::User(u) => write!(f, "{u}"),
        }
    }
}

/// What a ticket says. Field names are short but readable: the inspector shows them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claims {
    /// Claims format version.
    pub v: u8,
    /// Which key signed it.
    pub kid: String,
    /// Ticket id: what single use remembers.
    pub tid: String,
    /// Issued at, seconds.
    pub iat: u64,
    /// Expires at, seconds: valid while now < exp.
    pub exp: u64,
    /// The principal it is bound to; null for anonymous.
    pub sub: Option<String>,
    /// The request it belongs to: method, target (tool/prompt name or resource uri) and a
    /// digest of the arguments.
    pub method: String,
    /// The tool or prompt name, or the resource uri, it was minted for.
    pub target: String,
    /// [`crate::canonical::arguments_digest`] of the arguments it was minted for.
    pub args: String,
    /// The `inputRequests` keys the ticket waits for, each with the method asked under it
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`): an answer of another
    /// kind does not answer it.
    pub awaits: BTreeMap<String, String>,
    /// The handler's own state.
    pub state: Value,
}

impl Claims {
    /// The principal the ticket is bound to (from `sub`).
    pub fn principal(&self) -> Principal {
        Principal::from_claim(self.sub.as_deref())
    }
}

/// Why a ticket could not be opened. Detailed, for the server's log and the page's checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenError {
    /// The ticket has this many bytes, over [`MAX_TICKET_LEN`]; nothing was decoded.
    TooLong(usize),
    /// A character that is neither base64url nor `.`.
    BadCharacter {
        /// Its byte offset.
        at: usize,
    },
    /// Neither `v1.<payload>.<mac>` nor `v1e.<sealed>`.
    UnknownFormat,
    /// A part is not canonical unpadded base64url.
    BadBase64 {
        /// Which: `payload`, `signature` or `sealed body`.
        part: &'static str,
    },
    /// A part is empty or decodes to the wrong number of bytes.
    WrongLength {
        /// Which part, as in [`OpenError::BadBase64`].
        part: &'static str,
    },
    /// No key of the ring makes the signature match.
    BadMac,
    /// Signed with a key this server does not hold (never had, or retired).
    UnknownKey(String),
    /// A sealed ticket no key of the ring opens (wrong key or altered), or a sealed ticket
    /// given where only a signed one can be read.
    CannotDecrypt,
    /// The bytes are not valid claims (the reason): not JSON, unknown fields, wrong version.
    BadPayload(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::TooLong(n) => write!(
                f,
                "ticket is {n} bytes, over the {MAX_TICKET_LEN}-byte limit"
            ),
            OpenError::BadCharacter { at } => write!(f, "character {at} is not base64url or '.'"),
            OpenError::UnknownFormat => write!(
                f,
                "not a v1 ticket (expected v1.<payload>.<mac> or v1e.<sealed>)"
            ),
            OpenError::BadBase64 { part } => {
                write!(f, "the {part} is not canonical unpadded base64url")
            }
            OpenError::WrongLength { part } => write!(f, "the {part} has the wrong length"),
            OpenError::BadMac => write!(f, "signature does not match the payload"),
            OpenError::UnknownKey(kid) => {
                write!(
                    f,
                    "signed with key {kid:?}, which this server does not hold"
                )
            }
            OpenError::CannotDecrypt => {
                write!(f, "cannot decrypt: wrong key or altered ciphertext")
            }
            OpenError::BadPayload(e) => write!(f, "payload is not valid claims: {e}"),
        }
    }
}

/// Why a ticket could not be minted. Each is the server's fault (or its handler's), never the
/// caller's: a server answers it with -32603 and sends no ticket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MintError {
    /// The claims did not serialise to JSON (serde_json's message).
    Serialize(String),
    /// ChaCha20-Poly1305 refused to seal the payload (only possible for a payload far beyond
    /// any ticket's size).
    Encrypt,
    /// The ticket came out this many bytes, over [`MAX_TICKET_LEN`]: [`Codec::open`] would
    /// refuse it, so it is not handed out.
    TooLong(usize),
}

impl std::fmt::Display for MintError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MintError::Serialize(e) => write!(f, "the claims do not serialise: {e}"),
            MintError::Encrypt => write!(f, "the payload could not be sealed"),
            MintError::TooLong(n) => write!(
                f,
                "the work to carry does not fit in a ticket ({n} bytes, limit {MAX_TICKET_LEN})"
            ),
        }
    }
}

impl std::error::Error for MintError {}

/// The parts of a ticket, as character ranges into the ticket text, for the inspector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Anatomy {
    /// Which seal the prefix says (always `Some` from [`anatomy`]).
    pub seal: Option<Seal>,
    /// The `v1.` or `v1e.` prefix.
    pub prefix: std::ops::Range<usize>,
    /// The payload (signed) or the whole sealed body.
    pub body: std::ops::Range<usize>,
    /// The MAC (signed only).
    pub mac: Option<std::ops::Range<usize>>,
}

/// Mints and opens tickets with one keyring and one seal.
#[derive(Clone, Debug)]
pub struct Codec {
    /// The keys: the first mints, any opens.
    pub keyring: Keyring,
    /// How tickets it mints are protected (it opens either kind).
    pub seal: Seal,
}

impl Codec {
    /// A codec minting with `keyring`'s signing key under `seal`.
    pub fn new(keyring: Keyring, seal: Seal) -> Codec {
        Codec { keyring, seal }
    }

    /// Serialises and protects `claims` (its `kid` is set to the signing key's id). Fails
    /// rather than return a ticket that [`Codec::open`] would refuse or that is not the
    /// claims it was given: a server hands out what this returns.
    pub fn mint(&self, claims: &Claims, entropy: &mut dyn Entropy) -> Result<String, MintError> {
        let key = self.keyring.signing_key();
        // A copy only when the claims name another key (the server names the signing key).
        let renamed;
        let claims = if claims.kid == key.id {
            claims
        } else {
            renamed = Claims {
                kid: key.id.clone(),
                ..claims.clone()
            };
            &renamed
        };
        let payload =
            serde_json::to_vec(claims).map_err(|e| MintError::Serialize(e.to_string()))?;
        let ticket = match self.seal {
            Seal::Signed => {
                let mut out = String::from(SIGNED_PREFIX);
                out.push_str(&URL_SAFE_NO_PAD.encode(&payload));
                let tag = key.mac(out.as_bytes()).finalize().into_bytes();
                out.push('.');
                out.push_str(&URL_SAFE_NO_PAD.encode(tag));
                out
            }
            Seal::Sealed => {
                let mut nonce = [0u8; NONCE_LEN];
                entropy.fill(&mut nonce);
                let ct = key
                    .cipher()
                    .encrypt(
                        (&nonce).into(),
                        Payload {
                            msg: &payload,
                            aad: SEALED_PREFIX.as_bytes(),
                        },
                    )
                    .map_err(|_| MintError::Encrypt)?;
                let mut body = nonce.to_vec();
                body.extend_from_slice(&ct);
                format!("{SEALED_PREFIX}{}", URL_SAFE_NO_PAD.encode(body))
            }
        };
        if ticket.len() > MAX_TICKET_LEN {
            return Err(MintError::TooLong(ticket.len()));
        }
        Ok(ticket)
    }

    /// Why no key of the ring verified a signed ticket, for the log and the page: a key id
    /// this ring does not hold, or else a bad MAC. Read only after every MAC failed, and only to
    /// word the refusal; nothing is decided on it.
    fn why_no_key_matched(&self, payload: &[u8]) -> OpenError {
        match serde_json::from_slice::<KidOnly>(payload) {
            Ok(KidOnly { kid }) if self.keyring.get(&kid).is_none() => OpenError::UnknownKey(kid),
            _ => OpenError::BadMac,
        }
    }

    /// The key a signed payload's `kid` names, from this codec's ring.
    fn key_named_in(&self, payload: &[u8]) -> Result<&Key, OpenError> {
        let kid = serde_json::from_slice::<KidOnly>(payload)
            .map_err(|e| OpenError::BadPayload(e.to_string()))?
            .kid;
        self.keyring.get(&kid).ok_or(OpenError::UnknownKey(kid))
    }

    /// The signature this codec computes for a signed ticket's prefix and payload, with the
    /// key its `kid` names: what the ticket's own signature would have to be. For showing a
    /// mismatch; [`Codec::open`] is what checks (in constant time).
    pub fn expected_signature(&self, ticket: &str) -> Result<String, OpenError> {
        let anatomy = anatomy(ticket)?;
        if anatomy.seal != Some(Seal::Signed) {
            return Err(OpenError::UnknownFormat);
        }
        let payload = decode(&ticket[anatomy.body.clone()], "payload")?;
        let tag = self
            .key_named_in(&payload)?
            .mac(&ticket.as_bytes()[..anatomy.body.end])
            .finalize()
            .into_bytes();
        Ok(URL_SAFE_NO_PAD.encode(tag))
    }

    /// Checks integrity with any key of the ring, then decodes the claims.
    pub fn open(&self, ticket: &str) -> Result<Claims, OpenError> {
        let anatomy = anatomy(ticket)?;
        match anatomy.seal {
            Some(Seal::Signed) => {
                let signed = &ticket[..anatomy.body.end];
                let payload = decode(&ticket[anatomy.body.clone()], "payload")?;
                let mac_range = anatomy.mac.clone().ok_or(OpenError::UnknownFormat)?;
                let tag = decode(&ticket[mac_range], "signature")?;
                if tag.len() != MAC_LEN {
                    return Err(OpenError::WrongLength { part: "signature" });
                }
                // Nothing of the payload is read before a MAC matches: each key of the ring is
                // tried on the exact signed bytes (verify_slice compares in constant time).
                let Some(key) = self
                    .keyring
                    .keys
                    .iter()
                    .find(|k| k.mac(signed.as_bytes()).verify_slice(&tag).is_ok())
                else {
                    return Err(self.why_no_key_matched(&payload));
                };
                let claims = parse_claims(&payload)?;
                // The payload names its key too (the inspector shows it); it must be the key
                // that verified it.
                if claims.kid != key.id {
                    return Err(OpenError::BadPayload(format!(
                        "names key {:?} but was signed with {:?}",
                        claims.kid, key.id
                    )));
                }
                Ok(claims)
            }
            Some(Seal::Sealed) => {
                let body = decode(&ticket[anatomy.body.clone()], "sealed body")?;
                if body.len() < NONCE_LEN + 16 {
                    return Err(OpenError::WrongLength {
                        part: "sealed body",
                    });
                }
                let (nonce, ct) = body.split_at(NONCE_LEN);
                for k in &self.keyring.keys {
                    if let Ok(pt) = k.cipher().decrypt(
                        nonce.into(),
                        Payload {
                            msg: ct,
                            aad: SEALED_PREFIX.as_bytes(),
                        },
                    ) {
                        return parse_claims(&pt);
                    }
                }
                Err(OpenError::CannotDecrypt)
            }
            None => Err(OpenError::UnknownFormat),
        }
    }
}

/// Reads the claims of a signed ticket without checking its MAC: what anyone holding the
/// ticket can do, and what a server with its signature check turned off does.
pub fn read_unverified(ticket: &str) -> Result<Claims, OpenError> {
    let a = anatomy(ticket)?;
    if a.seal != Some(Seal::Signed) {
        return Err(OpenError::CannotDecrypt);
    }
    parse_claims(&decode(&ticket[a.body], "payload")?)
}

/// The payload of a signed ticket as text, decoded as far as it goes.
pub fn payload_text(ticket: &str) -> Result<String, OpenError> {
    let a = anatomy(ticket)?;
    if a.seal != Some(Seal::Signed) {
        return Err(OpenError::CannotDecrypt);
    }
    let bytes = decode(&ticket[a.body], "payload")?;
    String::from_utf8(bytes).map_err(|_| OpenError::BadPayload("not UTF-8".into()))
}

/// Rewrites the readable payload of a signed ticket and keeps the old signature: what a
/// client that edits its ticket (say, staging to prod) sends back.
pub fn rewrite_payload(
    ticket: &str,
    edit: impl FnOnce(String) -> String,
) -> Result<String, OpenError> {
    let a = anatomy(ticket)?;
    let text = payload_text(ticket)?;
    let mac = a.mac.map(|m| &ticket[m]).unwrap_or_default();
    Ok(format!(
        "{SIGNED_PREFIX}{}.{mac}",
        URL_SAFE_NO_PAD.encode(edit(text))
    ))
}

/// Splits a ticket into its parts without decoding anything.
pub fn anatomy(ticket: &str) -> Result<Anatomy, OpenError> {
    if ticket.len() > MAX_TICKET_LEN {
        return Err(OpenError::TooLong(ticket.len()));
    }
    if let Some(at) = ticket
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.'))
    {
        return Err(OpenError::BadCharacter { at });
    }
    if let Some(rest) = ticket.strip_prefix(SIGNED_PREFIX) {
        let dot = rest.find('.').ok_or(OpenError::UnknownFormat)?;
        if rest[dot + 1..].contains('.') {
            return Err(OpenError::UnknownFormat);
        }
        let p = SIGNED_PREFIX.len();
        return Ok(Anatomy {
            seal: Some(Seal::Signed),
            prefix: 0..p,
            body: p..p + dot,
            mac: Some(p + dot + 1..ticket.len()),
        });
    }
    if let Some(rest) = ticket.strip_prefix(SEALED_PREFIX) {
        if rest.contains('.') {
            return Err(OpenError::UnknownFormat);
        }
        return Ok(Anatomy {
            seal: Some(Seal::Sealed),
            prefix: 0..SEALED_PREFIX.len(),
            body: SEALED_PREFIX.len()..ticket.len(),
            mac: None,
        });
    }
    Err(OpenError::UnknownFormat)
}

fn decode(part: &str, name: &'static str) -> Result<Vec<u8>, OpenError> {
    if part.is_empty() {
        return Err(OpenError::WrongLength { part: name });
    }
    // The URL_SAFE_NO_PAD engine refuses padding and non-zero trailing bits, so each byte
    // string has exactly one accepted spelling.
    URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| OpenError::BadBase64 { part: name })
}

/// Just the key id of a signed payload: for showing a signature (the inspector) and wording a
/// refusal, never for deciding one.
#[derive(Deserialize)]
struct KidOnly {
    kid: String,
}

fn parse_claims(bytes: &[u8]) -> Result<Claims, OpenError> {
    let c: Claims =
        serde_json::from_slice(bytes).map_err(|e| OpenError::BadPayload(e.to_string()))?;
    if c.v != 1 {
        return Err(OpenError::BadPayload(format!(
            "unknown claims version {}",
            c.v
        )));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entropy::SeededEntropy;
    use serde_json::json;

    fn claims() -> Claims {
        Claims {
            v: 1,
            kid: String::new(),
            tid: "t1".into(),
            iat: 1000,
            exp: 1120,
            sub: Some("bob".into()),
            method: "tools/call".into(),
            target: "deploy".into(),
            args: crate::canonical::arguments_digest(&json!({"env": "staging"})),
            awaits: BTreeMap::from([("confirm".into(), "elicitation/create".into())]),
            state: json!({"env": "staging"}),
        }
    }

    fn codec(seal: Seal) -> Codec {
        Codec::new(Keyring::new(Key::new("k1", &[7u8; 32]).unwrap()), seal)
    }

    #[test]
    fn a_ticket_over_the_limit_is_not_minted() {
        // Once encoded, 3000 bytes of state is over MAX_TICKET_LEN under either seal.
        let big = Claims {
            state: json!({"blob": "x".repeat(3000)}),
            ..claims()
        };
        for seal in [Seal::Signed, Seal::Sealed] {
            match codec(seal).mint(&big, &mut SeededEntropy::new(1)) {
                Err(MintError::TooLong(n)) => assert!(n > MAX_TICKET_LEN, "{seal:?}: {n}"),
                other => panic!("{seal:?}: minted {other:?}"),
            }
            // The same claims with small state mint, and open.
            let t = codec(seal)
                .mint(&claims(), &mut SeededEntropy::new(1))
                .unwrap();
            assert!(codec(seal).open(&t).is_ok());
        }
    }

    #[test]
    fn the_expected_signature_is_the_tickets_own_until_the_payload_changes() {
        let codec = codec(Seal::Signed);
        let t = codec.mint(&claims(), &mut SeededEntropy::new(1)).unwrap();
        let own = &t[t.rfind('.').unwrap() + 1..];
        assert_eq!(codec.expected_signature(&t).unwrap(), own);
        let edited = rewrite_payload(&t, |p| p.replace("staging", "prod")).unwrap();
        let carried = &edited[edited.rfind('.').unwrap() + 1..];
        assert_eq!(carried, own, "an edit keeps the old signature");
        assert_ne!(codec.expected_signature(&edited).unwrap(), carried);
        assert!(codec.expected_signature("v1e.AAAA").is_err());
        assert!(codec.expected_signature("garbage").is_err());
    }

    #[test]
    fn signed_round_trip_and_readable() {
        let c = codec(Seal::Signed);
        let t = c.mint(&claims(), &mut SeededEntropy::new(1)).unwrap();
        assert!(t.starts_with("v1."));
        let opened = c.open(&t).unwrap();
        assert_eq!(opened.kid, "k1");
        assert_eq!(opened.state, json!({"env": "staging"}));
        assert!(payload_text(&t).unwrap().contains("\"staging\""));
        assert_eq!(read_unverified(&t).unwrap(), opened);
        let a = anatomy(&t).unwrap();
        assert_eq!(&t[a.mac.unwrap()].len(), &43);
    }

    /// Known answers: a fixed key, claims and nonce give exactly these strings, so any change
    /// of a ticket format (claims, encoding, key derivation, MAC or AEAD input) is deliberate.
    /// Both were checked once outside Rust (Python's hmac/hashlib for HKDF and HMAC, and the
    /// `cryptography` package's ChaCha20Poly1305, which opens the sealed one to these claims).
    #[test]
    fn known_answer_vectors_for_each_format() {
        let signed = codec(Seal::Signed)
            .mint(&claims(), &mut SeededEntropy::new(1))
            .unwrap();
        assert_eq!(signed, KAT_SIGNED);
        let sealed = codec(Seal::Sealed)
            .mint(&claims(), &mut SeededEntropy::new(1))
            .unwrap();
        assert_eq!(sealed, KAT_SEALED);
        for (seal, t) in [(Seal::Signed, KAT_SIGNED), (Seal::Sealed, KAT_SEALED)] {
            let opened = codec(seal).open(t).unwrap();
            assert_eq!(
                opened,
                Claims {
                    kid: "k1".into(),
                    ..claims()
                }
            );
        }
    }

    const KAT_SIGNED: &str = "v1.eyJ2IjoxLCJraWQiOiJrMSIsInRpZCI6InQxIiwiaWF0IjoxMDAwLCJleHAiOjExMjAsInN1YiI6ImJvYiIsIm1ldGhvZCI6InRvb2xzL2NhbGwiLCJ0YXJnZXQiOiJkZXBsb3kiLCJhcmdzIjoiVUJpZkFGSHBCYm1NczBReVZtS0RuUSIsImF3YWl0cyI6eyJjb25maXJtIjoiZWxpY2l0YXRpb24vY3JlYXRlIn0sInN0YXRlIjp7ImVudiI6InN0YWdpbmcifX0.mDZyLyOeD-LNfjDrw1e4iN0PVdbSz6kBy6eBw1iTEqA";
    const KAT_SEALED: &str = "v1e.wVwCiewtCpFn7I5ly1i3XzIoEpdlLvYkQrYLIbnpEGbRsORfP4NOHcjT82iMAxEI--wRzQXbxsSp8ki_3BihlIzs3LT6luizltIlahFJWP8b4WAW9qZXwRwGO6n_MmJMu0OEm3zl97OTCytR5AkJIDGovnf9MeRp24XDwCKsbob27wlknO1vAsIEnZLPb4uIuDWTcCedKGJNwqiFkdWZ4eu3333mqHUsOSTYFSP-aMkMym5aM_tlb46orqV_V2Gx0XWCF8eIulibexvF_C6jUgTBaX-sRv9BQZYiazxstiPu20DWGDpq";

    /// The payload is not read before a MAC matches: a payload that is not even JSON, or one
    /// naming a key the ring holds, fails on its MAC alone; the key it names is only used to
    /// word a refusal.
    #[test]
    fn nothing_of_the_payload_is_read_before_the_mac_matches() {
        let c = codec(Seal::Signed);
        let t = c.mint(&claims(), &mut SeededEntropy::new(1)).unwrap();
        let mac = &t[t.rfind('.').unwrap() + 1..];
        let not_json = format!("v1.{}.{mac}", URL_SAFE_NO_PAD.encode(b"{not json"));
        assert_eq!(c.open(&not_json), Err(OpenError::BadMac));
        let named = format!("v1.{}.{mac}", URL_SAFE_NO_PAD.encode(br#"{"kid":"k1"}"#));
        assert_eq!(c.open(&named), Err(OpenError::BadMac));
        // A genuine MAC by k1 over a payload that says k2 signed it: refused.
        let ring = Keyring::of(vec![
            Key::new("k1", &[7u8; 32]).unwrap(),
            Key::new("k2", &[8u8; 32]).unwrap(),
        ])
        .unwrap();
        let two = Codec::new(ring, Seal::Signed);
        let lying = rewrite_payload(&t, |p| p.replace("\"kid\":\"k1\"", "\"kid\":\"k2\"")).unwrap();
        let body_end = lying.rfind('.').unwrap();
        let k1 = Key::new("k1", &[7u8; 32]).unwrap();
        let tag = k1
            .mac(&lying.as_bytes()[..body_end])
            .finalize()
            .into_bytes();
        let resigned = format!("{}.{}", &lying[..body_end], URL_SAFE_NO_PAD.encode(tag));
        assert!(matches!(two.open(&resigned), Err(OpenError::BadPayload(_))));
    }

    #[test]
    fn sealed_round_trip_and_unreadable() {
        let c = codec(Seal::Sealed);
        let t = c.mint(&claims(), &mut SeededEntropy::new(1)).unwrap();
        assert!(t.starts_with("v1e."));
        assert_eq!(c.open(&t).unwrap().state, json!({"env": "staging"}));
        assert!(read_unverified(&t).is_err());
        assert!(!t.contains("c3RhZ2luZ")); // base64 of "staging" at any alignment start
    }

    #[test]
    fn keys_must_be_long_enough() {
        assert_eq!(
            Key::new("k", &[0u8; 31]).unwrap_err(),
            KeyError::TooShort(31)
        );
        assert_eq!(Key::new("", &[0u8; 32]).unwrap_err(), KeyError::EmptyId);
    }

    #[test]
    fn rotation_old_keys_verify_newest_signs() {
        let mut c = codec(Seal::Signed);
        let old = c.mint(&claims(), &mut SeededEntropy::new(1)).unwrap();
        c.keyring.rotate(Key::new("k2", &[9u8; 32]).unwrap());
        let new = c.mint(&claims(), &mut SeededEntropy::new(1)).unwrap();
        assert_eq!(c.open(&new).unwrap().kid, "k2");
        assert_eq!(c.open(&old).unwrap().kid, "k1");
        c.keyring.retire("k1");
        assert_eq!(c.open(&old), Err(OpenError::UnknownKey("k1".into())));
        let other = codec(Seal::Signed);
        assert_eq!(other.open(&new), Err(OpenError::UnknownKey("k2".into())));
        // A key of the same id but other bytes: the MAC fails.
        let impostor = Codec::new(
            Keyring::new(Key::new("k2", &[1u8; 32]).unwrap()),
            Seal::Signed,
        );
        assert_eq!(impostor.open(&new), Err(OpenError::BadMac));
    }

    #[test]
    fn keyrings_sign_with_the_first_and_refuse_duplicates() {
        let k = |id: &str, b: u8| Key::new(id, &[b; 32]).unwrap();
        let ring = Keyring::of(vec![k("new", 1), k("old", 2)]).unwrap();
        assert_eq!(ring.ids(), vec!["new", "old"]);
        assert_eq!(ring.signing_key().id(), "new");
        assert_eq!(Keyring::of(vec![]).unwrap_err(), KeyError::NoKeys);
        assert_eq!(
            Keyring::of(vec![k("a", 1), k("a", 2)]).unwrap_err(),
            KeyError::DuplicateId("a".into())
        );
        // Sealed tickets keep their key id inside: every key is tried.
        let mut c = Codec::new(Keyring::of(vec![k("old", 2)]).unwrap(), Seal::Sealed);
        let t = c.mint(&claims(), &mut SeededEntropy::new(3)).unwrap();
        c.keyring = Keyring::of(vec![k("new", 1), k("old", 2)]).unwrap();
        assert_eq!(c.open(&t).unwrap().kid, "old");
    }

    #[test]
    fn strict_decoding() {
        let c = codec(Seal::Signed);
        let t = c.mint(&claims(), &mut SeededEntropy::new(1)).unwrap();
        assert_eq!(
            c.open(&format!("{t}=")),
            Err(OpenError::BadCharacter { at: t.len() })
        );
        assert!(
            matches!(
                c.open(&t.replace('-', "+")),
                Err(OpenError::BadCharacter { .. })
            ) || !t.contains('-')
        );
        assert_eq!(
            c.open(&"a".repeat(MAX_TICKET_LEN + 1)),
            Err(OpenError::TooLong(MAX_TICKET_LEN + 1))
        );
        assert_eq!(c.open("v2.abc.def"), Err(OpenError::UnknownFormat));
        assert_eq!(c.open("v1.abc"), Err(OpenError::UnknownFormat));
        assert_eq!(
            c.open("v1..x"),
            Err(OpenError::WrongLength { part: "payload" })
        );
        assert_eq!(c.open(""), Err(OpenError::UnknownFormat));
        // Non-canonical trailing bits in the MAC: 43 chars carry 258 bits, the last 2 must be 0.
        let (head, last) = t.split_at(t.len() - 1);
        let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let idx = alphabet.find(last).unwrap();
        let sibling = &alphabet[(idx ^ 1)..(idx ^ 1) + 1];
        assert!(c.open(&format!("{head}{sibling}")).is_err());
    }

    #[test]
    #[cfg(feature = "demo")]
    fn principal_from_bearer() {
        assert_eq!(
            Principal::from_bearer(Some("Bearer bob-token")),
            Principal::user("bob")
        );
        assert_eq!(Principal::from_bearer(None), Principal::Anonymous);
        assert_eq!(
            Principal::from_bearer(Some("Bearer ")),
            Principal::Anonymous
        );
        // A token not of the lesson's form is never written down: its digest names it.
        for secret in [
            "xyz",
            "ghp_s3cr3tValue",
            "a-very-long-name-that-is-not-a-name-at-all-token",
        ] {
            let p = Principal::from_bearer(Some(&format!("Bearer {secret}")));
            let claim = p.as_claim().unwrap();
            assert!(
                claim.starts_with("sha256:") && claim.len() == 7 + 16,
                "{claim}"
            );
            assert!(
                !claim.contains(secret.trim_end_matches("-token")),
                "{claim}"
            );
            assert_eq!(p, Principal::from_bearer(Some(&format!("Bearer {secret}"))));
        }
        assert_ne!(
            Principal::from_bearer(Some("Bearer xyz")),
            Principal::from_bearer(Some("Bearer xyw"))
        );
        assert_eq!(
            Principal::from_bearer(Some("Bearer xyz"))
                .as_claim()
                .unwrap(),
            // SHA-256("xyz") = 3608bca1e44ea6c4…
            "sha256:3608bca1e44ea6c4"
        );
    }
}
