//! A canonical JSON form, so that a digest of a request's arguments ignores key order and
//! white space but not values.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Writes `v` with object keys sorted (by UTF-16-agnostic byte order) and no white space.
/// Sorting is explicit so the result does not depend on serde_json's map feature.
pub fn canonical_json(v: &Value) -> String {
    let mut out = Vec::new();
    write(v, &mut out);
    // serde_json writes UTF-8, and so does everything else here.
    String::from_utf8(out).unwrap_or_default()
}

/// Into bytes, with serde_json's own writer for keys and scalars (its compact form: the same
/// bytes its `to_string` gives).
fn write(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push(b'{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                // Writing a string into a Vec cannot fail.
                let _ = serde_json::to_writer(&mut *out, k);
                out.push(b':');
                write(&m[*k], out);
            }
            out.push(b'}');
        }
        Value::Array(a) => {
            out.push(b'[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(x, out);
            }
            out.push(b']');
        }
        other => {
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
}

/// A short fingerprint of a request's arguments: base64url of the first 16 bytes of the
/// SHA-256 of their canonical JSON (absent arguments count as `{}`).
pub fn arguments_digest(arguments: &Value) -> String {
    let mut canon = Vec::new();
    if arguments.is_null() {
        canon.extend_from_slice(b"{}");
    } else {
        write(arguments, &mut canon);
    }
    let hash = Sha256::digest(&canon);
    URL_SAFE_NO_PAD.encode(&hash[..16])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_and_whitespace_do_not_matter() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":{"y":[1,2],"x":"s"}}"#).unwrap();
        let b: Value =
            serde_json::from_str("{ \"a\" : { \"x\":\"s\", \"y\":[1, 2]},\n \"b\":1 }").unwrap();
        assert_eq!(canonical_json(&a), r#"{"a":{"x":"s","y":[1,2]},"b":1}"#);
        assert_eq!(arguments_digest(&a), arguments_digest(&b));
    }

    #[test]
    fn values_matter() {
        let d = arguments_digest(&json!({"env": "staging"}));
        assert_ne!(d, arguments_digest(&json!({"env": "prod"})));
        assert_ne!(d, arguments_digest(&json!({"env": ["staging"]})));
        assert_ne!(
            arguments_digest(&json!({"n": 1})),
            arguments_digest(&json!({"n": 1.0}))
        );
        assert_eq!(arguments_digest(&Value::Null), arguments_digest(&json!({})));
        assert_eq!(d.len(), 22);
    }
}
