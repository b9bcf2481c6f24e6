//! Edits of a ticket whose format the auditor does not know: it only assumes what every
//! codec seen so far shares (a short ASCII prefix, Base64url segments joined by dots).
//! A readable payload is JSON in one segment, alone or framed by binary bytes (rmcp's
//! `rs1.<b64url(exp_be64 ‖ JSON)>.<tag>` puts an 8-byte expiry in front of it).
//! Each edit says what it changed, for the report's evidence line.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use serde_json::Value;

/// Respellings tried at most per ticket, one per segment of data.
pub const MAX_RESPELLINGS: usize = 4;

/// Substitutions tried at most per ticket (spread over it when it is longer).
pub const MAX_SUBSTITUTIONS: usize = 1024;

const URL_ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// One changed ticket and what changed.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    /// The edited ticket, to send in place of the real one.
    pub ticket: String,
    /// The edit in a few words, for the evidence line (e.g. `a leading space`).
    pub what: String,
}

/// The character whose Base64url value differs from `c`'s in bit `bit` (0 is the lowest of
/// its six), or `A` for a character outside the alphabet.
fn flipped(c: u8, bit: u32) -> u8 {
    match URL_ALPHABET.iter().position(|&a| a == c) {
        Some(i) => URL_ALPHABET[i ^ (1 << bit)],
        None => b'A',
    }
}

/// The bits of a segment's last character that no decoded byte uses, by the segment's
/// length: 2 characters past a group of four carry one byte (4 bits unused), 3 carry two
/// (2 unused), a whole group none.
fn unused_low_bits(segment_len: usize) -> u32 {
    match segment_len % 4 {
        2 => 4,
        3 => 2,
        _ => 0,
    }
}

/// For each character of the ticket, the lowest of its bits that a decoder reads: at the end
/// of a segment that skips the bits no byte uses, so every change alters the decoded bytes.
fn lowest_used_bits(ticket: &str) -> Vec<u32> {
    let mut bits = vec![0; ticket.len()];
    for (start, seg) in segments(ticket) {
        if let Some(last) = (start + seg.len())
            .checked_sub(1)
            .filter(|_| !seg.is_empty())
        {
            bits[last] = unused_low_bits(seg.len());
        }
    }
    bits
}

/// One change per position (all of them up to [`MAX_SUBSTITUTIONS`], else evenly spread and
/// always the last 64): the character replaced by one that decodes to other bytes (a bit a
/// decoder reads flipped). A second spelling of the same bytes is [`unused_bits`]' edit.
pub fn substitutions(ticket: &str) -> Vec<Variant> {
    let bytes = ticket.as_bytes();
    let n = bytes.len();
    let used = lowest_used_bits(ticket);
    let positions: Vec<usize> = if n <= MAX_SUBSTITUTIONS {
        (0..n).collect()
    } else {
        let tail = n.saturating_sub(64);
        let step = n.div_ceil(MAX_SUBSTITUTIONS - 64);
        (0..tail).step_by(step).chain(tail..n).collect()
    };
    positions
        .into_iter()
        .filter(|&i| bytes[i].is_ascii())
        .map(|i| {
            let mut b = bytes.to_vec();
            b[i] = flipped(bytes[i], used[i]);
            Variant {
                ticket: String::from_utf8_lossy(&b).into_owned(),
                what: format!(
                    "character {i} changed ({} to {})",
                    bytes[i] as char, b[i] as char
                ),
            }
        })
        .collect()
}

/// A second spelling of the same bytes: for each segment of data (8 characters or more, so
/// not a version prefix) whose last character has bits no byte uses, that character with its
/// lowest unused bit flipped. A lenient decoder reads the same bytes, so a signature over the
/// bytes still holds; a strict one refuses it.
pub fn unused_bits(ticket: &str) -> Vec<Variant> {
    segments(ticket)
        .into_iter()
        .filter(|(_, seg)| seg.len() >= 8 && unused_low_bits(seg.len()) > 0)
        .filter_map(|(start, seg)| {
            let i = start + seg.len() - 1;
            let c = seg.as_bytes()[seg.len() - 1];
            URL_ALPHABET.contains(&c).then(|| {
                let mut b = ticket.as_bytes().to_vec();
                b[i] = flipped(c, 0);
                Variant {
                    ticket: String::from_utf8_lossy(&b).into_owned(),
                    what: format!(
                        "character {i}, the last of its segment, respelled ({} to {}): the same bytes, in bits no byte uses",
                        c as char, b[i] as char
                    ),
                }
            })
        })
        .take(MAX_RESPELLINGS)
        .collect()
}

/// The dot-separated segments of a ticket, with their byte ranges.
fn segments(ticket: &str) -> Vec<(usize, &str)> {
    let mut at = 0;
    ticket
        .split('.')
        .map(|s| {
            let start = at;
            at += s.len() + 1;
            (start, s)
        })
        .collect()
}

/// A readable payload: a JSON object in one segment, with the binary bytes framing it.
struct Readable<'a> {
    /// Where the segment starts in the ticket.
    start: usize,
    /// The segment as written.
    seg: &'a str,
    /// The decoded bytes before and after the JSON (empty for a segment of JSON alone).
    before: Vec<u8>,
    after: Vec<u8>,
    json: serde_json::Map<String, Value>,
}

impl Readable<'_> {
    /// The frame in words, for the evidence line ("" for JSON alone).
    fn framing(&self) -> String {
        match (self.before.len(), self.after.len()) {
            (0, 0) => String::new(),
            (b, 0) => format!(" (behind a binary prefix of {b} bytes, kept)"),
            (0, a) => format!(" (before a binary suffix of {a} bytes, kept)"),
            (b, a) => format!(" (between binary bytes, {b} before and {a} after, kept)"),
        }
    }
}

/// A JSON object inside `bytes`: the whole of them, or else the first non-empty object that
/// starts at a `{` (what is around it is the frame, kept byte for byte), with where it
/// starts and ends.
fn json_in(bytes: &[u8]) -> Option<(usize, usize, serde_json::Map<String, Value>)> {
    if let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(bytes) {
        return Some((0, bytes.len(), m));
    }
    bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'{')
        .find_map(|(i, _)| {
            let mut it = serde_json::Deserializer::from_slice(&bytes[i..]).into_iter::<Value>();
            match it.next()? {
                Ok(Value::Object(m)) if !m.is_empty() => Some((i, i + it.byte_offset(), m)),
                _ => None,
            }
        })
}

/// The first segment that decodes to a JSON object, or to one framed by binary bytes: a
/// readable payload.
fn readable(ticket: &str) -> Option<Readable<'_>> {
    segments(ticket).into_iter().find_map(|(start, seg)| {
        let bytes = URL_SAFE_NO_PAD.decode(seg).ok()?;
        let (from, to, json) = json_in(&bytes)?;
        Some(Readable {
            start,
            seg,
            before: bytes[..from].to_vec(),
            after: bytes[to..].to_vec(),
            json,
        })
    })
}

/// A ticket's readable payload, as the auditor finds it (the same reader its edits use).
#[derive(Clone, Debug, PartialEq)]
pub struct Payload {
    /// Which dot-separated segment holds it (from 0).
    pub segment: usize,
    /// The binary bytes framing the JSON in that segment: before, after.
    pub framing: (usize, usize),
    /// The JSON object itself.
    pub json: serde_json::Map<String, Value>,
}

/// The first segment of `ticket` that decodes to a JSON object (alone, or framed by binary
/// bytes as rmcp's `rs1.` does): what a reader of the ticket could see. `None` when no
/// segment does (a sealed or otherwise opaque ticket).
pub fn payload(ticket: &str) -> Option<Payload> {
    let r = readable(ticket)?;
    let segment = segments(ticket)
        .iter()
        .position(|(start, _)| *start == r.start)
        .unwrap_or(0);
    Some(Payload {
        segment,
        framing: (r.before.len(), r.after.len()),
        json: r.json,
    })
}

/// The payload decoded, one field edited (the expiry pushed a day later, or else the first
/// text changed), re-encoded inside the same frame, the rest of the ticket kept. `None` for
/// a sealed ticket.
pub fn field_edit(ticket: &str) -> Option<Variant> {
    let r = readable(ticket)?;
    let framing = r.framing();
    let mut m = r.json;
    let what = if let Some(exp) = m.get("exp").and_then(Value::as_u64) {
        // A day later, or (a server's exp within a day of u64::MAX) a day earlier.
        let (edited, when) = match exp.checked_add(86_400) {
            Some(later) => (later, "later"),
            None => (exp - 86_400, "earlier"),
        };
        m.insert("exp".into(), Value::from(edited));
        format!("payload{framing} re-encoded with exp a day {when}, the signature kept")
    } else {
        let key = first_string(&mut m)?;
        format!("payload{framing} re-encoded with the text at {key:?} changed, the signature kept")
    };
    let mut bytes = r.before;
    bytes.extend(serde_json::to_vec(&Value::Object(m)).ok()?);
    bytes.extend(r.after);
    let encoded = URL_SAFE_NO_PAD.encode(bytes);
    let mut t = ticket.to_owned();
    t.replace_range(r.start..r.start + r.seg.len(), &encoded);
    (t != ticket).then_some(Variant { ticket: t, what })
}

/// Changes the first string found (depth first) and says where it was.
fn first_string(m: &mut serde_json::Map<String, Value>) -> Option<String> {
    fn walk(v: &mut Value, path: &mut Vec<String>) -> bool {
        match v {
            Value::String(s) => {
                s.push_str("-edited");
                true
            }
            Value::Object(m) => m.iter_mut().any(|(k, v)| {
                path.push(k.clone());
                let found = walk(v, path);
                if !found {
                    path.pop();
                }
                found
            }),
            _ => false,
        }
    }
    let mut path = Vec::new();
    let mut v = Value::Object(std::mem::take(m));
    let found = walk(&mut v, &mut path);
    if let Value::Object(back) = v {
        *m = back;
    }
    found.then(|| path.join("."))
}

/// When a readable ticket says it expires (`exp`), where it says so.
pub fn stated_expiry(ticket: &str) -> Option<u64> {
    readable(ticket)?.json.get("exp")?.as_u64()
}

/// How long a readable ticket says it lives (`exp - iat`), where it says both.
pub fn stated_life(ticket: &str) -> Option<u64> {
    let m = readable(ticket)?.json;
    let (exp, iat) = (m.get("exp")?.as_u64()?, m.get("iat")?.as_u64()?);
    exp.checked_sub(iat)
}

/// The ticket with its last 1 and its last 4 characters cut off (each only where the ticket
/// is longer than that).
pub fn truncated(ticket: &str) -> Vec<Variant> {
    [1, 4]
        .into_iter()
        .filter(|&k| ticket.len() > k)
        .map(|k| Variant {
            ticket: ticket[..ticket.len() - k].to_owned(),
            what: format!("the last {k} character(s) cut off"),
        })
        .collect()
}

/// The ticket with `A`, `AAAA` and `.AAAA` appended: extra characters and an extra segment.
pub fn appended(ticket: &str) -> Vec<Variant> {
    ["A", "AAAA", ".AAAA"]
        .into_iter()
        .map(|extra| Variant {
            ticket: format!("{ticket}{extra}"),
            what: format!("{extra:?} appended"),
        })
        .collect()
}

/// The last segment (the signature, where there is one) dropped, with and without its dot.
/// `None` for a ticket of one segment.
pub fn without_signature(ticket: &str) -> Option<Vec<Variant>> {
    let dot = ticket.rfind('.')?;
    let body = &ticket[..dot];
    // A prefix alone ("v1.") is not a signed body.
    if !body.contains('.') && body.len() <= 4 {
        return None;
    }
    Some(vec![
        Variant {
            ticket: format!("{body}."),
            what: "the last segment (the signature) removed, its dot kept".into(),
        },
        Variant {
            ticket: body.to_owned(),
            what: "the last segment (the signature) and its dot removed".into(),
        },
    ])
}

/// The ticket with `=` padding appended, and, where a segment's length is not a multiple of
/// 4, with the padding that segment would take inserted after it.
pub fn padded(ticket: &str) -> Vec<Variant> {
    let mut out = vec![Variant {
        ticket: format!("{ticket}="),
        what: "\"=\" padding appended".into(),
    }];
    // Padding inside too, where a segment's length would take it.
    let segs = segments(ticket);
    if let Some((start, s)) = segs.iter().rev().find(|(_, s)| s.len() % 4 != 0) {
        let pad = "=".repeat((4 - s.len() % 4) % 4);
        let mut t = ticket.to_owned();
        t.insert_str(start + s.len(), &pad);
        out.push(Variant {
            ticket: t,
            what: format!("{pad:?} padding after a segment"),
        });
    }
    out
}

/// The same bytes in the standard alphabet (`-` to `+`, `_` to `/`); `None` when the
/// ticket has neither character, so the spelling would not change.
pub fn standard_alphabet(ticket: &str) -> Option<Variant> {
    let t = ticket.replace('-', "+").replace('_', "/");
    (t != ticket).then(|| Variant {
        ticket: t,
        what: "the same bytes in the standard Base64 alphabet (+ and /)".into(),
    })
}

/// The ticket with a leading space, a trailing newline, and a space in its middle.
pub fn whitespace(ticket: &str) -> Vec<Variant> {
    let mid = ticket.len() / 2;
    let mut inside = ticket.to_owned();
    inside.insert(mid, ' ');
    vec![
        Variant {
            ticket: format!(" {ticket}"),
            what: "a leading space".into(),
        },
        Variant {
            ticket: format!("{ticket}\n"),
            what: "a trailing newline".into(),
        },
        Variant {
            ticket: inside,
            what: format!("a space at character {mid}"),
        },
    ]
}

/// The ticket with its middle character replaced by `é`, and with a full-width `Ａ`
/// (U+FF21) appended.
pub fn non_ascii(ticket: &str) -> Vec<Variant> {
    let mut chars: Vec<char> = ticket.chars().collect();
    let mid = chars.len() / 2;
    if let Some(c) = chars.get_mut(mid) {
        *c = 'é';
    }
    vec![
        Variant {
            ticket: chars.into_iter().collect(),
            what: format!("character {mid} replaced by \"é\""),
        },
        Variant {
            ticket: format!("{ticket}\u{ff21}"),
            what: "a full-width \"Ａ\" appended".into(),
        },
    ]
}

/// A ticket-shaped string of `bytes` characters.
pub fn oversize(bytes: usize) -> String {
    let body = STANDARD.encode(vec![0u8; bytes * 3 / 4]).replace('=', "");
    format!("v1.{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "v1.eyJleHAiOjEwMCwicCI6eyJlbnYiOiJzdGFnaW5nIn19.abc-_Q";

    #[test]
    fn substitutions_change_one_character_each() {
        let v = substitutions(T);
        assert_eq!(v.len(), T.len());
        for (i, x) in v.iter().enumerate() {
            assert_eq!(x.ticket.len(), T.len());
            let diff: Vec<usize> = (0..T.len())
                .filter(|&j| x.ticket.as_bytes()[j] != T.as_bytes()[j])
                .collect();
            assert_eq!(diff, vec![i]);
        }
        let long = "v1.".to_owned() + &"A".repeat(5000);
        let v = substitutions(&long);
        assert!(v.len() <= MAX_SUBSTITUTIONS, "{}", v.len());
        assert!(v.last().unwrap().what.contains("5002"));
    }

    /// A decoder that ignores the bits no byte uses, as lenient ones do.
    fn lenient(seg: &str) -> Option<Vec<u8>> {
        use base64::engine::{GeneralPurpose, GeneralPurposeConfig};
        let config = GeneralPurposeConfig::new()
            .with_encode_padding(false)
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent);
        GeneralPurpose::new(&base64::alphabet::URL_SAFE, config)
            .decode(seg)
            .ok()
    }

    fn decoded(ticket: &str) -> Vec<Option<Vec<u8>>> {
        ticket.split('.').map(lenient).collect()
    }

    #[test]
    fn every_substitution_decodes_to_other_bytes_and_every_respelling_to_the_same() {
        // Segments of each length past a group of four: 2 (4 unused bits), 3 (2), 0 (none).
        let sig = "abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFGH";
        let mut respellings = 0;
        let with_sig = format!("v1.eyJhIjoxfX0.{sig}");
        for t in [T, "v1.eyJhIjoxfQ.AAAB", "rs1.eyJhIjoxfX19.AB", &with_sig] {
            let original = decoded(t);
            for v in substitutions(t) {
                assert_ne!(decoded(&v.ticket), original, "{t}: {}", v.what);
            }
            let respelled = unused_bits(t);
            let expected = t
                .split('.')
                .filter(|s| s.len() >= 8 && matches!(s.len() % 4, 2 | 3))
                .count();
            assert_eq!(respelled.len(), expected, "{t}");
            respellings += expected;
            for v in respelled {
                assert_ne!(v.ticket, t);
                assert_eq!(decoded(&v.ticket), original, "{t}: {}", v.what);
                let strict = v
                    .ticket
                    .split('.')
                    .all(|s| URL_SAFE_NO_PAD.decode(s).is_ok());
                assert!(!strict, "a strict decoder refuses {}", v.what);
            }
        }
        assert_eq!(respellings, 3, "each length past a group of four is tried");
        // The old edit of the last character, its lowest bit: a second spelling, not a change.
        assert_eq!(flipped(b'Q', 0), b'R');
        assert_eq!(flipped(b'Q', unused_low_bits(6)), b'A');
    }

    #[test]
    fn a_readable_payload_is_edited_and_re_encoded() {
        let v = field_edit(T).unwrap();
        assert!(v.what.contains("exp"));
        let seg = v.ticket.split('.').nth(1).unwrap();
        let payload: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(seg).unwrap()).unwrap();
        assert_eq!(payload["exp"], 86_500);
        assert!(v.ticket.ends_with(".abc-_Q"), "the signature is kept");
        let no_exp = format!(
            "v1.{}.sig",
            URL_SAFE_NO_PAD.encode(br#"{"p":{"env":"staging"}}"#)
        );
        let v = field_edit(&no_exp).unwrap();
        assert!(v.what.contains("\"p.env\""), "{}", v.what);
        assert_eq!(field_edit("v1e.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), None);
    }

    #[test]
    fn an_expiry_at_the_end_of_u64_is_edited_without_overflowing() {
        let at_end = format!(
            "v1.{}.sig",
            URL_SAFE_NO_PAD.encode(format!(r#"{{"exp":{}}}"#, u64::MAX))
        );
        let v = field_edit(&at_end).unwrap();
        assert!(v.what.contains("a day earlier"), "{}", v.what);
        let seg = v.ticket.split('.').nth(1).unwrap();
        let payload: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(seg).unwrap()).unwrap();
        assert_eq!(payload["exp"], u64::MAX - 86_400);
        assert_eq!(stated_life(&at_end), None);
    }

    /// rmcp's body: the expiry in milliseconds, 8 bytes big-endian, then the JSON.
    fn rmcp_body(exp_ms: u64, json: &str) -> String {
        let mut b = exp_ms.to_be_bytes().to_vec();
        b.extend_from_slice(json.as_bytes());
        URL_SAFE_NO_PAD.encode(b)
    }

    #[test]
    fn a_readable_payload_is_found_alone_or_framed_and_a_sealed_one_is_not() {
        let p = payload(T).unwrap();
        assert_eq!((p.segment, p.framing), (1, (0, 0)));
        assert_eq!(p.json["exp"], 100);
        let t = format!("rs1.{}.sig", rmcp_body(7, r#"{"env":"staging"}"#));
        let p = payload(&t).unwrap();
        assert_eq!((p.segment, p.framing), (1, (8, 0)));
        assert_eq!(p.json["env"], "staging");
        assert_eq!(payload("v1e.q83vEjRWeJq8"), None);
        assert_eq!(payload("opaque"), None);
    }

    #[test]
    fn a_payload_behind_rmcps_binary_expiry_is_edited_in_its_frame() {
        // An expiry whose bytes include a `{` (0x7b) and a `"` (0x22): the scan must not stop
        // there.
        let exp = 0x7b22_0000_0193_a1b2_u64;
        let tag = URL_SAFE_NO_PAD.encode([7u8; 32]);
        for t in [
            format!("rs1.{}.{tag}", rmcp_body(exp, r#"{"env":"staging"}"#)),
            format!(
                "rs2.{}.{}.{tag}",
                URL_SAFE_NO_PAD.encode("k2"),
                rmcp_body(exp, r#"{"env":"staging"}"#)
            ),
        ] {
            let v = field_edit(&t).unwrap_or_else(|| panic!("no field to edit in {t}"));
            assert!(v.what.contains("binary prefix of 8 bytes"), "{}", v.what);
            assert!(v.what.contains("\"env\""), "{}", v.what);
            let segs: Vec<&str> = v.ticket.split('.').collect();
            let old: Vec<&str> = t.split('.').collect();
            assert_eq!(segs.len(), old.len());
            assert_eq!(segs.last(), old.last(), "the tag is kept");
            assert_eq!(
                segs[..segs.len() - 2],
                old[..old.len() - 2],
                "prefix and kid kept"
            );
            let body = URL_SAFE_NO_PAD.decode(segs[segs.len() - 2]).unwrap();
            assert_eq!(body[..8], exp.to_be_bytes(), "the binary expiry is kept");
            let json: Value = serde_json::from_slice(&body[8..]).unwrap();
            assert_eq!(json["env"], "staging-edited");
        }
        // A readable exp inside framed JSON is still what gets edited, and read.
        let t = format!("rs1.{}.sig", rmcp_body(0, r#"{"exp":100,"iat":40}"#));
        assert!(field_edit(&t).unwrap().what.contains("exp a day later"));
        assert_eq!(stated_expiry(&t), Some(100));
        assert_eq!(stated_life(&t), Some(60));
    }

    #[test]
    fn binary_without_a_json_object_is_still_sealed() {
        // Random-looking bytes with a stray `{`, and an empty object, are no payload.
        let noise = URL_SAFE_NO_PAD.encode([0x7b, 0x01, 0xff, 0x7b, 0x7d, 0x00, 0x22]);
        assert_eq!(field_edit(&format!("rs1.{noise}.sig")), None);
        assert_eq!(field_edit(&format!("rs1.{}.sig", rmcp_body(5, "{}"))), None);
    }

    #[test]
    fn spelling_variants_keep_or_break_the_bytes() {
        assert_eq!(
            standard_alphabet(T).unwrap().ticket,
            T.replace('-', "+").replace('_', "/")
        );
        assert_eq!(standard_alphabet("v1.abc.def"), None);
        assert!(padded(T).iter().all(|v| v.ticket.contains('=')));
        assert_eq!(
            without_signature(T).unwrap()[1].ticket,
            T[..T.rfind('.').unwrap()]
        );
        assert_eq!(without_signature("v1e.AAAA"), None);
        assert!(non_ascii(T).iter().all(|v| !v.ticket.is_ascii()));
        assert_eq!(oversize(65_536).len(), 3 + 65_536);
    }
}
