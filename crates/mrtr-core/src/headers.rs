//! The header rules of Streamable HTTP that both ends share: the Base64 sentinel for values
//! that are not plain ASCII, the tool parameters mirrored into `Mcp-Param-*` headers, and the
//! headers a client derives from each message ([`Mirrored::headers_for`]), the one rule the
//! native client, the audit's wire and the page all send by.

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// The header value for `value`: itself when it is plain visible ASCII with no edge white
/// space and does not look like a sentinel; otherwise `=?base64?…?=` of its UTF-8.
pub fn encode_value(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .bytes()
            .all(|b| b == b'\t' || (0x20..=0x7e).contains(&b))
        && value.trim_matches([' ', '\t']) == value
        && !(value.starts_with(SENTINEL_START) && value.ends_with(SENTINEL_END));
    if plain {
        value.to_owned()
    } else {
        format!("{SENTINEL_START}{}{SENTINEL_END}", STANDARD.encode(value))
    }
}

/// `=?base64?…?=` is decoded strictly (standard alphabet, canonical padding, UTF-8);
/// anything else is the literal value. `None` for a sentinel that does not decode.
pub fn decode_sentinel(v: &str) -> Option<String> {
    let inner = match v
        .strip_prefix(SENTINEL_START)
        .and_then(|r| r.strip_suffix(SENTINEL_END))
    {
        Some(inner) => inner,
        _ => return Some(v.to_owned()),
    };
    let bytes = STANDARD.decode(inner).ok()?;
    String::from_utf8(bytes).ok()
}

/// A tool parameter whose value clients mirror into an `Mcp-Param-{header}` header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamHeader {
    /// The property names from the schema root to the parameter.
    pub path: Vec<String>,
    /// The schema's `x-mcp-header` value (an HTTP token), without the `Mcp-Param-` prefix.
    pub header: String,
}

impl ParamHeader {
    /// The header name, `Mcp-Param-{header}`.
    pub fn name(&self) -> String {
        format!("Mcp-Param-{}", self.header)
    }

    /// The argument's value as the header carries it (before encoding), or `None` when no
    /// header is sent: the value is absent, null or not a primitive.
    pub fn value_in(&self, arguments: Option<&Value>) -> Option<String> {
        let mut at = arguments;
        for key in &self.path {
            at = at.and_then(|v| v.get(key));
        }
        match at? {
            Value::String(s) => Some(s.clone()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    /// The `x-mcp-header` parameters of a tool's input schema: properties reachable from
    /// the root through `properties` alone, whose header name is a non-empty HTTP token.
    pub fn all_in(schema: &Value) -> Vec<ParamHeader> {
        fn walk(schema: &Value, path: &mut Vec<String>, out: &mut Vec<ParamHeader>) {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (key, prop) in props {
                path.push(key.clone());
                if let Some(h) = prop.get("x-mcp-header").and_then(Value::as_str) {
                    let token = !h.is_empty()
                        && h.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
                    if token {
                        out.push(ParamHeader {
                            path: path.clone(),
                            header: h.to_owned(),
                        });
                    }
                }
                walk(prop, path, out);
                path.pop();
            }
        }
        let mut out = Vec::new();
        walk(schema, &mut Vec::new(), &mut out);
        out
    }
}

/// The param whose value a request's `Mcp-Name` header carries, for the methods that have
/// one: a tool's or prompt's `name`, a resource's `uri`, a task's `taskId`. The one rule both
/// ends use (the client to send the header, the server to hold it to the body).
pub fn name_param(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// The `x-mcp-header` parameters of each tool, learnt from `tools/list` results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mirrored(BTreeMap<String, Vec<ParamHeader>>);

impl Mirrored {
    /// Remembers which tools mirror parameters into headers, from a `tools/list` result (the
    /// response's `result`).
    pub fn learn(&mut self, result: &Value) {
        for tool in result
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(name), Some(schema)) = (
                tool.get("name").and_then(Value::as_str),
                tool.get("inputSchema"),
            ) {
                self.0.insert(name.to_owned(), ParamHeader::all_in(schema));
            }
        }
    }

    /// The MCP headers a POST of `msg` carries: `MCP-Protocol-Version` from its `_meta`,
    /// `Mcp-Method`, `Mcp-Name` for a call, a prompt or a read, and a tool call's mirrored
    /// `Mcp-Param-*`. (Not `Content-Type`, `Accept` or `Authorization`: the transport's.)
    pub fn headers_for(&self, msg: &Value) -> Vec<(String, String)> {
        let mut h = Vec::new();
        if let Some(v) = msg
            .pointer("/params/_meta")
            .and_then(|m| m.get(crate::wire::META_PROTOCOL_VERSION))
            .and_then(Value::as_str)
        {
            h.push(("MCP-Protocol-Version".into(), v.to_owned()));
        }
        let Some(m) = msg.get("method").and_then(Value::as_str) else {
            return h;
        };
        h.push(("Mcp-Method".into(), m.to_owned()));
        let Some(key) = name_param(m) else {
            return h;
        };
        if let Some(n) = msg
            .pointer(&format!("/params/{key}"))
            .and_then(Value::as_str)
        {
            h.push(("Mcp-Name".into(), encode_value(n)));
            let mirrored = (m == "tools/call").then(|| self.0.get(n)).flatten();
            for p in mirrored.into_iter().flatten() {
                if let Some(v) = p.value_in(msg.pointer("/params/arguments")) {
                    h.push((p.name(), encode_value(&v)));
                }
            }
        }
        h
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_call_carries_its_method_name_version_and_mirrored_parameters() {
        let mut m = Mirrored::default();
        m.learn(&serde_json::json!({"tools": [{"name": "go", "inputSchema": {
            "type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}}]}));
        let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "go", "arguments": {"region": "eu-1"},
            "_meta": {(crate::wire::META_PROTOCOL_VERSION): "2026-07-28"}}});
        let h = m.headers_for(&call);
        let names: Vec<&str> = h.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "MCP-Protocol-Version",
                "Mcp-Method",
                "Mcp-Name",
                "Mcp-Param-Region"
            ]
        );
        assert_eq!(h[3].1, "eu-1");
        // A list names no tool, and an unknown tool mirrors nothing.
        let list = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"name": "go"}});
        assert_eq!(
            m.headers_for(&list),
            [("Mcp-Method".to_owned(), "tools/list".to_owned())]
        );
        let other = serde_json::json!({"method": "tools/call", "params": {"name": "déjà", "arguments": {"region": "x"}}});
        assert_eq!(
            m.headers_for(&other)[1],
            ("Mcp-Name".to_owned(), "=?base64?ZMOpasOg?=".to_owned())
        );
        assert_eq!(m.headers_for(&other).len(), 2);
    }

    use super::*;

    #[test]
    fn mcp_name_sentinels_decode_strictly() {
        assert_eq!(decode_sentinel("=?base64?SGVsbG8=?="), Some("Hello".into()));
        assert_eq!(
            decode_sentinel("=?base64?SGVsbG8?="),
            None,
            "padding missing"
        );
        assert_eq!(decode_sentinel("=?base64?SGVs!!!bG8=?="), None);
        assert_eq!(decode_sentinel("SGVsbG8="), Some("SGVsbG8=".into()));
        assert_eq!(
            decode_sentinel("=?base64?SGVsbG8="),
            Some("=?base64?SGVsbG8=".into())
        );
        assert_eq!(
            decode_sentinel("=?BASE64?SGVsbG8=?="),
            Some("=?BASE64?SGVsbG8=?=".into())
        );
        assert_eq!(decode_sentinel("=?base64?=").as_deref(), Some("=?base64?="));
        assert_eq!(decode_sentinel("=?base64?/w==?="), None, "not UTF-8");
    }

    #[test]
    fn values_that_are_not_plain_ascii_are_encoded() {
        assert_eq!(encode_value("deploy"), "deploy");
        for v in [
            "déploy",
            " padded ",
            "line1\nline2",
            "=?base64?literal?=",
            "",
        ] {
            let e = encode_value(v);
            assert!(e.starts_with("=?base64?"), "{v:?}");
            assert_eq!(decode_sentinel(&e).as_deref(), Some(v), "{v:?}");
        }
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
    }
}
