//! A canonical JSON form, so that a digest of a request's arguments ignores key order and
//! white space but not values.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Writes `v` with object keys sorted (by UTF-16-agnostic byte order) and no white space.
/// Sorting is explicit so the result does not depend on serde_json's map feature.
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write(v, &mut out);
    out
}

fn write(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                // Serialising a string cannot fail.
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push(':');
                write(&m[*k], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// A short fingerprint of a request's arguments: base64url of the first 16 bytes of the
/// SHA-256 of their canonical JSON (absent arguments count as `{}`).
pub fn arguments_digest(arguments: &Value) -> String {
    let canon = if arguments.is_null() {
        "{}".to_owned()
    } else {
        canonical_json(arguments)
    };
    let hash = Sha256::digest(canon.as_bytes());
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
